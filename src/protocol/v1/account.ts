// The v1 account query (POST /account) and its six responses: arrays of single-key rows (spec; gaps §5).
// Invariant: inbound rows ignore unknown fields; ns timestamps and slots are exact bigints (read with parseJson).

import { array, boolean, literal, nullable, number, object, parse, string, tuple, u64, type Infer, type Schema } from '../../core/schema.js';
import { symbolSchema } from '../../core/types.js';
import { key32 } from '../pubkey.js';
import { orderStateSchema, terminalStatusSchema } from './status.js';

export const ACCOUNT_QUERY_TYPES = ['fullAccount', 'openOrders', 'fills', 'positions', 'fundingHistory', 'orderHistory'] as const;
export type AccountQueryType = (typeof ACCOUNT_QUERY_TYPES)[number];

/** The unsigned account query body `{type, user}` (strict: it is a request). */
export const accountQuerySchema = object({ type: literal(...ACCOUNT_QUERY_TYPES), user: key32() }, { strict: true });
export type AccountQuery = Infer<typeof accountQuerySchema>;

const timestamp = u64();
/** Free text from the venue: reasons and error messages. */
export const textSchema = string({ maxLength: 4096 });
/** Lowercase time-in-force of rows (`gtc`, `ioc`, `alo`). */
export const tifLowerSchema = literal('gtc', 'ioc', 'alo');

export const positionSchema = object({ coin: symbolSchema, size: number(), price: number(), realizedPnl: number(), leverage: number() });
/** Fields an open-order row and an orderUpdate message share (spec: open order; orderUpdate). */
export const orderStateFields = {
  symbol: symbolSchema,
  orderId: key32(),
  price: number(),
  originalSize: number(),
  size: number(),
  filledSize: number(),
  vwap: number(),
  isBuy: boolean(),
  maker: boolean(),
  status: orderStateSchema,
  timestamp,
};
export const openOrderSchema = object({ ...orderStateFields, reduceOnly: boolean(), tif: tifLowerSchema });
export const marginSummarySchema = object({ positions: array(object({ coin: string({ maxLength: 64 }), size: number() })) });
export const leverageSettingsSchema = array(tuple([symbolSchema, number()]));
export const accountSettingsSchema = object({ maxLeverage: leverageSettingsSchema });
export const fullAccountSchema = object({
  positions: array(positionSchema),
  openOrders: array(openOrderSchema),
  marginSummary: marginSummarySchema,
  settings: accountSettingsSchema,
});

export const closedPositionSchema = object({
  owner: key32(),
  symbol: symbolSchema,
  maxQuantity: number(),
  totalVolume: number(),
  avgOpenPrice: number(),
  avgClosePrice: number(),
  realizedPnl: number(),
  fees: number(),
  funding: number(),
  openTime: timestamp,
  closeTime: timestamp,
  closeReason: literal('normal', 'liquidation', 'adl'),
});
export const fundingPaymentSchema = object({
  owner: key32(),
  symbol: symbolSchema,
  size: number(),
  payment: number(),
  fundingRate: number(),
  markPrice: number(),
  slot: u64(),
  timestamp,
});
/** v1 order types as reported in rows: the `t` variants of the action, with market triggers named `market`. */
export const rowOrderTypeSchema = literal('limit', 'market', 'trigger');
export const orderHistorySchema = object({
  orderId: key32(),
  symbol: symbolSchema,
  side: literal('buy', 'sell'),
  orderType: rowOrderTypeSchema,
  tif: tifLowerSchema,
  price: number(),
  vwap: number(),
  originalSize: number(),
  executedSize: number(),
  reduceOnly: boolean(),
  status: terminalStatusSchema,
  reason: nullable(textSchema),
  slot: u64(),
  timestamp,
});
export const fillSchema = object({
  maker: key32(),
  taker: key32(),
  orderIdMaker: key32(),
  orderIdTaker: key32(),
  isBuy: boolean(),
  symbol: symbolSchema,
  amount: number(),
  price: number(),
  makerFee: number(),
  takerFee: number(),
  slot: u64(),
  timestamp,
});

export type Position = Infer<typeof positionSchema>;
export type OpenOrder = Infer<typeof openOrderSchema>;
export type MarginSummary = Infer<typeof marginSummarySchema>;
export type AccountSettings = Infer<typeof accountSettingsSchema>;
export type FullAccount = Infer<typeof fullAccountSchema>;
export type ClosedPosition = Infer<typeof closedPositionSchema>;
export type FundingPayment = Infer<typeof fundingPaymentSchema>;
export type OrderHistoryEntry = Infer<typeof orderHistorySchema>;
export type Fill = Infer<typeof fillSchema>;

function rows<K extends string, T>(key: K, row: Schema<T>): Schema<{ [P in K]: T }[]> {
  return array(object({ [key]: row }) as unknown as Schema<{ [P in K]: T }>);
}

/** Response schema of each query type: the row key (`openOrder`, `fills`, `fundingPayment`, ...) per spec and gaps §5. */
export const accountResponseSchemas = {
  fullAccount: rows('fullAccount', fullAccountSchema),
  openOrders: rows('openOrder', openOrderSchema),
  fills: rows('fills', fillSchema),
  positions: rows('positions', closedPositionSchema),
  fundingHistory: rows('fundingPayment', fundingPaymentSchema),
  orderHistory: rows('orderHistory', orderHistorySchema),
} satisfies Record<AccountQueryType, Schema<unknown>>;
export type AccountResponse<T extends AccountQueryType> = Infer<(typeof accountResponseSchemas)[T]>;

/** Validates the response to a query of `type`; throws ValidationError naming the field (e.g. `[0].openOrder.price`). */
export function parseAccountResponse<T extends AccountQueryType>(type: T, value: unknown): AccountResponse<T> {
  const schemas: { [K in AccountQueryType]: Schema<AccountResponse<K>> } = accountResponseSchemas;
  return parse(schemas[type], value);
}
