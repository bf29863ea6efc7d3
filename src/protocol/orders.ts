// Orders → each dialect's action JSON (v1: one `order` action with items; current: `l`/`m`/`st`/`tp`/`trl`/`rng`/`of`/`cx`/`cxa`
// actions), in the shape the dialect's action schema returns; an order the dialect cannot express throws ValidationError. Invariant: item k of the output is item k of the input, so the codec's
// predicted order id k belongs to item k; the one place order JSON is built (execution and the command line use it).

import { ValidationError } from '../core/errors.js';
import { triggersAbove, type OrderSpec, type PriceTrigger, type WhenMark } from '../core/intent.js';

/**
 * One order item of an action: place an order, park `specs` in one trigger basket until the mark of `symbol` meets
 * `whenMark`, cancel one by id, or cancel every order in `symbols` (all when empty).
 */
export type OrderItem =
  | { readonly kind: 'place'; readonly spec: OrderSpec; readonly cloid: string | undefined }
  | { readonly kind: 'basket'; readonly symbol: string; readonly whenMark: WhenMark; readonly specs: readonly OrderSpec[] }
  | { readonly kind: 'cancel'; readonly symbol: string; readonly orderId: string }
  | { readonly kind: 'cancelAll'; readonly symbols: readonly string[] };

function v1Item(item: OrderItem): object {
  if (item.kind === 'cancel') return { cancel: { c: item.symbol, oid: item.orderId } };
  if (item.kind === 'cancelAll') return { cancelAll: { c: item.symbols } };
  if (item.kind === 'basket') throw new ValidationError('basket', 'the v1 dialect has no trigger baskets; use the current dialect');
  const s = item.spec;
  if (s.onFill !== undefined) throw new ValidationError('onFill', 'the v1 dialect has no on-fill orders; use the current dialect');
  if (s.whenMark !== undefined) throw new ValidationError('whenMark', 'the v1 dialect has no trigger baskets; use the current dialect');
  const kind = s.trigger?.kind;
  if (kind === 'trailing' || kind === 'range')
    throw new ValidationError('trigger.kind', `the v1 dialect has no ${kind} orders (stop and takeProfit only); use the current dialect`);
  const t =
    s.trigger !== undefined
      ? { trigger: { is_market: s.price === undefined, triggerPx: (s.trigger as PriceTrigger).triggerPrice } }
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
  if (item.kind === 'basket') return currentBasket(item.symbol, item.whenMark, item.specs, 'orders');
  const s = item.spec;
  if (s.onFill !== undefined) return currentOnFill(s, s.onFill);
  if (s.whenMark !== undefined) return currentBasket(s.symbol, s.whenMark, [s], 'whenMark');
  return currentPlace(s);
}

/**
 * `trig` of `specs` (market or limit orders), placed once the mark of `symbol` meets `when`. Throws ValidationError
 * (naming `field`) for none, or one that is a trigger order or carries onFill or whenMark orders of its own.
 */
function currentBasket(symbol: string, when: WhenMark, specs: readonly OrderSpec[], field: string): object {
  if (specs.length === 0) throw new ValidationError(field, 'a trigger basket must hold at least one order');
  const actions = specs.map((s, j) => {
    const name = specs.length === 1 ? field : `${field}[${j}]`;
    if (s.trigger !== undefined || s.onFill !== undefined)
      throw new ValidationError(name, 'an order parked until a mark price cannot also be a trigger order or carry onFill orders');
    if (s.whenMark !== undefined && specs.length > 1) throw new ValidationError(`${name}.whenMark`, "a basket's orders share the basket's whenMark");
    return currentPlace(s);
  });
  return { trig: { c: symbol, d: when.above, tr: when.price, actions } };
}

/**
 * `of`: the order (a market or limit order) and, once it has filled, its children. Throws ValidationError for a trigger
 * order with children (the venue's `of.trigger` is an `m` or `l`) and for a child with children of its own.
 */
function currentOnFill(s: OrderSpec, children: readonly OrderSpec[]): object {
  if (s.trigger !== undefined)
    throw new ValidationError('onFill', 'a trigger order cannot have on-fill orders: the venue fires them after a market or limit order fills');
  if (s.whenMark !== undefined) throw new ValidationError('whenMark', 'an order parked until a mark price cannot carry onFill orders');
  if (children.length === 0) throw new ValidationError('onFill', 'must list at least one order');
  const actions = children.map((child, j) => {
    if (child.onFill !== undefined) throw new ValidationError(`onFill[${j}].onFill`, 'an on-fill order cannot have on-fill orders of its own');
    return currentPlace(child);
  });
  return { of: { trigger: currentPlace(s), actions } };
}

function currentPlace(s: OrderSpec): object {
  if (s.trigger !== undefined) return currentTrigger(s, s.trigger);
  if (s.price === undefined) return { m: { c: s.symbol, b: s.side === 'buy', sz: s.size, r: s.reduceOnly, i: false } };
  return { l: { c: s.symbol, b: s.side === 'buy', px: s.price, sz: s.size, tif: s.tif, r: s.reduceOnly, i: false } };
}

/**
 * `st` (stop), `tp` (take profit), `trl` (trailing stop) or `rng` (range): the current dialect's conditional orders carry
 * no side and no reduce-only flag (they close the position their direction protects: `trl.b` and `rng.d` true for a long,
 * so a sell), so only a reduce-only trigger has one; `lim` is the limit when fired.
 */
function currentTrigger(s: OrderSpec, trigger: NonNullable<OrderSpec['trigger']>): object {
  if (!s.reduceOnly)
    throw new ValidationError(
      'reduceOnly',
      'the current dialect has conditional orders (st, tp, trl, rng) only to close a position: a trigger order must be reduce-only',
    );
  const long = s.side === 'sell';
  if (trigger.kind === 'trailing') return { trl: { c: s.symbol, b: long, sz: s.size, trb: trigger.trailBps, stb: trigger.stepBps, i: false } };
  if (trigger.kind === 'range') return { rng: { c: s.symbol, d: long, sz: s.size, pmin: trigger.low, pmax: trigger.high, i: false } };
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
