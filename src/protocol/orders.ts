// Orders → each dialect's action JSON (v1: one `order` action with items; current: `l`/`m`/`cx`/`cxa` actions), in the
// shape the dialect's action schema returns. Invariant: item k of the output is item k of the input, so the codec's
// predicted order id k belongs to item k; the one place order JSON is built (execution and the command line use it).

import type { OrderSpec } from '../core/intent.js';

/** One order item of an action: place an order, cancel one by id, or cancel every order in `symbols` (all when empty). */
export type OrderItem =
  | { readonly kind: 'place'; readonly spec: OrderSpec; readonly cloid: string | undefined }
  | { readonly kind: 'cancel'; readonly symbol: string; readonly orderId: string }
  | { readonly kind: 'cancelAll'; readonly symbols: readonly string[] };

function v1Item(item: OrderItem): object {
  if (item.kind === 'cancel') return { cancel: { c: item.symbol, oid: item.orderId } };
  if (item.kind === 'cancelAll') return { cancelAll: { c: item.symbols } };
  const s = item.spec;
  const order: Record<string, unknown> =
    s.price === undefined
      ? { c: s.symbol, b: s.side === 'buy', px: 0, sz: s.size, r: s.reduceOnly, t: { trigger: { is_market: true, triggerPx: 0 } } }
      : { c: s.symbol, b: s.side === 'buy', px: s.price, sz: s.size, r: s.reduceOnly, t: { limit: { tif: s.tif } } };
  if (item.cloid !== undefined) order.cloid = item.cloid;
  return { order };
}

function currentItem(item: OrderItem): object {
  if (item.kind === 'cancel') return { cx: { c: item.symbol, oid: item.orderId } };
  if (item.kind === 'cancelAll') return { cxa: { c: item.symbols } };
  const s = item.spec;
  if (s.price === undefined) return { m: { c: s.symbol, b: s.side === 'buy', sz: s.size, r: s.reduceOnly, i: false } };
  return { l: { c: s.symbol, b: s.side === 'buy', px: s.price, sz: s.size, tif: s.tif, r: s.reduceOnly, i: false } };
}

/** The v1 `action` for `items`: one `order` action. */
export function v1OrderActions(items: readonly OrderItem[]): unknown {
  return { type: 'order', orders: items.map(v1Item) };
}

/** The current `actions` for `items`: one action each. */
export function currentOrderActions(items: readonly OrderItem[]): unknown {
  return items.map(currentItem);
}
