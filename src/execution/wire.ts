// Commands → the dialect's action JSON (v1 one `order` action with items, current `l`/`m`/`cx` actions) in the schema's parsed shape.
// Invariant: item k of the output is command k of the input, so the codec's predicted id k belongs to command k.

import type { OrderSpec } from '../core/intent.js';
import type { Dialect } from '../core/types.js';

export type WireItem =
  | { readonly kind: 'place'; readonly spec: OrderSpec; readonly cloid: string | undefined }
  | { readonly kind: 'cancel'; readonly symbol: string; readonly orderId: string };

function v1Item(item: WireItem): object {
  if (item.kind === 'cancel') return { cancel: { c: item.symbol, oid: item.orderId } };
  const s = item.spec;
  const order: Record<string, unknown> =
    s.price === undefined
      ? { c: s.symbol, b: s.side === 'buy', px: 0, sz: s.size, r: s.reduceOnly, t: { trigger: { is_market: true, triggerPx: 0 } } }
      : { c: s.symbol, b: s.side === 'buy', px: s.price, sz: s.size, r: s.reduceOnly, t: { limit: { tif: s.tif } } };
  if (item.cloid !== undefined) order.cloid = item.cloid;
  return { order };
}

function currentItem(item: WireItem): object {
  if (item.kind === 'cancel') return { cx: { c: item.symbol, oid: item.orderId } };
  const s = item.spec;
  if (s.price === undefined) return { m: { c: s.symbol, b: s.side === 'buy', sz: s.size, r: s.reduceOnly, i: false } };
  return { l: { c: s.symbol, b: s.side === 'buy', px: s.price, sz: s.size, tif: s.tif, r: s.reduceOnly, i: false } };
}

/** The `actions` input of the dialect's codec for `items`, in order. */
export function orderActions(dialect: Dialect, items: readonly WireItem[]): unknown {
  if (dialect === 'v1') return { type: 'order', orders: items.map(v1Item) };
  return items.map(currentItem);
}
