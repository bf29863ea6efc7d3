// v1 WebSocket messages: client subscribe/unsubscribe requests and topics (spec; gaps §7), and every server
// message (payloads per venue-protocol §9). Invariant: server messages ignore unknown fields; requests are strict.

import { ValidationError } from '../../core/errors.js';
import { parseJson } from '../../core/json.js';
import {
  array,
  boolean,
  literal,
  maybe,
  nullable,
  number,
  object,
  optional,
  parse,
  string,
  tagged,
  tuple,
  u64,
  union,
  type Infer,
  type Schema,
} from '../../core/schema.js';
import { symbolSchema } from '../../core/types.js';
import { key32 } from '../pubkey.js';
import { fullAccountSchema, orderStateFields, textSchema } from './account.js';

/** Subscriptions one connection may hold (gaps §7). */
export const MAX_SUBSCRIPTIONS = 100;

const STRICT = { strict: true } as const;
const topic = string({ maxLength: 128 });
/** Nanosecond timestamps (ticker, account stream) stay exact as bigint. */
const timestamp = u64();
/** Millisecond times of market-data payloads (book, trades, risk: venue-protocol §9.2). */
const timeMs = number({ integer: true, min: 0 });

function symbolSubscription<T extends string>(type: T) {
  return object({ type: literal(type), symbol: symbolSchema }, STRICT);
}

export const subscriptionSchema = tagged('type', {
  account: object({ type: literal('account'), user: union([key32(), array(key32(), { minLength: 1, maxLength: MAX_SUBSCRIPTIONS })]) }, STRICT),
  frontendContext: object({ type: literal('frontendContext') }, STRICT),
  risk: symbolSubscription('risk'),
  ticker: symbolSubscription('ticker'),
  trades: symbolSubscription('trades'),
  l2Delta: symbolSubscription('l2Delta'),
  l2Snapshot: object({ type: literal('l2Snapshot'), symbol: symbolSchema, nlevels: optional(number({ integer: true, min: 1, max: 1000 })) }, STRICT),
});
export type Subscription = Infer<typeof subscriptionSchema>;

/** A message from client to server. */
export const clientMessageSchema = tagged('method', {
  subscribe: object({ method: literal('subscribe'), subscription: array(subscriptionSchema, { minLength: 1, maxLength: MAX_SUBSCRIPTIONS }) }, STRICT),
  unsubscribe: object({ method: literal('unsubscribe'), topic }, STRICT),
});
export type ClientMessage = Infer<typeof clientMessageSchema>;

/** The topics a subscription opens: `account.<pk>` per user, `frontendContext`, `<stream>.<symbol>` (book streams lowercase). */
export function topicsOf(sub: Subscription): string[] {
  switch (sub.type) {
    case 'account':
      return (typeof sub.user === 'string' ? [sub.user] : sub.user).map((u) => `account.${u}`);
    case 'frontendContext':
      return ['frontendContext'];
    case 'l2Delta':
      return [`l2delta.${sub.symbol}`];
    case 'l2Snapshot':
      return [`l2snapshot.${sub.symbol}`];
    default:
      return [`${sub.type}.${sub.symbol}`];
  }
}

export const tickerSchema = object({
  symbol: symbolSchema,
  priceChange: number(),
  priceChangePercent: number(),
  lastPrice: number(),
  highPrice: number(),
  lowPrice: number(),
  volume: number(),
  quoteVolume: number(),
  markPrice: number(),
  oraclePrice: number(),
  openInterest: number(),
  fundingRate: number(),
  regime: number({ integer: true }),
  regimeDt: number(),
  regimeVol: number(),
  regimeMv: number(),
  fairBookPx: number(),
  fairVol: number(),
  fairBias: number(),
  timestamp,
});
export const tradeSchema = object({
  s: symbolSchema,
  px: number(),
  sz: number(),
  time: timeMs,
  side: boolean(),
  maker: key32(),
  taker: key32(),
  reason: maybe(textSchema),
  liq: maybe(boolean()),
});
export const bookLevelSchema = object({ px: number(), sz: number({ min: 0 }), n: number({ integer: true, min: 0 }) });
export const bookSchema = object({
  updateType: literal('snapshot', 'delta'),
  symbol: symbolSchema,
  levels: tuple([array(bookLevelSchema), array(bookLevelSchema)]),
  timestamp: timeMs,
});
export const marketContextSchema = object({
  symbol: symbolSchema,
  volume: number(),
  funding: number(),
  oi: number(),
  lastPrice: number(),
  priceChange: number(),
  priceChangePercent: number(),
});
const riskCell = object({ mmrO: number(), mmrE: number(), p: number() });
export const riskSchema = object({
  symbol: symbolSchema,
  timestamp: timeMs,
  regime: number({ integer: true }),
  leverage: array(number()),
  notionals: array(number()),
  buy: array(array(riskCell)),
  sell: array(array(riskCell)),
  corrs: array(tuple([string({ maxLength: 64 }), number()])),
});

export type Ticker = Infer<typeof tickerSchema>;
export type Trade = Infer<typeof tradeSchema>;
export type BookLevel = Infer<typeof bookLevelSchema>;
export type Book = Infer<typeof bookSchema>;
export type MarketContext = Infer<typeof marketContextSchema>;
export type Risk = Infer<typeof riskSchema>;

function accountData<T extends string, S extends Record<string, Schema<unknown>>>(type: T, shape: S) {
  return object({ type: literal(type), ...shape });
}

export const accountSnapshotSchema = accountData('accountSnapshot', fullAccountSchema.shape);
export const orderUpdateSchema = accountData('orderUpdate', { ...orderStateFields, reason: nullable(textSchema) });
export const fillUpdateSchema = accountData('fill', {
  symbol: symbolSchema,
  orderId: key32(),
  price: number(),
  size: number(),
  fee: number(),
  isBuy: boolean(),
  reasonCode: literal(0, 1, 2, 3),
  reason: maybe(textSchema),
  counterpartyHint: string({ maxLength: 64 }),
  timestamp,
  maker: boolean(),
});
export const positionUpdateSchema = accountData('positionUpdate', {
  symbol: symbolSchema,
  size: number(),
  price: number(),
  realizedPnl: number(),
  unrealizedPnl: number(),
  leverage: number(),
  liquidationPrice: number(),
  fairPrice: number(),
  notional: number(),
  fees: number(),
  funding: number(),
  maintenanceMargin: number(),
  lambda: number(),
  riskAllocation: number(),
});
export const marginUpdateSchema = accountData('marginUpdate', {
  totalBalance: number(),
  availableBalance: number(),
  marginUsed: number(),
  notional: number(),
  realizedPnl: number(),
  unrealizedPnl: number(),
  fees: number(),
  funding: number(),
});
export const leverageUpdateSchema = accountData('leverageUpdate', { leverage: array(object({ symbol: symbolSchema, leverage: number() })) });
export const liquidationSchema = accountData('liquidation', {
  symbol: symbolSchema,
  price: number(),
  size: number(),
  isBuy: boolean(),
  marginPrior: number(),
  marginAfter: number(),
  reason: maybe(textSchema),
  timestamp,
});

/** `data` of an account message, dispatched on `data.type`. */
export const accountDataSchema = tagged('type', {
  accountSnapshot: accountSnapshotSchema,
  orderUpdate: orderUpdateSchema,
  fill: fillUpdateSchema,
  positionUpdate: positionUpdateSchema,
  marginUpdate: marginUpdateSchema,
  leverageUpdate: leverageUpdateSchema,
  liquidation: liquidationSchema,
});
export type AccountSnapshot = Infer<typeof accountSnapshotSchema>;
export type OrderUpdate = Infer<typeof orderUpdateSchema>;
export type FillUpdate = Infer<typeof fillUpdateSchema>;
export type PositionUpdate = Infer<typeof positionUpdateSchema>;
export type MarginUpdate = Infer<typeof marginUpdateSchema>;
export type LeverageUpdate = Infer<typeof leverageUpdateSchema>;
export type Liquidation = Infer<typeof liquidationSchema>;
/** A fee tier row as the current generation reports it (rates in basis points; volume in USD). */
export interface FeeTierRow {
  symbol: string;
  rollingVolume: number;
  tierIndex: number;
  makerBps: number;
  takerBps: number;
}

/**
 * Account data only the current generation sends (v1 never does), carried in the same model: auto-deleveraging, a
 * refused cancel (one order, or all of a symbol's or every symbol's when `symbol` is absent) and a fee tier change.
 */
export type CurrentOnlyAccountData =
  | { type: 'adl'; symbol: string; price: number; size: number; isBuy: boolean; reason?: string | null | undefined; timestamp: bigint }
  | { type: 'cancelOneRejected'; symbol: string; orderId: string; reason: string; timestamp: bigint }
  | { type: 'cancelAllRejected'; symbol?: string | null | undefined; reason: string; timestamp: bigint }
  | { type: 'feeTierUpdate'; feeTiers: FeeTierRow[]; ts: bigint };

export type AccountData = Infer<typeof accountDataSchema> | CurrentOnlyAccountData;

function dataMessage<T extends string, D>(type: T, data: Schema<D>) {
  return object({ type: literal(type), data, topic });
}

const book = object({ book: bookSchema });

/** Every server message, dispatched on `type` (and, for `account`, on `data.type`). */
export const streamMessageSchema = tagged('type', {
  subscriptionResponse: object({ type: literal('subscriptionResponse'), topics: array(topic) }),
  unsubscribeResponse: object({ type: literal('unsubscribeResponse'), topic }),
  error: object({ type: literal('error'), error: object({ message: textSchema }) }),
  account: dataMessage('account', accountDataSchema),
  ticker: dataMessage('ticker', object({ ticker: tickerSchema })),
  trades: dataMessage('trades', object({ trades: array(tradeSchema) })),
  l2Delta: dataMessage('l2Delta', book),
  l2Snapshot: dataMessage('l2Snapshot', book),
  frontendContext: dataMessage('frontendContext', object({ ctx: array(marketContextSchema) })),
  risk: dataMessage('risk', object({ risk: riskSchema })),
});
/** A server message in the model: account data may also be current-only data (the current decoder's output). */
export type StreamMessage = Exclude<Infer<typeof streamMessageSchema>, { type: 'account' }> | { type: 'account'; data: AccountData; topic: string };
export type StreamMessageType = StreamMessage['type'];

/**
 * Validates one server message, given as JSON text (read with parseJson, so ns timestamps stay exact) or as an
 * already parsed value. Throws ValidationError naming the field (`type`, `data.type`, `data.book.levels[0][2].px`, ...).
 */
export function parseStreamMessage(json: unknown): StreamMessage {
  return parse(streamMessageSchema, typeof json === 'string' ? parseText(json) : json);
}

function parseText(text: string): unknown {
  try {
    return parseJson(text);
  } catch (e) {
    throw new ValidationError('', `malformed JSON: ${(e as Error).message}`, { cause: e });
  }
}
