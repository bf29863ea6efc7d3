// The market observables book$, trades$, ticker$: hot, ref-counted, over the venue port's MarketDataSource.
// Invariants: stores are updated before emission and replayed to late subscribers; book$ conflates per subscriber.

import { asyncScheduler, catchError, EMPTY, exhaustMap, from, interval, NEVER, type Observable, share, type SchedulerLike } from 'rxjs';
import type { BookUpdate, Ticker, Trade } from '../core/market-data.js';
import { conflate, multicast } from '../core/rx.js';
import type { MarketDataSource } from '../venue/port.js';
import type { BookView } from './book.js';
import { buildBook, newBookBuilderStats, type BookBuilderStats } from './book-builder.js';

export interface MarketStreamsOptions {
  source: MarketDataSource;
  /** Period of the book cross-check against `source.bookSnapshot`, ms; 0 turns the cross-check off. Default 10 000. */
  crossCheckMs?: number;
  /** Levels per side compared by the cross-check. Default 50. */
  checkDepth?: number;
  /** Consecutive mismatches that rebuild the book. Default 2. */
  mismatchesBeforeRebuild?: number;
  /** Timers of the cross-check. Default asyncScheduler. */
  scheduler?: SchedulerLike;
  /** When conflated book$ deliveries run. Default: a microtask (once per socket read). */
  conflateScheduler?: SchedulerLike;
}

/** Per symbol: the book builder's counters and the stream (replaying the latest book to a new subscriber). */
interface BookEntry {
  readonly stats: BookBuilderStats;
  readonly stream: Observable<BookView>;
}

/** Hot, ref-counted, replaying the latest value to a new subscriber. */
const latest = <T>() => multicast<T>(true);

export class MarketStreams {
  private readonly books = new Map<string, BookEntry>();
  private readonly cached = new Map<string, Observable<unknown>>();
  private readonly scheduler: SchedulerLike;

  constructor(private readonly opts: MarketStreamsOptions) {
    this.scheduler = opts.scheduler ?? asyncScheduler;
  }

  /**
   * The book of `symbol`: the live, consistent book after changes, conflated per subscriber (a subscriber
   * busy with one book gets the newest one next, never a backlog). Replays the current book on subscribe.
   */
  book$(symbol: string): Observable<BookView> {
    return this.bookChanges$(symbol).pipe(conflate(this.opts.conflateScheduler));
  }

  /** The book after every single change, delivered synchronously (for fast consumers: recorders, benchmarks). */
  bookChanges$(symbol: string): Observable<BookView> {
    let entry = this.books.get(symbol);
    if (!entry) {
      const source = this.opts.source;
      const stats = newBookBuilderStats();
      const stream = buildBook(source.book$(symbol), {
        symbol,
        checks$: this.checks$(symbol),
        checkDepth: this.opts.checkDepth ?? 50,
        mismatchesBeforeRebuild: this.opts.mismatchesBeforeRebuild,
        onRebuild: () => source.resyncBook(symbol),
        stats,
      }).pipe(latest());
      this.books.set(symbol, (entry = { stats, stream }));
    }
    return entry.stream;
  }

  /** Counters of the book builder of `symbol` (snapshots, deltas, checks, mismatches, rebuilds). */
  bookStats(symbol: string): Readonly<BookBuilderStats> | undefined {
    return this.books.get(symbol)?.stats;
  }

  /** Public trades of `symbol`, one emission per trade. */
  trades$(symbol: string): Observable<Trade> {
    return this.memo(`trades.${symbol}`, () => this.opts.source.trades$(symbol).pipe(share()));
  }

  ticker$(symbol: string): Observable<Ticker> {
    return this.memo(`ticker.${symbol}`, () => this.opts.source.ticker$(symbol).pipe(latest()));
  }

  private memo<T>(key: string, make: () => Observable<T>): Observable<T> {
    let stream = this.cached.get(key) as Observable<T> | undefined;
    if (!stream) {
      stream = make();
      this.cached.set(key, stream);
    }
    return stream;
  }

  /** The venue's book queried every crossCheckMs (a failed query skips that check). */
  private checks$(symbol: string): Observable<BookUpdate> {
    const periodMs = this.opts.crossCheckMs ?? 10_000;
    if (periodMs === 0) return NEVER;
    const depth = this.opts.checkDepth ?? 50;
    const source = this.opts.source;
    return interval(periodMs, this.scheduler).pipe(exhaustMap(() => from(source.bookSnapshot(symbol, depth)).pipe(catchError(() => EMPTY))));
  }
}
