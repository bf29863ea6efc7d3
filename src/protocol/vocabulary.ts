// The client's wire model (v1's types; the current dialect's inbound codec maps onto them) in the framework's vocabulary:
// book updates, trades, tickers, account messages and query rows, market rules, the items of an action's answer.
// Invariants: pure, and total over validated input; sides are the account's own; units and times are kept (ms stay ms).

import type {
  AccountNotice,
  AccountSnapshot,
  AccountUpdate,
  ClosedOrder,
  FeeTier,
  Fill,
  FillCause,
  ItemResult,
  Liquidation,
  Margin,
  Position,
  VenueOrder,
} from '../core/account-data.js';
import { NON_TERMINAL_ORDER_STATUSES, TERMINAL_ORDER_STATUSES, type OrderStatus } from '../core/intent.js';
import type { BookLevel, BookUpdate, MarketRules, Ticker, Trade } from '../core/market-data.js';
import type { TimeInForce } from '../core/types.js';
import type { FullAccount, OpenOrder, OrderHistoryEntry, Fill as FillRow } from './v1/account.js';
import type { MarketInfo } from './v1/exchange-info.js';
import type {
  AccountData,
  Book,
  BookLevel as WireLevel,
  CurrentOnlyAccountData,
  FeeTierRow,
  FillUpdate,
  Liquidation as WireLiquidation,
  MarginUpdate,
  OrderUpdate,
  PositionUpdate,
  Ticker as WireTicker,
  Trade as WireTrade,
} from './v1/stream.js';

/** Shared by every update with nothing on a side (a delta carries one level), so that side allocates nothing. */
const NO_LEVELS: readonly BookLevel[] = [];

/** Mapped, not pushed: a pushed array grows a backing store of 17 slots for a delta's one level. */
function levelsOf(wire: readonly WireLevel[]): readonly BookLevel[] {
  return wire.length === 0 ? NO_LEVELS : wire.map((l) => ({ price: l.px, size: l.sz, orders: l.n }));
}

/** A book payload (`l2delta`, `l2snapshot`, `/l2book`) as an update; `arrivalNs` is when its bytes arrived (session clock). */
export function bookUpdateOf(book: Book, arrivalNs: bigint): BookUpdate {
  return {
    kind: book.updateType,
    symbol: book.symbol,
    bids: levelsOf(book.levels[0]),
    asks: levelsOf(book.levels[1]),
    venueTimeMs: book.timestamp,
    arrivalNs,
  };
}

/** A public trade; the wire's `side` is true when the taker bought. */
export function tradeOf(t: WireTrade): Trade {
  return {
    symbol: t.s,
    price: t.px,
    size: t.sz,
    takerSide: t.side ? 'buy' : 'sell',
    timeMs: t.time,
    maker: t.maker,
    taker: t.taker,
    liquidation: t.liq === true,
  };
}

export function tickerOf(t: WireTicker): Ticker {
  return {
    symbol: t.symbol,
    lastPrice: t.lastPrice,
    markPrice: t.markPrice,
    oraclePrice: t.oraclePrice,
    fundingRate: t.fundingRate,
    openInterest: t.openInterest,
    volume24h: t.volume,
    volume24hUsd: t.quoteVolume,
    high24hPrice: t.highPrice,
    low24hPrice: t.lowPrice,
    venueTimeNs: t.timestamp,
  };
}

/** One `/exchangeInfo` market (either dialect's row); a venue that sets no minimum notional has 0. */
export function marketRulesOf(m: MarketInfo): MarketRules {
  return { symbol: m.symbol, tickSizeUsd: m.tickSize, lotSizeBase: m.lotSize, minNotionalUsd: m.minNotional ?? 0, maxLeverage: m.maxLeverage };
}

const TIF: Readonly<Record<OpenOrder['tif'], TimeInForce>> = { gtc: 'GTC', ioc: 'IOC', alo: 'ALO' };

/** The order an `orderUpdate` message is about (it carries neither reduce-only nor time in force). */
/**
 * Whether a reported order is a parked trigger: v1 names no order type in updates and open orders, and the local venue
 * reports a parked trigger as placed with maker false (an order on the book is a maker; one that traded is working or
 * ended), so placed and not a maker is parked, anything else is not.
 */
function parkedOf(o: Pick<OrderUpdate, 'status' | 'maker'>): boolean {
  return o.status === 'placed' && !o.maker;
}

function venueOrderOfUpdate(u: OrderUpdate): VenueOrder {
  return {
    orderId: u.orderId,
    symbol: u.symbol,
    side: u.isBuy ? 'buy' : 'sell',
    price: u.price,
    originalSize: u.originalSize,
    remainingSize: u.size,
    filledSize: u.filledSize,
    avgFillPrice: u.vwap,
    maker: u.maker,
    status: u.status,
    venueTimeNs: u.timestamp,
    reason: u.reason ?? undefined,
    reduceOnly: undefined,
    tif: undefined,
    parked: parkedOf(u),
  };
}

/** An open-order row (the `openOrders` query, snapshots). */
export function venueOrderOfOpen(o: OpenOrder): VenueOrder {
  return {
    orderId: o.orderId,
    symbol: o.symbol,
    side: o.isBuy ? 'buy' : 'sell',
    price: o.price,
    originalSize: o.originalSize,
    remainingSize: o.size,
    filledSize: o.filledSize,
    avgFillPrice: o.vwap,
    maker: o.maker,
    status: o.status,
    venueTimeNs: o.timestamp,
    reason: undefined,
    reduceOnly: o.reduceOnly,
    tif: TIF[o.tif],
    parked: parkedOf(o),
  };
}

/** An `orderHistory` row. */
export function closedOrderOf(h: OrderHistoryEntry): ClosedOrder {
  return {
    orderId: h.orderId,
    symbol: h.symbol,
    side: h.side,
    orderType: h.orderType,
    tif: TIF[h.tif],
    price: h.price,
    avgFillPrice: h.vwap,
    originalSize: h.originalSize,
    filledSize: h.executedSize,
    reduceOnly: h.reduceOnly,
    status: h.status,
    reason: h.reason ?? undefined,
    venueTimeNs: h.timestamp,
  };
}

const CAUSES: readonly FillCause[] = ['trade', 'liquidation', 'adl', 'liquidationSweep'];

/** A stream `fill`: the account's own view (`isBuy` is whether the account bought, `fee` its own). */
function fillOf(f: FillUpdate): Fill {
  return {
    symbol: f.symbol,
    orderId: f.orderId,
    side: f.isBuy ? 'buy' : 'sell',
    price: f.price,
    size: f.size,
    feeUsd: f.fee,
    maker: f.maker,
    cause: CAUSES[f.reasonCode]!,
    venueTimeNs: f.timestamp,
  };
}

/**
 * `account`'s side of a `fills` query row. A row is shared by both parties and its `isBuy` is the taker's side (gaps §5,
 * venue-protocol §8.3), so the maker's is the opposite; the row's order id and fee are the account's own.
 */
export function fillOfRow(account: string, row: FillRow): Fill {
  const maker = row.maker === account;
  return {
    symbol: row.symbol,
    orderId: maker ? row.orderIdMaker : row.orderIdTaker,
    side: (maker ? !row.isBuy : row.isBuy) ? 'buy' : 'sell',
    price: row.price,
    size: row.amount,
    feeUsd: maker ? row.makerFee : row.takerFee,
    maker,
    cause: 'trade',
    venueTimeNs: row.timestamp,
  };
}

/** A `positionUpdate` message. */
function positionOf(p: PositionUpdate): Position {
  return {
    symbol: p.symbol,
    size: p.size,
    entryPrice: p.price,
    realizedPnlUsd: p.realizedPnl,
    leverage: p.leverage,
    unrealizedPnlUsd: p.unrealizedPnl,
    liquidationPrice: p.liquidationPrice,
  };
}

/** The account snapshot message or the `fullAccount` row (positions as sent, flat ones included; no PnL or liquidation price). */
function accountSnapshotOf(s: FullAccount): AccountSnapshot {
  return {
    openOrders: s.openOrders.map(venueOrderOfOpen),
    positions: s.positions.map((p) => ({
      symbol: p.coin,
      size: p.size,
      entryPrice: p.price,
      realizedPnlUsd: p.realizedPnl,
      leverage: p.leverage,
      unrealizedPnlUsd: undefined,
      liquidationPrice: undefined,
    })),
    collateral: s.marginSummary.positions.map((c) => ({ coin: c.coin, amount: c.size })),
    leverage: s.settings.maxLeverage.map(([symbol, leverage]) => ({ symbol, leverage })),
    ...('feeTiers' in s && Array.isArray(s.feeTiers) && { feeTiers: (s.feeTiers as FeeTierRow[]).map(feeTierOf) }),
  };
}

function feeTierOf(t: FeeTierRow): FeeTier {
  return { symbol: t.symbol, tierIndex: t.tierIndex, rollingVolumeUsd: t.rollingVolume, makerBps: t.makerBps, takerBps: t.takerBps };
}

function noticeOf(data: CurrentOnlyAccountData): AccountNotice {
  switch (data.type) {
    case 'adl':
      return {
        kind: 'adl',
        symbol: data.symbol,
        price: data.price,
        size: Math.abs(data.size),
        side: data.isBuy ? 'buy' : 'sell',
        reason: data.reason ?? undefined,
        venueTimeNs: data.timestamp,
      };
    case 'cancelOneRejected':
      return { kind: 'cancelRejected', symbol: data.symbol, orderId: data.orderId, reason: data.reason, venueTimeNs: data.timestamp };
    case 'cancelAllRejected':
      return { kind: 'cancelRejected', symbol: data.symbol ?? undefined, orderId: undefined, reason: data.reason, venueTimeNs: data.timestamp };
    case 'feeTierUpdate':
      return { kind: 'feeTiers', feeTiers: data.feeTiers.map(feeTierOf), venueTimeNs: data.ts };
  }
}

function marginOf(m: MarginUpdate): Margin {
  return {
    totalBalanceUsd: m.totalBalance,
    availableBalanceUsd: m.availableBalance,
    marginUsedUsd: m.marginUsed,
    notionalUsd: m.notional,
    realizedPnlUsd: m.realizedPnl,
    unrealizedPnlUsd: m.unrealizedPnl,
    feesUsd: m.fees,
    fundingUsd: m.funding,
  };
}

/** A `liquidation` message; `isBuy` is the side of the closing trade. */
function liquidationOf(l: WireLiquidation): Liquidation {
  return {
    symbol: l.symbol,
    price: l.price,
    size: l.size,
    side: l.isBuy ? 'buy' : 'sell',
    marginBeforeUsd: l.marginPrior,
    marginAfterUsd: l.marginAfter,
    reason: l.reason ?? undefined,
    venueTimeNs: l.timestamp,
  };
}

/** One account stream message; undefined for a kind the vocabulary has none for. */
export function accountUpdateOf(data: AccountData): AccountUpdate | undefined {
  switch (data.type) {
    case 'accountSnapshot':
      return { kind: 'snapshot', snapshot: accountSnapshotOf(data) };
    case 'orderUpdate':
      return { kind: 'order', order: venueOrderOfUpdate(data) };
    case 'fill':
      return { kind: 'fill', fill: fillOf(data) };
    case 'positionUpdate':
      return { kind: 'position', position: positionOf(data) };
    case 'marginUpdate':
      return { kind: 'margin', margin: marginOf(data) };
    case 'leverageUpdate':
      return { kind: 'leverage', leverage: data.leverage.map((l) => ({ symbol: l.symbol, leverage: l.leverage })) };
    case 'liquidation':
      return { kind: 'liquidation', liquidation: liquidationOf(data) };
    case 'adl':
    case 'cancelOneRejected':
    case 'cancelAllRejected':
    case 'feeTierUpdate':
      return { kind: 'notice', notice: noticeOf(data) };
    default:
      return undefined;
  }
}

/**
 * The order status each answer key stands for: the specification's names, and the answers' and the current
 * generation's other spellings (`resting` and `triggered` are placed, a `triggered` order no longer parked;
 * `cancelledIoc` cancelledIOC, `siblingCancelled` cancelled, `triggerFailed` rejectedInvalid).
 */
const ORDER_STATUSES: ReadonlyMap<string, OrderStatus> = new Map<string, OrderStatus>([
  ...[...NON_TERMINAL_ORDER_STATUSES, ...TERMINAL_ORDER_STATUSES].map((s): [string, OrderStatus] => [s, s]),
  ['resting', 'placed'],
  ['triggered', 'placed'],
  ['cancelledIoc', 'cancelledIOC'],
  ['siblingCancelled', 'cancelled'],
  ['triggerFailed', 'rejectedInvalid'],
]);

const DONE: ItemResult = { kind: 'done' };
/** Answer keys of an item that failed without an order status: `error`, `depositFailed`, `cancelOneRejected`, ... */
const FAILURE = /^error$|Failed$|Rejected$/;

function itemResultOf(entry: Record<string, unknown>): ItemResult {
  for (const key in entry) {
    const body = entry[key];
    if (typeof body !== 'object' || body === null) return DONE;
    const fields = body as Record<string, unknown>;
    const status = typeof fields.oid === 'string' ? ORDER_STATUSES.get(key) : undefined;
    if (status !== undefined) {
      const filled = fields.filledSz ?? fields.totalSz;
      return {
        kind: 'order',
        fact: {
          orderId: fields.oid as string,
          status,
          filledSize: typeof filled === 'number' ? Math.abs(filled) : undefined,
          reason: typeof fields.reason === 'string' ? fields.reason : undefined,
          ...(key === 'triggered' && { parked: false }),
        },
      };
    }
    if (!FAILURE.test(key)) return DONE;
    const message = typeof fields.message === 'string' ? fields.message : typeof fields.reason === 'string' ? fields.reason : key;
    return { kind: 'error', message };
  }
  return DONE;
}

/**
 * The items of an accepted action's answer (`response.data.statuses`), in item order: an order's status (its `filledSz`
 * or `totalSz` as filledSize, unsigned), an error (`error`, `…Failed` and `…Rejected` entries, with their message or
 * reason), or done (anything else: settings, agents, deposits, and entries under a status name no order has).
 */
export function itemResultsOf(statuses: readonly Record<string, unknown>[]): ItemResult[] {
  return statuses.map(itemResultOf);
}
