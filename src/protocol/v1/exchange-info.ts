// GET /exchangeInfo markets of the v1 model, read in both published shapes (an array, or `{symbols, markets: {SYM: market}}`).
// Invariant: inbound, so unknown fields are ignored; tick and lot sizes are positive (the specification gives no schema).

import { array, number, object, optional, record, transform, union, type Infer } from '../../core/schema.js';
import { symbolSchema } from '../../core/types.js';

export const marketInfoSchema = object({
  symbol: symbolSchema,
  /** Price step, USD. */
  tickSize: number({ gt: 0 }),
  /** Size step, base units. */
  lotSize: number({ gt: 0 }),
  /** Smallest order notional, USD. */
  minNotional: optional(number({ min: 0 })),
  maxLeverage: number({ gt: 0 }),
});
export type MarketInfo = Infer<typeof marketInfoSchema>;

export const exchangeInfoSchema = union([array(marketInfoSchema), transform(object({ markets: record(marketInfoSchema) }), (v) => Object.values(v.markets))]);
