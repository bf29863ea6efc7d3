// Shapes of the engine's linked records (order, level, book side, market, position, account, order history), through
// which their classes name one another. Invariant: imports no file that imports a record class; each shape has all its class's public members.

import type { RecentSet, Ring } from './ring.js';
import type { RowChain } from './rowlog.js';
import type { Step } from './steps.js';
import type { ActivityRow, ClosedPositionRow, FundingPaymentRow, MarketConfig, MarketInfo, OrderHistoryRow, OrderStatus, RiskRow } from './types.js';

/** The class Order of book.ts (documented there). */
export interface Order {
  id: string;
  cloid: string | null;
  account: Account;
  market: Market;
  readonly idEntry: number;
  isBuy: boolean;
  kind: number;
  tif: number;
  priceTicks: number;
  origLots: number;
  reduceOnly: boolean;
  createdNs: bigint;
  idHash: number;
  idState: number;
  status: OrderStatus;
  reason: string | null;
  remLots: number;
  filledLots: number;
  filledValue: number;
  maker: boolean;
  updatedNs: bigint;
  slot: number;
  triggerTicks: number;
  triggerAbove: boolean;
  triggerHiTicks: number;
  trailBps: number;
  stepBps: number;
  anchorPx: number;
  condType: number;
  limitTicks: number;
  rawInput: boolean;
  rawPx: number;
  rawSz: number;
  rawSymbol: string | null;
  level: Level | null;
  prev: Order | null;
  next: Order | null;
  aPrev: Order | null;
  aNext: Order | null;
  live: boolean;
  init(
    id: string,
    cloid: string | null,
    account: Account,
    market: Market,
    isBuy: boolean,
    kind: number,
    tif: number,
    priceTicks: number,
    origLots: number,
    reduceOnly: boolean,
    nowNs: bigint,
    slot: number,
    idHash: number,
  ): this;
}

/** The class Level of book.ts (documented there). */
export interface Level {
  readonly priceTicks: number;
  readonly key: number;
  totalLots: number;
  count: number;
  head: Order | null;
  tail: Order | null;
}

/** The class BookSide of book.ts (documented there). */
export interface BookSide {
  readonly isBid: boolean;
  readonly levels: Level[];
  best(): Level | undefined;
  add(o: Order): Level;
  remove(o: Order): Level;
}

/** The class Market of markets.ts (documented there). */
export interface Market {
  readonly config: MarketConfig;
  readonly index: number;
  readonly symbol: string;
  readonly tick: Step;
  readonly lot: Step;
  readonly unitsPerTickLot: number;
  readonly unitsPerTickLotBig: bigint;
  readonly bids: BookSide;
  readonly asks: BookSide;
  readonly triggers: Set<Order>;
  readonly holders: Set<Account>;
  readonly initialMarginFraction: number;
  readonly maintenanceMarginFraction: number;
  readonly maxLeverage: number;
  readonly defaultLeverage: number;
  readonly makerFeeRate: number;
  readonly takerFeeRate: number;
  readonly minNotionalUsd: number;
  readonly maxFundingRate: number;
  readonly fundingIntervalNs: bigint;
  oraclePx: number;
  oracleNs: bigint;
  lastTradeTicks: number;
  volumeLots: number;
  openInterestLots: number;
  nextFundingNs: bigint;
  premiumSum: number;
  premiumSamples: number;
  lastFundingRate: number;
  price(ticks: number): number;
  size(lots: number): number;
  avgPrice(value: number, lots: number): number;
  midPrice(): number;
  markPrice(): number;
  oracleProblem(price: number, maxMove: number): string | undefined;
  info(): MarketInfo;
}

/** The class Position of accounts.ts (documented there). */
export interface Position {
  readonly market: Market;
  lots: number;
  cost: bigint;
  buyOpenLots: number;
  sellOpenLots: number;
  reduceOnlyOrders: number;
  openNs: bigint;
  maxLots: number;
  volumeLots: number;
  openValue: number;
  openLots: number;
  closeValue: number;
  closeLots: number;
  realized: bigint;
  fees: bigint;
  funding: bigint;
  dirty: boolean;
  signedCost(): bigint;
  resetLifecycle(nowNs: bigint): void;
}

/** The class Account of accounts.ts (documented there). */
export interface Account {
  readonly key: string;
  readonly index: number;
  balance: bigint;
  deposits: bigint;
  fees: bigint;
  funding: bigint;
  realized: bigint;
  readonly positions: Position[];
  readonly leverage: number[];
  readonly imFraction: number[];
  ordersHead: Order | null;
  ordersTail: Order | null;
  openOrders: number;
  liveCloids: Map<string, Order> | null;
  endedCloids: RecentSet | null;
  agents: Set<string> | null;
  fills: RowChain | null;
  closed: Ring<ClosedPositionRow> | null;
  fundingRows: Ring<FundingPaymentRow> | null;
  activity: Ring<ActivityRow> | null;
  risk: Ring<RiskRow> | null;
  history: OrderHistory | null;
  lastFaucetNs: bigint;
  dirty: boolean;
  parent: string | null;
  subName: string | null;
  subs: string[] | null;
  subSeq: number;
  linkOrder(o: Order): void;
  unlinkOrder(o: Order): void;
  setLeverage(index: number, market: Market, leverage: number): number;
}

/** The class OrderHistory of history.ts (documented there). */
export interface OrderHistory extends RowChain {
  has(id: string, h: number): boolean;
  record(o: Order): void;
  list(markets: readonly Market[]): OrderHistoryRow[];
}
