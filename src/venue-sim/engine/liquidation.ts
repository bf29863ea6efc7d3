// Liquidation of accounts below maintenance margin: pull their orders, close against the book, then auto-deleverage.
// Invariant: a liquidated account ends with no open orders and no positions; ADL trades at the mark price without fees.

import { unitsToUsd } from '../decimals.js';
import { computeRisk } from './accounts.js';
import { KIND_MARKET, TIF_IOC } from './book.js';
import { hashId } from './orderindex.js';
import type { Account, Market, Order } from './model.js';
import { match } from './matching.js';
import type { State } from './state.js';
import type { LiquidationEvent } from './types.js';

/** True when the account holds a position and its equity is below its maintenance margin. */
export function isUnderwater(st: State, a: Account): boolean {
  const r = computeRisk(a, st.quoteScale, st.risk);
  return r.hasPosition && r.equity < r.maintenanceMargin;
}

/** Liquidates every account queued in `st.underwater` (and any the liquidations push below margin). */
export function liquidateQueued(st: State, maxSlippage: number): void {
  for (let round = 0; round < 1000 && st.underwater.length > 0; round++) {
    const queue = st.underwater.splice(0);
    const seen = new Set<Account>();
    for (const a of queue) {
      if (seen.has(a)) continue;
      seen.add(a);
      if (isUnderwater(st, a)) liquidate(st, a, maxSlippage);
    }
  }
  st.underwater.length = 0;
}

/** Checks the given accounts (e.g. the holders of a market whose mark moved) and liquidates those underwater. */
export function checkAccounts(st: State, accounts: Iterable<Account>, maxSlippage: number): void {
  for (const a of accounts) if (isUnderwater(st, a)) st.underwater.push(a);
  liquidateQueued(st, maxSlippage);
}

/**
 * Liquidates `a`: cancels all its orders (cancelledRiskLimit), closes each position with a reduce-only
 * market order swept no further than `maxSlippage` from mark, and hands any rest to auto-deleveraging.
 */
export function liquidate(st: State, a: Account, maxSlippage: number): void {
  const marginPrior = computeRisk(a, st.quoteScale, st.risk).equity;
  let o = a.ordersHead;
  while (o !== null) {
    const next: Order | null = o.aNext;
    st.cancel(o, 'cancelledRiskLimit', 'liquidation');
    o = next;
  }
  /** built before each closing order ends (ended orders are recycled), pushed once marginAfter is known */
  const closed: LiquidationEvent[] = [];
  for (const p of a.positions) {
    if (p.lots === 0) continue;
    const m = p.market;
    const mark = m.markPrice();
    const isBuy = p.lots < 0;
    const id = st.prng.nextId();
    const lo = st.newOrder(id, null, a, m, isBuy, KIND_MARKET, TIF_IOC, 0, Math.abs(p.lots), true, hashId(id));
    const perTick = m.tick.scale / m.tick.mantissa;
    lo.limitTicks = isBuy ? Math.floor(mark * (1 + maxSlippage) * perTick) : Math.ceil(mark * (1 - maxSlippage) * perTick);
    match(st, lo, 'liquidation');
    if (lo.remLots > 0) autoDeleverage(st, lo, mark);
    closed.push({
      type: 'liquidation',
      account: a.key,
      symbol: m.symbol,
      price: m.avgPrice(lo.filledValue, lo.filledLots),
      size: m.size(lo.filledLots),
      isBuy: lo.isBuy,
      marginPrior,
      marginAfter: 0,
      timestamp: st.nowNs,
    });
    st.terminal(lo, lo.remLots === 0 ? 'filled' : 'partiallyFilled', 'liquidation');
  }
  st.flush();
  const marginAfter = computeRisk(a, st.quoteScale, st.risk).equity;
  for (const e of closed) {
    e.marginAfter = marginAfter;
    st.events.push(e);
    st.recordRisk(a, { symbol: e.symbol, eventType: 'liquidation', isBuy: e.isBuy, amount: e.size, price: e.price, marginPrior, marginAfter });
  }
}

/**
 * Closes the rest of liquidation order `lo` against the opposite positions, most profitable first
 * (unrealized PnL over entry value; ties by account key), at the mark price rounded to the tick.
 */
function autoDeleverage(st: State, lo: Order, mark: number): void {
  const m: Market = lo.market;
  const a = lo.account;
  const ticks = Math.max(1, Math.round((mark * m.tick.scale) / m.tick.mantissa));
  const qs = st.quoteScale;
  const candidates: { account: Account; score: number }[] = [];
  for (const h of m.holders) {
    if (h === a) continue;
    const p = h.positions[m.index]!;
    if (lo.isBuy ? p.lots <= 0 : p.lots >= 0) continue;
    const upnl = p.lots * m.lot.value * mark - unitsToUsd(p.signedCost(), qs);
    candidates.push({ account: h, score: p.cost > 0n ? upnl / unitsToUsd(p.cost, qs) : 0 });
  }
  candidates.sort((x, y) => y.score - x.score || (x.account.key < y.account.key ? -1 : x.account.key > y.account.key ? 1 : 0));
  const price = m.price(ticks);
  for (const c of candidates) {
    if (lo.remLots === 0) break;
    const p = c.account.positions[m.index]!;
    const abs = p.lots > 0 ? p.lots : -p.lots;
    const q = lo.remLots < abs ? lo.remLots : abs;
    const marginPrior = computeRisk(c.account, qs, st.risk).equity;
    lo.remLots -= q;
    lo.filledLots += q;
    lo.filledValue += ticks * q;
    st.applyFill(c.account, m, !lo.isBuy, q, ticks, 0, 'adl');
    st.applyFill(a, m, lo.isBuy, q, ticks, 0, 'liquidation');
    st.recordFill(c.account, null, st.prng.nextId(), lo, q, ticks, 0, 0, 'adl');
    st.events.push({ type: 'adl', account: c.account.key, symbol: m.symbol, price, size: m.size(q), isBuy: !lo.isBuy, timestamp: st.nowNs });
    const marginAfter = computeRisk(c.account, qs, st.risk).equity;
    st.recordRisk(c.account, { symbol: m.symbol, eventType: 'adl', isBuy: !lo.isBuy, amount: m.size(q), price, marginPrior, marginAfter });
  }
}
