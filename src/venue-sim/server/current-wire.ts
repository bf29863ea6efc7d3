// The local venue's answers in the current generation's shapes (venue-protocol §8.3, §8.4, §9.4): POST /order statuses,
// POST /account rows and account-stream messages, built from the engine's results. Invariant: sizes signed (negative = sell), timestamps ns.

import type { CurrentAccountQuery } from '../../protocol/current/account-query.js';
import type {
  ConditionalInfo,
  AgentResult,
  Engine,
  EngineEvent,
  FillRecord,
  ItemStatus,
  LeverageResult,
  OpenOrderRow,
  ConditionalType,
  OrderHistoryRow,
  OrderKind,
  OrderUpdateEvent,
  PositionUpdateEvent,
} from '../engine/index.js';
import type { Basket, ContingentBook } from './contingent.js';

const REASON_CODE = { normal: 0, liquidation: 1, adl: 2 } as const;
/** The local venue has one fee tier per market (its configured rates); the real venue measures 14-day volume (§10.5). */
const FEE_WINDOW_DAYS = 14;
const CURRENT_TIF: Readonly<Record<string, string>> = { gtc: 'gtc', ioc: 'ioc', alo: 'postOnly' };

const signed = (size: number, isBuy: boolean) => (isBuy ? size : -size);
const tifOf = (tif: string) => CURRENT_TIF[tif] ?? tif;
/** v1 spells `cancelledIOC`; the current generation `cancelledIoc`. */
const statusOf = (status: string) => (status === 'cancelledIOC' ? 'cancelledIoc' : status);

/** "abcd..wxyz": the counterparty hint of a fill (never the whole key). */
export function counterpartyHint(key: string): string {
  return `${key.slice(0, 4)}..${key.slice(-4)}`;
}

/** A place or cancel item's status with signed sizes for an order on side `isBuy`; a failed cancel is cancelOneRejected. */
export function currentItemStatus(s: ItemStatus, isBuy: boolean, cancelOf?: string): Record<string, unknown> {
  if ('working' in s) {
    const w = s.working;
    return { working: { ...w, filledSz: signed(w.filledSz, isBuy), remainingSz: signed(w.remainingSz, isBuy) } };
  }
  if ('filled' in s) return { filled: { ...s.filled, totalSz: signed(s.filled.totalSz, isBuy) } };
  if ('partiallyFilled' in s) return { partiallyFilled: { ...s.partiallyFilled, totalSz: signed(s.partiallyFilled.totalSz, isBuy) } };
  if ('cancelledIOC' in s) return { cancelledIoc: { oid: s.cancelledIOC.oid, filledSz: signed(s.cancelledIOC.filledSz, isBuy) } };
  if ('error' in s && cancelOf !== undefined) return { cancelOneRejected: { oid: cancelOf, reason: s.error.message } };
  return s;
}

/** `agentWallet{agentWallet}` or `agentWalletFailed{message}` (§8.4). */
export function currentAgentStatus(r: AgentResult): Record<string, unknown> {
  return 'error' in r ? { agentWalletFailed: { message: r.error.message } } : { agentWallet: { agentWallet: r.agentWallet.agent } };
}

/** updateUserSettings has no documented success status: none on success, `error{message}` on failure. */
export function currentLeverageStatuses(r: LeverageResult): Record<string, unknown>[] {
  return 'error' in r ? [r] : [];
}

/** The current order type (§9.4 `ot`, §8.3 `orderType`): a trigger order is typed by its conditional. */
function orderTypeOf(orderType: OrderKind, conditional: ConditionalType | undefined): string {
  return conditional ?? orderType;
}

/** The `trigger{isAbove, px, lim, oco, pxHi, limHi, trb, stb}` of a conditional order (no sibling order ids: `oco` null). */
function triggerOf(c: ConditionalInfo | null) {
  if (c === null) return null;
  return { isAbove: c.isAbove, px: c.px, lim: c.lim, oco: null, pxHi: c.pxHi, limHi: null, trb: c.trb, stb: c.stb };
}

function openOrderRow(o: OpenOrderRow, conditional: ConditionalInfo | null) {
  return {
    symbol: o.symbol,
    orderId: o.orderId,
    price: o.price,
    originalSize: signed(o.originalSize, o.isBuy),
    size: signed(o.size, o.isBuy),
    filledSize: o.filledSize,
    vwap: o.vwap,
    maker: o.maker,
    reduceOnly: o.reduceOnly,
    orderType: conditional?.type ?? 'limit',
    trigger: triggerOf(conditional),
    tif: tifOf(o.tif),
    status: statusOf(o.status),
    timestamp: o.timestamp,
    iso: false,
  };
}

function orderHistoryRow({ conditional, ...h }: OrderHistoryRow) {
  const isBuy = h.side === 'buy';
  return {
    ...h,
    originalSize: signed(h.originalSize, isBuy),
    executedSize: signed(h.executedSize, isBuy),
    orderType: orderTypeOf(h.orderType, conditional),
    tif: tifOf(h.tif),
    trigger: null,
    status: statusOf(h.status),
    iso: false,
  };
}

/** The trigger object of a basket: its direction and price only. */
function basketTrigger(b: Basket) {
  return { isAbove: b.above, px: b.triggerPx, lim: null, oco: null, pxHi: null, limHi: null, trb: null, stb: null };
}

/** A parked trigger basket as an open-order row: `orderType: trigger`, sizes 0 (§9.4). */
function basketRow(b: Basket) {
  return {
    symbol: b.symbol,
    orderId: b.id,
    price: 0,
    originalSize: 0,
    size: 0,
    filledSize: 0,
    vwap: 0,
    maker: false,
    reduceOnly: false,
    orderType: 'trigger',
    trigger: basketTrigger(b),
    tif: 'gtc',
    status: 'placed',
    timestamp: b.createdNs,
    iso: false,
  };
}

/** The compact orderUpdate of a trigger basket in `status` (`ot: trigger`, sizes 0). */
export function basketOrderUpdate(b: Basket, status: string, ts: bigint) {
  return {
    type: 'orderUpdate',
    ot: 'trigger',
    status,
    sym: b.symbol,
    oid: b.id,
    px: 0,
    origSz: 0,
    sz: 0,
    fillSz: 0,
    vwap: 0,
    tif: 'gtc',
    r: false,
    mk: false,
    trigger: basketTrigger(b),
    ts,
    reason: null,
  };
}

function currentOpenOrders(engine: Engine, user: string, held: ContingentBook | undefined) {
  const rows: unknown[] = engine.openOrders(user).map((o) => openOrderRow(o, engine.conditionalOf(o.orderId)));
  for (const b of held?.basketsOf(user) ?? []) rows.push(basketRow(b));
  return rows;
}

/** The eight margin figures of fullAccount, the snapshot and marginUpdate. */
function margin(engine: Engine, user: string) {
  const { maintenanceMargin: _mm, ...m } = engine.marginSummary(user);
  return m;
}

/** A position row (§8.3) from the engine's position figures; the liquidation price is the stream's estimate. */
export function positionRow(engine: Engine, e: PositionUpdateEvent, liquidationPrice: number) {
  const mmf = engine.marketInfo(e.symbol)?.maintenanceMarginFraction ?? 0;
  return {
    symbol: e.symbol,
    size: e.size,
    price: e.price,
    realizedPnl: e.realizedPnl,
    unrealizedPnl: e.unrealizedPnl,
    leverage: e.leverage,
    liquidationPrice,
    fairPrice: e.markPrice,
    notional: e.notional,
    fees: e.fees,
    funding: e.funding,
    maintenanceMargin: Math.abs(e.notional) * mmf,
    lambda: 0,
    riskAllocation: 0,
    iso: false,
    protection: null,
  };
}

/**
 * The fullAccount object (the stream's accountSnapshot body); `liquidationPrice` estimates a position's; `held` adds
 * parked trigger baskets to openOrders and on-fill actions to pendingOnFill.
 */
export function currentFullAccount(engine: Engine, user: string, liquidationPrice: (e: PositionUpdateEvent) => number, held?: ContingentBook) {
  const h = engine.hierarchy(user);
  return {
    kind: h.parent === null ? 'MasterEOA' : 'SubAccount',
    ...(h.parent !== null && { parent: h.parent, name: h.name }),
    subAccounts: h.subAccounts.map((pubkey) => ({ pubkey })),
    authorizedAgentWallets: engine.agents(user),
    margin: margin(engine, user),
    positions: engine.positionDetails(user).map((p) => positionRow(engine, p, liquidationPrice(p))),
    openOrders: currentOpenOrders(engine, user, held),
    pendingOnFill: (held?.pendingOf(user) ?? []).map((p) => ({ parentOrderId: p.parentId, actions: p.actions })),
    feeTiers: engine.markets().map((m) => ({ symbol: m.symbol, ...feeTierOf(m) })),
    leverageSettings: engine.fullAccount(user).settings.maxLeverage.map(([symbol, leverage]) => ({ symbol, leverage })),
  };
}

/** The fee tier of a market: its fixed maker and taker rates (the local venue has one tier and counts no volume). */
function feeTierOf(m: { makerFeeRate: number; takerFeeRate: number }) {
  return {
    rollingVolume: 0,
    tierIndex: 0,
    tierThreshold: 0,
    makerBps: m.makerFeeRate * 10_000,
    takerBps: m.takerFeeRate * 10_000,
    windowDays: FEE_WINDOW_DAYS,
  };
}

/** Rows of `POST /account` in the current shapes (§8.3); `symbol` scopes feeTier. */
export function currentAccountRows(
  engine: Engine,
  { type, user, symbol }: CurrentAccountQuery,
  liquidationPrice: (e: PositionUpdateEvent) => number,
  held?: ContingentBook,
): unknown[] {
  switch (type) {
    case 'fullAccount':
      return [{ fullAccount: currentFullAccount(engine, user, liquidationPrice, held) }];
    case 'openOrders':
      return currentOpenOrders(engine, user, held).map((openOrder) => ({ openOrder }));
    case 'fills':
      return engine.fills(user).map((f) => ({ fills: { ...f, fee: f.maker === user ? f.makerFee : f.takerFee, reasonCode: 0, iso: false } }));
    case 'positions':
      return engine.closedPositions(user).map((p) => ({ positions: { ...p, iso: false } }));
    case 'fundingHistory':
      return engine.fundingHistory(user).map((p) => ({ fundingPayment: { ...p, iso: false } }));
    case 'orderHistory':
      return engine.orderHistory(user).map((h) => ({ orderHistory: orderHistoryRow(h) }));
    case 'activityHistory':
      return engine.activityHistory(user).map((a) => ({ activityHistory: { ...a, status: 'completed', symbol: 'USDC', reason: null, iso: false } }));
    case 'riskHistory':
      return engine.riskHistory(user).map((r) => ({ riskHistory: { ...r, reason: null, iso: false } }));
    case 'feeTier':
      return engine
        .markets()
        .filter((m) => symbol == null || m.symbol === symbol)
        .map((m) => ({ feeTier: { scopeInstrument: m.symbol, ...feeTierOf(m) } }));
  }
}

/** The compact orderUpdate of the account stream (§9.4). */
export function currentOrderUpdate(e: OrderUpdateEvent) {
  return {
    type: 'orderUpdate',
    ot: orderTypeOf(e.orderType, e.conditional?.type),
    status: statusOf(e.status),
    sym: e.symbol,
    oid: e.orderId,
    px: e.price,
    origSz: signed(e.originalSize, e.isBuy),
    sz: signed(e.size, e.isBuy),
    fillSz: e.filledSize,
    vwap: e.vwap,
    tif: tifOf(e.tif),
    r: e.reduceOnly,
    mk: e.maker,
    trigger: triggerOf(e.conditional),
    ts: e.timestamp,
    reason: e.reason,
  };
}

/** The `fill` message of one side of a fill (the same shape in both generations). */
export function fillMessage(f: FillRecord, maker: boolean) {
  return {
    type: 'fill',
    symbol: f.symbol,
    orderId: maker ? f.orderIdMaker : f.orderIdTaker,
    price: f.price,
    size: f.amount,
    fee: maker ? f.makerFee : f.takerFee,
    isBuy: maker ? !f.isBuy : f.isBuy,
    reasonCode: REASON_CODE[f.reason],
    reason: f.reason === 'normal' ? null : f.reason,
    counterpartyHint: counterpartyHint(maker ? f.taker : f.maker),
    timestamp: f.timestamp,
    maker,
  };
}

/** Account messages of the current generation for engine events v1 has no message for (adl). */
export function currentOnlyMessage(e: EngineEvent): Record<string, unknown> | undefined {
  if (e.type !== 'adl') return undefined;
  const { type, account: _a, ...rest } = e;
  return { type, ...rest, reason: 'auto-deleveraging' };
}
