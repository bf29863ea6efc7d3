// The venue port: everything the trading code (market, account, strategy, risk, execution) needs from an exchange.
// Invariants: only the framework's vocabulary crosses it (no wire shape); a live client, the local venue's adapter or a
// simulated exchange implement it alike; submits never throw for venue or transport failures (three outcomes).

import type { Observable, SchedulerLike } from 'rxjs';
import type { AccountUpdate, ClosedOrder, Fill, ItemResult, VenueOrder } from '../core/account-data.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { BookUpdate, MarketRules, Ticker, Trade } from '../core/market-data.js';
import type { Rehearsal } from '../latency/rehearsal.js';
import type { SignedRequest } from '../protocol/sign.js';

export type { ItemResult, VenueOrderFact } from '../core/account-data.js';

/** Market data by symbol. Streams are hot and ref-counted: the venue is subscribed while someone listens. */
export interface MarketDataSource {
  /** The book's updates: a snapshot first on every (re)subscription, then deltas in arrival order. */
  book$(symbol: string): Observable<BookUpdate>;
  /** Asks for a fresh snapshot of the book (it comes next on book$): how a book found inconsistent is rebuilt. */
  resyncBook(symbol: string): void;
  /** The book's best `levels` levels per side now, by query (the book's cross-check). */
  bookSnapshot(symbol: string, levels: number): Promise<BookUpdate>;
  /** Public trades, in the venue's order. */
  trades$(symbol: string): Observable<Trade>;
  ticker$(symbol: string): Observable<Ticker>;
}

/** An account's data. The stream is hot and ref-counted; the queries retry nothing (callers decide). */
export interface AccountDataSource {
  /** The account's updates: a snapshot first on every (re)subscription, then changes. */
  updates$(account: string): Observable<AccountUpdate>;
  /** The account's recent fills (the venue keeps a bounded history), from the account's side, newest first. */
  fills(account: string): Promise<readonly Fill[]>;
  /** The account's resting orders. */
  openOrders(account: string): Promise<readonly VenueOrder[]>;
  /** The account's recently ended orders (a bounded history). */
  orderHistory(account: string): Promise<readonly ClosedOrder[]>;
}

/** The three outcomes of sending one signed action. */
export type SubmitOutcome =
  /** The venue processed the action; its items may still have failed one by one (`items`). */
  | { readonly outcome: 'accepted'; readonly items: readonly ItemResult[] }
  /** The venue refused the action as a whole; nothing changed. */
  | {
      readonly outcome: 'rejected';
      readonly reason: string;
      readonly httpStatus: number | undefined;
      readonly code: string | undefined;
      /** How long the venue asked us to wait before the next request, ms (rate limits). */
      readonly retryAfterMs: number | undefined;
    }
  /** The venue may or may not have acted: resolve by asking it, or re-send `request` unchanged (never re-sign). */
  | { readonly outcome: 'unknown'; readonly reason: string; readonly request: SignedRequest };

export interface SubmitHooks {
  /** Called when the request's last byte was handed to the network. */
  onWritten?(): void;
}

/** Sends one signed action once. */
export interface Submitter {
  submit(request: SignedRequest, hooks?: SubmitHooks): Promise<SubmitOutcome>;
}

/** A data stream turned fresh (data within its bound) or stale (with why). */
export interface StreamHealth {
  /** A name for logs and status pages. */
  readonly stream: string;
  /** What it feeds: one market's data, or one account's (a stale account stream blinds every market of it). */
  readonly feeds: { readonly symbol: string } | { readonly account: string };
  readonly fresh: boolean;
  readonly reason: string;
}

export interface VenueHealth {
  /** Every change of a held stream's freshness. */
  readonly health$: Observable<StreamHealth>;
  /** The held streams stale now, by name. */
  stale(): ReadonlyMap<string, StreamHealth>;
  /** True while every connection to the venue is up; emits on each change (current value first). */
  readonly connected$: Observable<boolean>;
}

/** An exchange as the trading code sees it. */
export interface Venue {
  readonly market: MarketDataSource;
  readonly account: AccountDataSource;
  readonly submitter: Submitter;
  /** The listed markets and their rules. */
  markets(): Promise<readonly MarketRules[]>;
  readonly health: VenueHealth;
  /** The venue's time: live, the machine's; in a backtest, the replay's. */
  readonly clock: Clock;
  /** What timers and timed stream operators run on (the same time as `clock`). */
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  /** Re-runs the venue side of the hot path (decoding, request preparation) on its last input; absent where there is none. */
  readonly rehearsal?: Rehearsal;
  /** Closes connections; the streams complete or stop emitting. */
  close(): void;
}
