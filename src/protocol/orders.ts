// Orders → each dialect's action JSON (v1: one `order` action with items; current: `l`/`m`/`st`/`tp`/`cx`/`cxa` actions), in the
// shape the dialect's action schema returns. Invariant: item k of the output is item k of the input, so the codec's
// predicted order id k belongs to item k; the one place order JSON is built (execution and the command line use it).

import { ValidationError } from '../core/errors.js';
import { triggersAbove, type OrderSpec } from '../core/intent.js';

/** One order item of an action: place an order, cancel one by id, or cancel every order in `symbols` (all when empty). */
export type OrderItem =
  | { readonly kind: 'place'; readonly spec: OrderSpec; readonly cloid: string | undefined }
  | { readonly kind: 'cancel'; readonly symbol: string; readonly orderId: string }
  | { readonly kind: 'cancelAll'; readonly symbols: readonly string[] };

function v1Item(item: OrderItem): object {
  if (item.kind === 'cancel') return { cancel: { c: item.symbol, oid: item.orderId } };
  if (item.kind === 'cancelAll') return { cancelAll: { c: item.symbols } };
  const s = item.spec;
  const t =
    s.trigger !== undefined
      ? { trigger: { is_market: s.price === undefined, triggerPx: s.trigger.triggerPrice } }
      : s.price === undefined
        ? { trigger: { is_market: true, triggerPx: 0 } }
        : { limit: { tif: s.tif } };
  const order: Record<string, unknown> = { c: s.symbol, b: s.side === 'buy', px: s.price ?? 0, sz: s.size, r: s.reduceOnly, t };
  if (item.cloid !== undefined) order.cloid = item.cloid;
  return { order };
}

function currentItem(item: OrderItem): object {
  if (item.kind === 'cancel') return { cx: { c: item.symbol, oid: item.orderId } };
  if (item.kind === 'cancelAll') return { cxa: { c: item.symbols } };
  const s = item.spec;
  if (s.trigger !== undefined) return currentTrigger(s, s.trigger);
  if (s.price === undefined) return { m: { c: s.symbol, b: s.side === 'buy', sz: s.size, r: s.reduceOnly, i: false } };
  return { l: { c: s.symbol, b: s.side === 'buy', px: s.price, sz: s.size, tif: s.tif, r: s.reduceOnly, i: false } };
}

/**
 * `st` (stop) or `tp` (take profit): the current dialect's conditional orders carry no side and no reduce-only flag (they
 * close the position their direction `d` protects), so only a reduce-only trigger has one; `lim` is the limit when fired.
 */
function currentTrigger(s: OrderSpec, trigger: NonNullable<OrderSpec['trigger']>): object {
  if (!s.reduceOnly)
    throw new ValidationError(
      'reduceOnly',
      'the current dialect has conditional orders (st, tp) only to close a position: a trigger order must be reduce-only',
    );
  const body = {
    c: s.symbol,
    d: triggersAbove(s.side, trigger.kind),
    sz: s.size,
    tr: trigger.triggerPrice,
    ...(s.price !== undefined && { lim: s.price }),
    i: false,
  };
  return trigger.kind === 'stop' ? { st: body } : { tp: body };
}

/** The v1 `action` for `items`: one `order` action. */
export function v1OrderActions(items: readonly OrderItem[]): unknown {
  return { type: 'order', orders: items.map(v1Item) };
}

/** The current `actions` for `items`: one action each. */
export function currentOrderActions(items: readonly OrderItem[]): unknown {
  return items.map(currentItem);
}
