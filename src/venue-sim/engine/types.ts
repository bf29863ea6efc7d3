// Public types of the venue engine: configuration, the actions it accepts, its results, events and query rows.
// Invariant: prices and sizes are JSON-ready numbers in USD / base units; timestamps are bigint nanoseconds.

import type { OrderStatus } from '../../core/intent.js';
import type { OrderIdText, PubkeyText, TimeInForce } from '../../core/types.js';

/** Source of time for the engine; must never go backwards (the engine clamps it if it does). */
export interface EngineClock {
  nowNs(): bigint;
}

/** One market as configured (all amounts in USD or base units, rates as fractions: 0.0002 = 2 bps). */
export interface MarketConfig {
  /** `<BASE>-USD` */
  symbol: string;
  /** price step in USD */
  tickSize: number;
  /** size step in base units */
  lotSize: number;
  /** smallest accepted price × size, in USD (reduce-only orders are exempt) */
  minNotionalUsd: number;
  /** per-market cap on the account's leverage setting (also capped at 50) */
  maxLeverage: number;
  /** fee fraction of notional charged to the resting side; negative = rebate */
  makerFeeRate: number;
  /** fee fraction of notional charged to the incoming side */
  takerFeeRate: number;
  /** initial margin floor as a fraction of notional; the effective fraction is max(this, 1 / leverage) */
  initialMarginFraction: number;
  /** maintenance margin as a fraction of notional; liquidation when equity < Σ maintenance margin */
  maintenanceMarginFraction: number;
  /** time between funding payments, ns */
  fundingIntervalNs: bigint;
  /** absolute cap on one interval's funding rate (fraction); default 0.01 */
  maxFundingRate?: number;
  /** leverage of an account that never set one; default min(10, maxLeverage) */
  defaultLeverage?: number;
}

export interface EngineOptions {
  /** markets to list; default BTC-USD, ETH-USD, SOL-USD (see DEFAULT_MARKETS) */
  markets?: readonly MarketConfig[];
  /** fixes every random choice (generated order ids); default 1 */
  seed?: number;
  clock: EngineClock;
  /** faucet credit when the action names no amount, USD; default 10 000 */
  faucetDefaultUsd?: number;
  /** largest faucet credit accepted, USD; default 1 000 000 000 */
  faucetMaxUsd?: number;
  /** minimum time between two faucet claims of one account, ns; default 0 (no limit) */
  faucetCooldownNs?: bigint;
  /** rows kept per account for fills, closed positions, funding payments and terminal orders; default 5000 */
  historyLimit?: number;
  /**
   * duplicate order ids are detected among live orders and the account's newest `dedupeWindow`
   * terminal orders (at most historyLimit); default 256
   */
  dedupeWindow?: number;
  /** items accepted in one order action; default 100 */
  maxBatchItems?: number;
  /**
   * live orders (resting or parked triggers) one account may hold; an order that could rest beyond it
   * is refused with rejectedRiskLimit; default 1000
   */
  maxOpenOrdersPerAccount?: number;
  /** agents one account may register; default 100 */
  maxAgentsPerAccount?: number;
  /** a liquidation sweeps the book no further than this fraction away from mark; default 0.05 */
  liquidationMaxSlippage?: number;
  /**
   * largest move of one oracle update from the symbol's current oracle price, as a fraction f: a new price p
   * is accepted when old / (1 + f) ≤ p ≤ old × (1 + f); default 1 (at most doubling or halving)
   */
  oracleMaxMove?: number;
  /** largest distance of an oracle timestamp from the venue clock, ns; default 300 s */
  oracleMaxSkewNs?: bigint;
  /** funding interest component per 8 h (fraction); default 0.0001 (0.01 %) */
  fundingInterestPer8h?: number;
  /** clamp on (interest − premium) in the funding formula; default 0.0005 (0.05 %) */
  fundingPremiumClamp?: number;
}

// ---- actions (already validated and authenticated by the server; the v1 JSON shapes) ----

/**
 * A trigger fires at `triggerPx` (a stop or take-profit). The current generation's conditionals add (market only): a
 * range, `highPx` > `triggerPx`, firing at or below `triggerPx` or at or above `highPx`; a trailing stop, `trailBps` (with
 * `triggerPx` 0), whose trigger the venue sets `trailBps` from the extreme mark since placement, moved in steps of `stepBps`.
 */
export type TriggerTypeSpec = { is_market: boolean; triggerPx: number; highPx?: number; trailBps?: number; stepBps?: number; takeProfit?: boolean };
export type OrderTypeSpec = { limit: { tif: TimeInForce } } | { trigger: TriggerTypeSpec };

export interface PlaceOrderItem {
  /** symbol */
  c: string;
  /** true = buy */
  b: boolean;
  /** limit price, USD; 0 for market orders */
  px: number;
  /** size, base units */
  sz: number;
  /** reduce-only */
  r: boolean;
  t: OrderTypeSpec;
  /** client order id (base58 text), optional */
  cloid?: string | null;
}

export interface CancelItem {
  c: string;
  oid: OrderIdText;
}

export interface CancelAllItem {
  /** symbols; empty = every symbol */
  c: readonly string[];
}

/** Changes the size of a resting order (current generation `mod`). */
export interface ModifyItem {
  c: string;
  oid: OrderIdText;
  /** new total size, base units: above the size already filled */
  sz: number;
}

export type OrderActionItem = { order: PlaceOrderItem } | { cancel: CancelItem } | { cancelAll: CancelAllItem } | { modify: ModifyItem };

export interface OrderActionContext {
  /** order id per item index (base58 text of the 32-byte hash the server computed); missing ids are generated from the seed */
  ids?: readonly (OrderIdText | null | undefined)[];
  /** the action's nonce (informational) */
  nonce?: bigint;
}

// ---- statuses (exactly the v1 status table; sizes unsigned) ----

export type { OrderStatus };

export type ItemStatus =
  | { resting: { oid: OrderIdText } }
  | { working: { oid: OrderIdText; filledSz: number; remainingSz: number; vwap: number } }
  | { filled: { oid: OrderIdText; totalSz: number; avgPx: number } }
  | { partiallyFilled: { oid: OrderIdText; totalSz: number; avgPx: number } }
  | { cancelled: { oid: OrderIdText } }
  | { cancelledRiskLimit: { oid: OrderIdText; reason?: string } }
  | { cancelledSelfCrossing: { oid: OrderIdText } }
  | { cancelledReduceOnly: { oid: OrderIdText } }
  | { cancelledIOC: { oid: OrderIdText; filledSz: number } }
  | { rejectedInvalid: { oid: OrderIdText; reason?: string } }
  | { rejectedRiskLimit: { oid: OrderIdText; reason?: string } }
  | { rejectedCrossing: { oid: OrderIdText } }
  | { rejectedDuplicate: { oid: OrderIdText } }
  | { error: { message: string } };

export interface OrderActionResult {
  statuses: ItemStatus[];
}

export type FaucetResult = { deposit: { amount: number } } | { depositFailed: { message: string } };
export type AgentResult = { agentWallet: { agent: PubkeyText; delete: boolean } } | { error: { message: string } };
export type OracleResult = { oracle: { count: number } };

export interface OraclePrice {
  timestamp: bigint;
  symbol: string;
  price: number;
}

export type LeverageEntry = [symbol: string, leverage: number];

// ---- records and query rows ----

export type OrderKind = 'limit' | 'market' | 'trigger';
/** Which conditional a trigger order is (the current generation's order types); `takeProfit` comes from the place item. */
export type ConditionalType = 'stop' | 'takeProfit' | 'range' | 'trailing';

/** A trigger order's conditional terms, USD; null where they do not apply (trb/stb: trailing only, pxHi: range only). */
export interface ConditionalInfo {
  type: ConditionalType;
  /** fires at or above `px` (a range fires at or below `px` or at or above `pxHi`) */
  isAbove: boolean;
  px: number;
  pxHi: number | null;
  /** limit price once fired; null = a market order */
  lim: number | null;
  trb: number | null;
  stb: number | null;
}
export type CloseReason = 'normal' | 'liquidation' | 'adl';

/** One execution. Shared by the fills query of both accounts and the `fill` event (it is also the public trade). */
export interface FillRecord {
  maker: PubkeyText;
  taker: PubkeyText;
  orderIdMaker: OrderIdText;
  orderIdTaker: OrderIdText;
  /** true when the taker bought */
  isBuy: boolean;
  symbol: string;
  /** size, base units */
  amount: number;
  /** USD */
  price: number;
  /** USD; negative = rebate */
  makerFee: number;
  takerFee: number;
  slot: number;
  timestamp: bigint;
  /** why the trade happened (not in the v1 fills row) */
  reason: CloseReason;
}

export type FillRow = Omit<FillRecord, 'reason'>;

export interface OpenOrderRow {
  symbol: string;
  orderId: OrderIdText;
  price: number;
  originalSize: number;
  size: number;
  filledSize: number;
  vwap: number;
  isBuy: boolean;
  maker: boolean;
  reduceOnly: boolean;
  tif: string;
  status: OrderStatus;
  timestamp: bigint;
}

export interface PositionRow {
  coin: string;
  /** signed, base units */
  size: number;
  /** average entry price, USD */
  price: number;
  realizedPnl: number;
  leverage: number;
}

export interface FullAccountRow {
  positions: PositionRow[];
  openOrders: OpenOrderRow[];
  marginSummary: { positions: { coin: string; size: number }[] };
  settings: { maxLeverage: LeverageEntry[] };
}

export interface ClosedPositionRow {
  owner: PubkeyText;
  symbol: string;
  maxQuantity: number;
  totalVolume: number;
  avgOpenPrice: number;
  avgClosePrice: number;
  realizedPnl: number;
  fees: number;
  funding: number;
  openTime: bigint;
  closeTime: bigint;
  closeReason: CloseReason;
}

export interface FundingPaymentRow {
  owner: PubkeyText;
  symbol: string;
  /** signed position size, base units */
  size: number;
  /** USD; positive = received, negative = paid */
  payment: number;
  fundingRate: number;
  markPrice: number;
  slot: number;
  timestamp: bigint;
}

/** A deposit (faucet) or a transfer that moved an account's USDC (activityHistory, venue-protocol §8.3). */
export interface ActivityRow {
  activityType: 'deposit' | 'transferInternal' | 'transferExternal';
  /** the paying account; null for a deposit */
  from: PubkeyText | null;
  to: PubkeyText;
  /** USDC */
  amount: number;
  slot: number;
  timestamp: bigint;
}

/** A liquidation or auto-deleveraging that closed (part of) an account's position (riskHistory, venue-protocol §8.3). */
export interface RiskRow {
  owner: PubkeyText;
  symbol: string;
  eventType: 'liquidation' | 'adl';
  /** true when the closing trade bought */
  isBuy: boolean;
  /** base units */
  amount: number;
  /** USD */
  price: number;
  /** the account's equity before and after, USD */
  marginPrior: number;
  marginAfter: number;
  slot: number;
  timestamp: bigint;
}

export interface OrderHistoryRow {
  orderId: OrderIdText;
  symbol: string;
  side: 'buy' | 'sell';
  orderType: OrderKind;
  /** which conditional a trigger order was; absent for any other order */
  conditional?: ConditionalType;
  tif: string;
  price: number;
  vwap: number;
  originalSize: number;
  executedSize: number;
  reduceOnly: boolean;
  status: OrderStatus;
  reason: string | null;
  slot: number;
  timestamp: bigint;
}

/** Margin numbers of an account (USD). equity = totalBalance + unrealizedPnl. */
export interface MarginSummary {
  totalBalance: number;
  availableBalance: number;
  marginUsed: number;
  maintenanceMargin: number;
  notional: number;
  realizedPnl: number;
  unrealizedPnl: number;
  fees: number;
  funding: number;
}

export type AccountQueryType = 'fullAccount' | 'openOrders' | 'fills' | 'positions' | 'fundingHistory' | 'orderHistory';

export type AccountQueryResponse =
  | { fullAccount: FullAccountRow }[]
  | { openOrder: OpenOrderRow }[]
  | { fills: FillRow }[]
  | { positions: ClosedPositionRow }[]
  | { fundingPayment: FundingPaymentRow }[]
  | { orderHistory: OrderHistoryRow }[];

export interface BookLevelRow {
  px: number;
  sz: number;
  n: number;
}

export interface BookSnapshot {
  symbol: string;
  /** best first */
  bids: BookLevelRow[];
  /** best first */
  asks: BookLevelRow[];
  timestamp: bigint;
}

export interface MarketInfo {
  symbol: string;
  tickSize: number;
  lotSize: number;
  minNotional: number;
  maxLeverage: number;
  makerFeeRate: number;
  takerFeeRate: number;
  initialMarginFraction: number;
  maintenanceMarginFraction: number;
  fundingIntervalNs: bigint;
}

export interface MarketState {
  symbol: string;
  /** 0 when no price is known */
  markPrice: number;
  /** 0 when no oracle price was set */
  oraclePrice: number;
  /** 0 unless both sides have orders */
  midPrice: number;
  bestBid: number;
  bestAsk: number;
  /** 0 before the first trade */
  lastPrice: number;
  /** Σ long sizes, base units */
  openInterest: number;
  /** rate of the last funding payment (fraction per interval) */
  fundingRate: number;
  nextFundingNs: bigint;
  /** traded size since start, base units */
  volume: number;
}

/** Exact integer ledger for conservation checks: deposits = balances + feesCollected − openCost (all in quote units). */
export interface LedgerAudit {
  /** one quote unit is 10^-quoteDecimals USD */
  quoteDecimals: number;
  depositsUnits: bigint;
  balancesUnits: bigint;
  feesCollectedUnits: bigint;
  /** Σ over open positions of the signed entry cost (long: paid, short: −received) */
  openCostUnits: bigint;
  /** Σ funding payments (always 0: funding is paid between traders) */
  fundingNetUnits: bigint;
  /** Σ signed position sizes in lots per market (always 0) */
  netLotsBySymbol: Record<string, number>;
}

// ---- events (drained by the server and turned into stream messages) ----

export interface OrderUpdateEvent {
  type: 'orderUpdate';
  account: PubkeyText;
  symbol: string;
  orderId: OrderIdText;
  status: OrderStatus;
  price: number;
  originalSize: number;
  /** remaining */
  size: number;
  filledSize: number;
  vwap: number;
  isBuy: boolean;
  maker: boolean;
  reduceOnly: boolean;
  tif: string;
  orderType: OrderKind;
  /** a trigger order's terms as they are now (a trailing stop's px moves); null for any other order */
  conditional: ConditionalInfo | null;
  reason: string | null;
  timestamp: bigint;
  slot: number;
}

export interface FillEvent {
  type: 'fill';
  fill: FillRecord;
}

export interface PositionUpdateEvent {
  type: 'positionUpdate';
  account: PubkeyText;
  symbol: string;
  size: number;
  price: number;
  realizedPnl: number;
  unrealizedPnl: number;
  leverage: number;
  markPrice: number;
  notional: number;
  fees: number;
  funding: number;
  timestamp: bigint;
}

export interface MarginUpdateEvent extends MarginSummary {
  type: 'marginUpdate';
  account: PubkeyText;
  timestamp: bigint;
}

/** One price level changed; sz 0 deletes the level. */
export interface BookLevelEvent {
  type: 'bookLevel';
  symbol: string;
  isBid: boolean;
  px: number;
  sz: number;
  n: number;
  timestamp: bigint;
}

export interface FundingEvent {
  type: 'funding';
  payment: FundingPaymentRow;
}

export interface PositionClosedEvent {
  type: 'positionClosed';
  position: ClosedPositionRow;
}

export interface LiquidationEvent {
  type: 'liquidation';
  account: PubkeyText;
  symbol: string;
  /** average price of the closing trades, USD */
  price: number;
  size: number;
  /** true when the closing trade bought */
  isBuy: boolean;
  marginPrior: number;
  marginAfter: number;
  timestamp: bigint;
}

export interface AdlEvent {
  type: 'adl';
  account: PubkeyText;
  symbol: string;
  price: number;
  size: number;
  isBuy: boolean;
  timestamp: bigint;
}

export interface LeverageUpdateEvent {
  type: 'leverageUpdate';
  account: PubkeyText;
  leverage: LeverageEntry[];
  timestamp: bigint;
}

export interface MarkPriceEvent {
  type: 'markPrice';
  symbol: string;
  markPrice: number;
  oraclePrice: number;
  timestamp: bigint;
}

export interface AgentEvent {
  type: 'agent';
  account: PubkeyText;
  agent: PubkeyText;
  delete: boolean;
  timestamp: bigint;
}

export type EngineEvent =
  | OrderUpdateEvent
  | FillEvent
  | PositionUpdateEvent
  | MarginUpdateEvent
  | BookLevelEvent
  | FundingEvent
  | PositionClosedEvent
  | LiquidationEvent
  | AdlEvent
  | LeverageUpdateEvent
  | MarkPriceEvent
  | AgentEvent;
