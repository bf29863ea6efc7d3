// The risk engine's contract with execution: one primitive operation in, a decision with a
// reason code out; the trading state (ACTIVE / REDUCING / HALTED) with the reason it was set.
// Invariant: risk never throws for a denial; a denied operation never reaches the wire.

import type { Observable } from 'rxjs';
import type { DataStamp, OrderSpec } from '../core/intent.js';
import type { MarketRules } from '../core/market-data.js';

export type TradingState = 'ACTIVE' | 'REDUCING' | 'HALTED';

export type RiskReason =
  | 'MAX_ORDER_SIZE'
  | 'MAX_ORDER_NOTIONAL'
  | 'MAX_POSITION'
  | 'MAX_TOTAL_POSITION'
  | 'PRICE_BAND'
  /** A trigger price on the wrong side of the mark for its kind and side (the order would fire at once). */
  | 'TRIGGER_PRICE'
  | 'MAX_OPEN_ORDERS'
  | 'ORDER_RATE'
  | 'CANCEL_RATE'
  | 'LEVERAGE'
  | 'DAILY_LOSS'
  | 'STALE_INPUT'
  | 'HALTED'
  | 'REDUCING'
  | 'UNKNOWN_MARKET'
  | 'NO_MARK_PRICE'
  /** The market's stream data is stale (the app's stale guard): nothing places in a blind market. */
  | 'STREAM_STALE';

export type RiskDecision = { readonly ok: true } | { readonly ok: false; readonly reason: RiskReason; readonly detail: string };

/** A primitive operation execution wants to send (quote sets and replaces are already expanded). */
export type PlannedOp =
  | { readonly kind: 'place'; readonly strategy: string; readonly order: OrderSpec; readonly stamp: DataStamp }
  | { readonly kind: 'cancel'; readonly strategy: string; readonly symbol: string };

/** What risk reads about the world (provided by the app from market, account and tracker state). */
export interface RiskView {
  /** Mark price of `symbol`, USD, or undefined when none is known. */
  markPrice(symbol: string): number | undefined;
  /** Signed position size of `symbol`, base units (long > 0). */
  position(symbol: string): number;
  /** Signed size that open (and pending) orders would add if all filled, per side. */
  openOrderSizes(symbol: string): { readonly buy: number; readonly sell: number };
  /** Open plus pending orders of the bot, all symbols. */
  openOrderCount(): number;
  /** Account equity, USD (collateral + unrealized PnL), or undefined when unknown. */
  equityUsd(): number | undefined;
  /** Realized + unrealized PnL since the start of the current UTC day, USD. */
  pnlTodayUsd(): number;
  /** The market's rules, or undefined for an unknown symbol. */
  market(symbol: string): Pick<MarketRules, 'maxLeverage'> | undefined;
  /** Why the stream data of `symbol` is stale now, or undefined while it is fresh (absent: never stale). */
  staleData?(symbol: string): string | undefined;
}

export interface TradingStateChange {
  readonly state: TradingState;
  readonly reason: string;
  /** Epoch ms. */
  readonly atMs: number;
}

export interface RiskGate {
  /** Decides one operation at `nowMs` (epoch ms); an approved operation counts against the rate limits. */
  check(op: PlannedOp, nowMs: number): RiskDecision;
  /** check()'s decision without taking a rate token or re-evaluating the rules: changes nothing (keep-warm dry runs). */
  wouldApprove(op: PlannedOp, nowMs: number): RiskDecision;
  readonly state: TradingState;
  /** Current state first, then every change, with its reason. */
  readonly state$: Observable<TradingStateChange>;
  /** Kill switch: HALTED (cancels only) until `resume`. */
  halt(reason: string): void;
  /** Only position-reducing orders until `resume`. */
  reduceOnly(reason: string): void;
  resume(reason: string): void;
  /** Execution reports every rejection status the venue answered (repeated rejects may halt). */
  onVenueReject(status: string, nowMs: number): void;
  /** The app reports the venue connection (a lost connection may set REDUCING or HALTED). */
  onConnection(connected: boolean, nowMs: number): void;
}
