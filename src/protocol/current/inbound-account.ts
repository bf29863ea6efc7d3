// The current generation's POST /account rows (venue-protocol §8.3) and their mapping onto the v1 rows the client models.
// Invariants: inbound (unknown fields ignored); sizes become unsigned with the side kept apart; timestamps are ns bigints.

import { array, boolean, literal, maybe, number, object, parse, string, u64, type Infer, type Schema } from '../../core/schema.js';
import { symbolSchema } from '../../core/types.js';
import { key32 } from '../pubkey.js';
import {
  closedPositionSchema,
  fillSchema,
  fundingPaymentSchema,
  openOrderSchema,
  orderHistorySchema,
  textSchema,
  type AccountQueryType,
  type AccountResponse,
  type ClosedPosition,
  type Fill,
  type FullAccount,
  type OpenOrder,
  type OrderHistoryEntry,
  type Position,
} from '../v1/account.js';
import { isTerminalStatus } from '../v1/status.js';
import { marginUpdateSchema, positionUpdateSchema } from '../v1/stream.js';
import {
  anyObject,
  currentOrderTypeSchema,
  currentStatusSchema,
  currentTifSchema,
  isBuyOf,
  nsTimestamp,
  triggerSchema,
  v1OrderType,
  v1State,
  v1Tif,
  type CurrentOrderStatus,
  type CurrentOrderType,
} from './inbound-fields.js';

/** The coin of the collateral balance (the venue settles in USDC: venue-protocol §10.7). */
export const COLLATERAL_COIN = 'USDC';

const { type: _margin, ...marginFields } = marginUpdateSchema.shape;
const { type: _position, ...positionFields } = positionUpdateSchema.shape;

/** `margin{…}` of fullAccount and the account snapshot: the eight fields of a v1 marginUpdate. */
export const marginSchema = object(marginFields);

/** A position row: the v1 positionUpdate fields (size signed) and the isolated-account and protection extras. */
export const positionRowSchema = object({
  ...positionFields,
  iso: maybe(boolean()),
  isoPubkey: maybe(key32()),
  protection: maybe(object({ orders: array(object({ orderId: key32(), orderType: currentOrderTypeSchema, trigger: maybe(triggerSchema) })) })),
  allocMargin: maybe(number()),
});

/** An open order row in long names; sizes may be signed, `isBuy` (not in the docs' list) is used when present. */
export const openOrderRowSchema = object({
  ...openOrderSchema.shape,
  isBuy: maybe(boolean()),
  orderType: currentOrderTypeSchema,
  trigger: maybe(triggerSchema),
  tif: currentTifSchema,
  status: currentStatusSchema,
  timestamp: nsTimestamp,
  iso: maybe(boolean()),
});

export const feeTierSchema = object({
  symbol: string({ maxLength: 64 }),
  rollingVolume: number(),
  tierIndex: number({ integer: true, min: 0 }),
  tierThreshold: number(),
  makerBps: number(),
  takerBps: number(),
  windowDays: number(),
});

/** The fullAccount object (also the body of the stream's accountSnapshot); hierarchy fields only when they apply. */
export const fullAccountRowSchema = object({
  kind: maybe(literal('MasterEOA', 'SubAccount', 'IsoAccount', 'Multisig')),
  parent: maybe(key32()),
  name: maybe(textSchema),
  subAccounts: maybe(array(object({ pubkey: key32(), name: maybe(textSchema) }))),
  multisigAccounts: maybe(array(key32())),
  authorizedAgentWallets: maybe(array(key32())),
  margin: marginSchema,
  positions: array(positionRowSchema),
  openOrders: array(openOrderRowSchema),
  pendingOnFill: maybe(array(object({ parentOrderId: key32(), actions: array(anyObject) }))),
  feeTiers: maybe(array(feeTierSchema)),
  leverageSettings: array(object({ symbol: symbolSchema, leverage: number() })),
});

export const fillRowSchema = object({
  ...fillSchema.shape,
  fee: maybe(number()),
  reasonCode: maybe(literal(0, 1, 2, 3)),
  reason: maybe(textSchema),
  iso: maybe(boolean()),
  isoPubkey: maybe(key32()),
  counterpartyHint: maybe(string({ maxLength: 64 })),
  timestamp: nsTimestamp,
  sequence: maybe(u64()),
});

export const closedPositionRowSchema = object({
  ...closedPositionSchema.shape,
  openTime: nsTimestamp,
  closeTime: nsTimestamp,
  closeReason: literal('normal', 'liquidation', 'adl', 'liquidation_sweep'),
  iso: maybe(boolean()),
  quantity: maybe(number()),
  closeSlot: maybe(u64()),
  sequence: maybe(u64()),
});

export const fundingRowSchema = object({ ...fundingPaymentSchema.shape, timestamp: nsTimestamp, iso: maybe(boolean()) });

export const orderHistoryRowSchema = object({
  ...orderHistorySchema.shape,
  orderType: currentOrderTypeSchema,
  tif: currentTifSchema,
  trigger: maybe(triggerSchema),
  status: currentStatusSchema,
  reason: maybe(textSchema),
  iso: maybe(boolean()),
  timestamp: nsTimestamp,
});

export type CurrentPosition = Infer<typeof positionRowSchema>;
export type CurrentOpenOrder = Infer<typeof openOrderRowSchema>;
export type CurrentFullAccount = Infer<typeof fullAccountRowSchema>;
export type CurrentFill = Infer<typeof fillRowSchema>;
export type CurrentClosedPosition = Infer<typeof closedPositionRowSchema>;
export type CurrentFundingPayment = Infer<typeof fundingRowSchema>;
export type CurrentOrderHistoryEntry = Infer<typeof orderHistoryRowSchema>;

/** A v1 row that also carries the current row's fields v1 lacks (same name) and, where v1 renames a value, the venue's. */
type Model<V1, Row, Extra = unknown> = V1 & Omit<Row, keyof V1> & Extra;
export type PositionModel = Model<Position, CurrentPosition>;
export type OpenOrderModel = Model<OpenOrder, CurrentOpenOrder, { venueStatus: CurrentOrderStatus }>;
export type FullAccountModel = Model<FullAccount, CurrentFullAccount, { positions: PositionModel[]; openOrders: OpenOrderModel[] }>;
export type FillModel = Model<Fill, CurrentFill>;
export type ClosedPositionModel = Model<ClosedPosition, CurrentClosedPosition, { venueCloseReason: CurrentClosedPosition['closeReason'] }>;
export type OrderHistoryModel = Model<OrderHistoryEntry, CurrentOrderHistoryEntry, { venueOrderType: CurrentOrderType; venueStatus: CurrentOrderStatus }>;

export function positionModel(p: CurrentPosition): PositionModel {
  return { ...p, coin: p.symbol };
}

export function openOrderModel(o: CurrentOpenOrder): OpenOrderModel {
  const filledSize = Math.abs(o.filledSize);
  return {
    ...o,
    originalSize: Math.abs(o.originalSize),
    size: Math.abs(o.size),
    filledSize,
    isBuy: o.isBuy ?? isBuyOf(o.originalSize, o.size),
    tif: v1Tif(o.tif),
    status: v1State(o.status, filledSize),
    venueStatus: o.status,
  };
}

/** v1's collateral list holds the margin's total balance in USDC; v1 settings hold the leverage settings. */
export function fullAccountModel(a: CurrentFullAccount): FullAccountModel {
  return {
    ...a,
    positions: a.positions.map(positionModel),
    openOrders: a.openOrders.map(openOrderModel),
    marginSummary: { positions: [{ coin: COLLATERAL_COIN, size: a.margin.totalBalance }] },
    settings: { maxLeverage: a.leverageSettings.map((l): [string, number] => [l.symbol, l.leverage]) },
  };
}

export function fillModel(f: CurrentFill): FillModel {
  return { ...f, amount: Math.abs(f.amount) };
}

/** `liquidation_sweep` is a v1 `liquidation`. */
export function closedPositionModel(p: CurrentClosedPosition): ClosedPositionModel {
  return { ...p, closeReason: p.closeReason === 'liquidation_sweep' ? 'liquidation' : p.closeReason, venueCloseReason: p.closeReason };
}

/** The v1 history row, or undefined for a row whose status is not terminal (v1 history holds only finished orders). */
export function orderHistoryModel(h: CurrentOrderHistoryEntry): OrderHistoryModel | undefined {
  const executedSize = Math.abs(h.executedSize);
  const status = v1State(h.status, executedSize);
  if (!isTerminalStatus(status)) return undefined;
  return {
    ...h,
    orderType: v1OrderType(h.orderType),
    tif: v1Tif(h.tif),
    originalSize: Math.abs(h.originalSize),
    executedSize,
    status,
    reason: h.reason ?? null,
    venueOrderType: h.orderType,
    venueStatus: h.status,
  };
}

/** Validates an array of single-key rows `{key: row}` and maps each row (leaving out those mapped to undefined). */
function rows<K extends string, R, M>(key: K, row: Schema<R>, model: (r: R) => M | undefined): (json: unknown) => { [P in K]: M }[] {
  const schema = array(object({ [key]: row }) as unknown as Schema<{ [P in K]: R }>);
  return (json) => {
    const out: { [P in K]: M }[] = [];
    for (const r of parse(schema, json)) {
      const m = model(r[key]);
      if (m !== undefined) out.push({ [key]: m } as { [P in K]: M });
    }
    return out;
  };
}

/** Per query type: the current response validated and mapped onto the v1 rows (with the current extras). */
export const currentAccountQueries = {
  fullAccount: rows('fullAccount', fullAccountRowSchema, fullAccountModel),
  openOrders: rows('openOrder', openOrderRowSchema, openOrderModel),
  fills: rows('fills', fillRowSchema, fillModel),
  positions: rows('positions', closedPositionRowSchema, closedPositionModel),
  fundingHistory: rows('fundingPayment', fundingRowSchema, (r) => r),
  orderHistory: rows('orderHistory', orderHistoryRowSchema, orderHistoryModel),
};

export const activityRowSchema = object({
  activityType: literal('transferInternal', 'transferExternal', 'deposit', 'withdrawal', 'unknown'),
  status: literal('completed', 'failed', 'ongoing', 'unknown'),
  from: maybe(string({ maxLength: 64 })),
  to: maybe(string({ maxLength: 64 })),
  symbol: string({ maxLength: 64 }),
  amount: number(),
  reason: maybe(textSchema),
  slot: maybe(u64()),
  timestamp: nsTimestamp,
});

export const riskRowSchema = object({
  owner: key32(),
  symbol: symbolSchema,
  isBuy: boolean(),
  amount: number(),
  price: number(),
  eventType: literal('liquidation', 'adl', 'risk_vault'),
  marginPrior: maybe(number()),
  marginAfter: maybe(number()),
  reason: maybe(textSchema),
  slot: maybe(u64()),
  timestamp: nsTimestamp,
});

const { symbol: _symbol, ...feeTierFields } = feeTierSchema.shape;
export const feeTierRowSchema = object({ scopeInstrument: string({ maxLength: 64 }), ...feeTierFields });

/** The query types of the current generation alone (no v1 row to map onto): their rows validated as they are. */
export const currentOnlyAccountQueries = {
  activityHistory: rows('activityHistory', activityRowSchema, (r) => r),
  riskHistory: rows('riskHistory', riskRowSchema, (r) => r),
  feeTier: rows('feeTier', feeTierRowSchema, (r) => r),
};
export type CurrentOnlyQueryType = keyof typeof currentOnlyAccountQueries;

/** The current answer to a query of `type` as the v1 response; throws ValidationError naming the field (`[0].openOrder.tif`). */
export function parseCurrentAccountResponse<T extends AccountQueryType>(type: T, json: unknown): AccountResponse<T> {
  const parsers: { [K in AccountQueryType]: (json: unknown) => AccountResponse<K> } = currentAccountQueries;
  return parsers[type](json);
}
