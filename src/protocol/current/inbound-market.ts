// GET /exchangeInfo of the current generation (venue-protocol §8.2, §10.4) in both published shapes: an array of
// markets, or `{symbols, markets: {SYM: market}}`. Invariant: inbound; GET /l2book answers exactly v1's bookSchema shape.

import { array, literal, maybe, number, object, record, string, transform, union, type Infer } from '../../core/schema.js';
import { symbolSchema } from '../../core/types.js';

/** One market; the steps and limits a bot needs are required, the descriptive fields are checked when present. */
export const marketRowSchema = object({
  symbol: symbolSchema,
  baseAsset: maybe(string({ maxLength: 32 })),
  quoteAsset: maybe(string({ maxLength: 32 })),
  status: literal('TRADING', 'SUSPENDED', 'CLOSED'),
  pricePrecision: maybe(number({ integer: true, min: 0 })),
  sizePrecision: maybe(number({ integer: true, min: 0 })),
  /** Price step, USD. */
  tickSize: number({ gt: 0 }),
  /** Size step, base units. */
  lotSize: number({ gt: 0 }),
  /** Smallest order notional, USD. */
  minNotional: number({ min: 0 }),
  maxLeverage: number({ integer: true, min: 1 }),
  orderTypes: maybe(array(string({ maxLength: 32 }))),
  timeInForces: maybe(array(string({ maxLength: 16 }))),
});
export type CurrentMarketInfo = Infer<typeof marketRowSchema>;

/** Every listed market, from either shape. */
export const currentExchangeInfoSchema = union([
  array(marketRowSchema),
  transform(object({ markets: record(marketRowSchema) }), (v) => Object.values(v.markets)),
]);
