// The current generation's order actions as the engine's order items (venue-protocol §4, §14), and each action's
// priority in a block: shared by the local venue's POST /order and the backtest's simulated venue. Invariant: pure.

import { actionBody, actionTag, tifIndex, type Action } from '../../protocol/current/actions.js';
import { roundToStep } from '../decimals.js';
import type { OrderActionItem } from '../engine/index.js';
import type { Priority } from './block.js';

const TIF_TEXT = ['GTC', 'IOC', 'ALO'] as const;
const ALO_SLIDE = 3;
const ALO_JOIN = 4;
const SETTINGS: ReadonlySet<string> = new Set(['faucet', 'agentWalletCreation', 'updateUserSettings']);
const ISOLATED = 'isolated margin (i) is not supported by the local venue';

/** Block priority of one action: 0 account settings, 1 cancels, 2 post-only limits (ALO and its variants), 3 the rest. */
export function priorityOf(a: Action): Priority {
  const tag = actionTag(a);
  if (SETTINGS.has(tag)) return 0;
  if (tag === 'cx' || tag === 'cxa') return 1;
  if (tag === 'l') {
    const tif = tifIndex(actionBody(a, 'l').tif);
    if (tif === 2 || tif === ALO_SLIDE || tif === ALO_JOIN) return 2;
  }
  return 3;
}

/** ALO_SLIDE (§14): a post-only price `px` that would cross `best` (the opposite side's best price) moves one tick behind it. */
export function slidPrice(isBuy: boolean, px: number, best: number | undefined, tickSize: number): number {
  if (best === undefined) return px;
  if (isBuy && px >= best) return roundToStep(best - tickSize, tickSize);
  if (!isBuy && px <= best) return roundToStep(best + tickSize, tickSize);
  return px;
}

/**
 * An order action as an engine item and the side its status reports (buy: true), or why it cannot run as sent;
 * undefined for an action that is not an order action (settings, `mod`: the caller runs those). `slide` moves an
 * ALO_SLIDE price that would cross one tick behind the opposite best price.
 */
export function currentOrderItem(
  action: Action,
  slide: (symbol: string, isBuy: boolean, px: number) => number,
): { readonly item: OrderActionItem; readonly isBuy: boolean } | { readonly refused: string } | undefined {
  const tag = actionTag(action);
  switch (tag) {
    case 'l': {
      const l = actionBody(action, 'l');
      if (l.i) return { refused: ISOLATED };
      const tif = tifIndex(l.tif);
      if (tif === ALO_JOIN) return { refused: 'ALO_JOIN is not supported: its semantics are unconfirmed (venue-protocol §14)' };
      const px = tif === ALO_SLIDE ? slide(l.c, l.b, Number(l.px)) : Number(l.px);
      return { item: { order: { c: l.c, b: l.b, px, sz: Number(l.sz), r: l.r, t: { limit: { tif: TIF_TEXT[tif === ALO_SLIDE ? 2 : tif]! } } } }, isBuy: l.b };
    }
    case 'm': {
      const m = actionBody(action, 'm');
      if (m.i) return { refused: ISOLATED };
      return { item: { order: { c: m.c, b: m.b, px: 0, sz: Number(m.sz), r: m.r, t: { trigger: { is_market: true, triggerPx: 0 } } } }, isBuy: m.b };
    }
    case 'st':
    case 'tp': {
      const c = actionBody(action, tag);
      if (c.i) return { refused: ISOLATED };
      // Inferred, not documented (venue-protocol §4.2): a stop closes the side that loses when the price crosses
      // `tr` in direction `d` (at or above: a short, so it buys), a take-profit the side that gains; both reduce only.
      const isBuy = tag === 'st' ? c.d : !c.d;
      const market = c.lim == null;
      const t = { trigger: { is_market: market, triggerPx: Number(c.tr), takeProfit: tag === 'tp' } };
      return { item: { order: { c: c.c, b: isBuy, px: market ? 0 : Number(c.lim), sz: Number(c.sz), r: true, t } }, isBuy };
    }
    // `trl.b` and `rng.d` name the position protected (true: a long, so the order sells): stated for `rng.d`
    // (venue-protocol §4.2), inferred for `trl.b` ("protected side"); both run reduce-only, as market orders when fired.
    case 'trl': {
      const t = actionBody(action, tag);
      if (t.i) return { refused: ISOLATED };
      if (t.lim != null) return { refused: 'a trailing stop with a limit (lim) is not supported by the local venue' };
      const trigger = { is_market: true, triggerPx: 0, trailBps: t.trb, stepBps: t.stb };
      return { item: { order: { c: t.c, b: !t.b, px: 0, sz: Number(t.sz), r: true, t: { trigger } } }, isBuy: !t.b };
    }
    case 'rng': {
      const r = actionBody(action, tag);
      if (r.i) return { refused: ISOLATED };
      if (r.lmin != null || r.lmax != null)
        return { refused: 'range limits (lmin, lmax) are not supported by the local venue: both legs fire as market orders' };
      const trigger = { is_market: true, triggerPx: Number(r.pmin), highPx: Number(r.pmax) };
      return { item: { order: { c: r.c, b: !r.d, px: 0, sz: Number(r.sz), r: true, t: { trigger } } }, isBuy: !r.d };
    }
    case 'cx': {
      const cx = actionBody(action, 'cx');
      return { item: { cancel: { c: cx.c, oid: cx.oid } }, isBuy: true };
    }
    case 'cxa':
      return { item: { cancelAll: { c: actionBody(action, 'cxa').c } }, isBuy: true };
    default:
      return undefined;
  }
}
