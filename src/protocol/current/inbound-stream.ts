// The current generation's WebSocket server messages (venue-protocol §9.2–9.4) as v1 stream messages. Invariants: market
// data has the v1 shape and passes through v1's schema uncopied (the hot path); account messages are validated, then mapped.

import { array, boolean, literal, maybe, number, object, parse, string, tagged, type Infer, type Schema } from '../../core/schema.js';
import { symbolSchema } from '../../core/types.js';
import { key32 } from '../pubkey.js';
import { textSchema } from '../v1/account.js';
import {
  fillUpdateSchema,
  leverageUpdateSchema,
  liquidationSchema,
  marginUpdateSchema,
  streamMessageSchema,
  type AccountData,
  type OrderUpdate,
  type StreamMessage,
} from '../v1/stream.js';
import { feeTierSchema, fullAccountModel, fullAccountRowSchema, positionRowSchema } from './inbound-account.js';
import {
  anyValue,
  currentOrderTypeSchema,
  currentStatusSchema,
  currentTifSchema,
  isBuyOf,
  nsTimestamp,
  triggerSchema,
  v1State,
  v1Tif,
  type CurrentOrderStatus,
  type CurrentOrderType,
  type Trigger,
} from './inbound-fields.js';

function accountData<T extends string, S extends Record<string, Schema<unknown>>>(type: T, shape: S) {
  return object({ type: literal(type), ...shape });
}

export const accountSnapshotSchema = accountData('accountSnapshot', fullAccountRowSchema.shape);
/** An order update in compact names; `origSz` and `sz` are signed (both 0 for `ot: "trigger"`), `ts` is ns. */
export const orderUpdateSchema = accountData('orderUpdate', {
  ot: currentOrderTypeSchema,
  status: currentStatusSchema,
  sym: symbolSchema,
  oid: key32(),
  px: number(),
  origSz: number(),
  sz: number(),
  fillSz: number(),
  vwap: number(),
  tif: currentTifSchema,
  r: boolean(),
  mk: boolean(),
  trigger: maybe(triggerSchema),
  pendingOnFill: maybe(anyValue),
  ts: nsTimestamp,
  reason: maybe(textSchema),
});
export const positionUpdateSchema = accountData('positionUpdate', positionRowSchema.shape);
/** Auto-deleveraging of a position (`ADL` before v1.0.15). */
export const adlSchema = object({
  type: literal('adl', 'ADL'),
  symbol: symbolSchema,
  price: number(),
  size: number(),
  isBuy: boolean(),
  reason: maybe(textSchema),
  timestamp: nsTimestamp,
});
export const cancelOneRejectedSchema = accountData('cancelOneRejected', { symbol: symbolSchema, orderId: key32(), reason: textSchema, timestamp: nsTimestamp });
/** A refused cancel-all; `symbol` is absent when every symbol was meant. */
export const cancelAllRejectedSchema = accountData('cancelAllRejected', { symbol: maybe(symbolSchema), reason: textSchema, timestamp: nsTimestamp });
export const feeTierUpdateSchema = accountData('feeTierUpdate', { feeTiers: array(feeTierSchema), ts: nsTimestamp });
/** The legacy `order` message (`placed | cancelled`), superseded by orderUpdate: recognised, never used. */
export const legacyOrderSchema = accountData('order', {});

/** `data` of an account message, dispatched on `data.type`; fill, margin, leverage and liquidation keep their v1 shape. */
export const accountDataSchema = tagged('type', {
  accountSnapshot: accountSnapshotSchema,
  orderUpdate: orderUpdateSchema,
  fill: fillUpdateSchema,
  positionUpdate: positionUpdateSchema,
  marginUpdate: marginUpdateSchema,
  leverageUpdate: leverageUpdateSchema,
  liquidation: liquidationSchema,
  adl: adlSchema,
  ADL: adlSchema,
  cancelOneRejected: cancelOneRejectedSchema,
  cancelAllRejected: cancelAllRejectedSchema,
  feeTierUpdate: feeTierUpdateSchema,
  order: legacyOrderSchema,
});
export const accountMessageSchema = object({ type: literal('account'), data: accountDataSchema, topic: string({ maxLength: 128 }) });

export type CurrentAccountData = Infer<typeof accountDataSchema>;
export type CurrentOrderUpdate = Infer<typeof orderUpdateSchema>;

/** A v1 order update that also carries what the compact update says beyond v1 (order type, tif, reduce-only, trigger). */
export type OrderUpdateModel = OrderUpdate & {
  orderType: CurrentOrderType;
  tif: 'gtc' | 'ioc' | 'alo';
  reduceOnly: boolean;
  trigger: Trigger | null | undefined;
  pendingOnFill: unknown;
  venueStatus: CurrentOrderStatus;
};

export function orderUpdateModel(u: CurrentOrderUpdate): OrderUpdateModel {
  const filledSize = Math.abs(u.fillSz);
  return {
    type: 'orderUpdate',
    status: v1State(u.status, filledSize),
    symbol: u.sym,
    orderId: u.oid,
    price: u.px,
    originalSize: Math.abs(u.origSz),
    size: Math.abs(u.sz),
    filledSize,
    vwap: u.vwap,
    isBuy: isBuyOf(u.origSz, u.sz),
    maker: u.mk,
    timestamp: u.ts,
    reason: u.reason ?? null,
    orderType: u.ot,
    tif: v1Tif(u.tif),
    reduceOnly: u.r,
    trigger: u.trigger,
    pendingOnFill: u.pendingOnFill,
    venueStatus: u.status,
  };
}

/**
 * The model account data an account message stands for. A snapshot is the v1 snapshot followed by the marginUpdate and
 * one positionUpdate per position it already holds; adl (`ADL` too), cancel rejections and fee tier updates pass as
 * current-only data; the legacy `order` message is dropped.
 */
export function accountDataModels(data: CurrentAccountData): AccountData[] {
  switch (data.type) {
    case 'accountSnapshot':
      return [
        { ...fullAccountModel(data), type: 'accountSnapshot' },
        { type: 'marginUpdate', ...data.margin },
        ...data.positions.map((p) => ({ ...p, type: 'positionUpdate' as const })),
      ];
    case 'orderUpdate':
      return [orderUpdateModel(data)];
    case 'fill':
    case 'positionUpdate':
    case 'marginUpdate':
    case 'leverageUpdate':
    case 'liquidation':
    case 'cancelOneRejected':
    case 'cancelAllRejected':
    case 'feeTierUpdate':
      return [data];
    case 'adl':
    case 'ADL':
      return [{ ...data, type: 'adl' }];
    default:
      return [];
  }
}

/**
 * One parsed server message as v1 stream messages (one for market data, any number for account messages). Throws
 * ValidationError naming the field (`data.sz`, `data.openOrders[0].tif`, `data.book.levels[0][2].px`, ...).
 */
export function decodeCurrentStream(frame: unknown): StreamMessage | readonly StreamMessage[] {
  if ((frame as { type?: unknown } | null | undefined)?.type !== 'account') return parse(streamMessageSchema, frame);
  const { data, topic } = parse(accountMessageSchema, frame);
  return accountDataModels(data).map((d): StreamMessage => ({ type: 'account', data: d, topic }));
}
