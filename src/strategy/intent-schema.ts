// Runtime validator of the intents a strategy emits, so garbage from a plugin never reaches risk or execution.
// Invariants: accepts exactly the shapes of core/intent.ts (no unknown fields, finite positive prices and sizes); never transforms.

import type { Intent } from '../core/intent.js';
import { array, boolean, custom, invalid, literal, number, object, optional, refine, string, tagged, union, type Schema } from '../core/schema.js';
import { symbolSchema } from '../core/types.js';

const STRICT = { strict: true };

/** Quotes in one quote set (the venue's order batches hold at most 100 items). */
export const MAX_QUOTES = 100;

const side = literal('buy', 'sell');
const price = number({ gt: 0 });
const size = number({ gt: 0 });
const clientTag = string({ minLength: 1, maxLength: 64, pattern: /^[\x21-\x7e]+$/, patternName: 'printable ASCII without spaces' });

/** A session-clock time in ns: a bigint, never negative. */
const nanos = custom<bigint>('bigint >= 0', (v) => {
  if (typeof v !== 'bigint') invalid(`expected a bigint, got ${v === null ? 'null' : typeof v}`);
  if (v < 0n) invalid(`must be >= 0, got ${v}`);
  return v;
});

const stamp = {
  dataTimeMs: number({ min: 0 }),
  dataVersion: number({ integer: true, min: 0 }),
  arrivalNs: optional(nanos),
};

const bps = (min: number) => number({ integer: true, min, max: 10_000 });

export const triggerSpecSchema = tagged('kind', {
  stop: object({ kind: literal('stop'), triggerPrice: price }, STRICT),
  takeProfit: object({ kind: literal('takeProfit'), triggerPrice: price }, STRICT),
  trailing: object({ kind: literal('trailing'), trailBps: bps(1), stepBps: bps(0) }, STRICT),
  range: refine(object({ kind: literal('range'), low: price, high: price }, STRICT), (r) =>
    r.high > r.low ? undefined : `high must be above low, got ${r.high} <= ${r.low}`,
  ),
});

/** Most on-fill orders one order may carry. */
export const MAX_ON_FILL = 10;

const orderFields = {
  symbol: symbolSchema,
  side,
  price: optional(price),
  size,
  tif: literal('GTC', 'IOC', 'ALO'),
  reduceOnly: boolean(),
  clientTag: optional(clientTag),
  trigger: optional(triggerSpecSchema),
};

function orderProblem(o: { trigger?: { kind: string } | undefined; tif: string; price?: number | undefined }): string | undefined {
  if (o.trigger !== undefined && o.tif !== 'GTC') return `a trigger order waits parked until fired: tif must be GTC, got ${o.tif}`;
  if ((o.trigger?.kind === 'trailing' || o.trigger?.kind === 'range') && o.price !== undefined)
    return `a ${o.trigger.kind} trigger fires as a market order: price must be absent`;
  return o.price === undefined && o.tif === 'ALO' ? 'a market order (no price) cannot be ALO' : undefined;
}

/** Most orders one trigger basket may hold (a `basket` intent). */
export const MAX_BASKET_ORDERS = 10;

const whenMarkSchema = object({ above: boolean(), price }, STRICT);

/** An order of a `basket` intent: a market or limit order (it shares the basket's whenMark). */
const basketOrderSchema = refine(object(orderFields, STRICT), (o) =>
  o.trigger !== undefined ? "a basket's orders are market or limit orders: no trigger" : orderProblem(o),
);

/** An order placed once its parent filled (OrderSpec.onFill): any order without children of its own. */
const onFillSpecSchema = refine(object(orderFields, STRICT), orderProblem);

export const orderSpecSchema = refine(
  object(
    {
      ...orderFields,
      onFill: optional(array(onFillSpecSchema, { minLength: 1, maxLength: MAX_ON_FILL })),
      whenMark: optional(whenMarkSchema),
    },
    STRICT,
  ),
  (o) => {
    if (o.onFill !== undefined && o.trigger !== undefined) return 'a trigger order cannot have onFill orders: they follow the fill of a market or limit order';
    if (o.whenMark !== undefined && (o.trigger !== undefined || o.onFill !== undefined))
      return 'an order parked until a mark price (whenMark) cannot also have a trigger or onFill orders';
    return orderProblem(o);
  },
);

export const orderRefSchema = union([object({ orderId: string({ minLength: 1, maxLength: 128 }) }, STRICT), object({ clientTag }, STRICT)]);

export const quoteSpecSchema = object({ side, price, size, tif: optional(literal('GTC', 'ALO')) }, STRICT);

/** A quote set must not trade with itself: every bid below every ask. */
const quotesSchema = refine(array(quoteSpecSchema, { maxLength: MAX_QUOTES }), (quotes) => {
  let bid = -Infinity;
  let ask = Infinity;
  for (const q of quotes) {
    if (q.side === 'buy') bid = Math.max(bid, q.price);
    else ask = Math.min(ask, q.price);
  }
  return bid >= ask ? `quotes cross themselves: buy at ${bid} >= sell at ${ask}` : undefined;
});

export const intentSchema: Schema<Intent> = tagged('kind', {
  place: object({ kind: literal('place'), ...stamp, order: orderSpecSchema }, STRICT),
  cancel: object({ kind: literal('cancel'), ...stamp, symbol: symbolSchema, ref: orderRefSchema }, STRICT),
  cancelAll: object({ kind: literal('cancelAll'), ...stamp, symbols: optional(array(symbolSchema, { minLength: 1, maxLength: 256 })) }, STRICT),
  replace: object({ kind: literal('replace'), ...stamp, ref: orderRefSchema, order: orderSpecSchema }, STRICT),
  quoteSet: object({ kind: literal('quoteSet'), ...stamp, symbol: symbolSchema, quotes: quotesSchema }, STRICT),
  basket: object(
    {
      kind: literal('basket'),
      ...stamp,
      symbol: symbolSchema,
      whenMark: whenMarkSchema,
      orders: array(basketOrderSchema, { minLength: 1, maxLength: MAX_BASKET_ORDERS }),
    },
    STRICT,
  ),
});

/** The markets an intent touches, each with the field that names it (cancelAll without symbols: none). */
export function intentSymbols(intent: Intent): Array<{ readonly field: string; readonly symbol: string }> {
  switch (intent.kind) {
    case 'place':
    case 'replace':
      return [{ field: 'order.symbol', symbol: intent.order.symbol }];
    case 'cancel':
    case 'quoteSet':
      return [{ field: 'symbol', symbol: intent.symbol }];
    case 'cancelAll':
      return (intent.symbols ?? []).map((symbol, i) => ({ field: `symbols[${i}]`, symbol }));
    case 'basket':
      return [{ field: 'symbol', symbol: intent.symbol }, ...intent.orders.map((o, i) => ({ field: `orders[${i}].symbol`, symbol: o.symbol }))];
  }
}
