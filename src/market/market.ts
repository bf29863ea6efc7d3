// The market observables book$, trades$, ticker$, frontendContext$, risk$: hot, ref-counted, over a StreamSource.
// Invariants: stores are updated before emission and replayed to late subscribers; book$ conflates per subscriber.

import { asyncScheduler, auditTime, catchError, EMPTY, exhaustMap, filter, from, interval, map, mergeMap, NEVER, Observable, share, type SchedulerLike } from 'rxjs';
import type { StreamSource } from '../client/ws-pool.js';
import { topicOf } from '../client/ws-connection.js';
import { conflate, multicast } from '../core/rx.js';
import type { Book, MarketContext, Risk, StreamMessage, Ticker, Trade } from '../protocol/v1/stream.js';
import type { BookView } from './book.js';
import { buildBook, newBookBuilderStats, type BookBuilderStats } from './book-builder.js';

export interface MarketStreamsOptions {
  source: StreamSource;
  /** HTTP snapshot for the cross-check (e.g. `http.l2book`); without it the `l2snapshot` topic is used. */
  l2book?: (symbol: string, nlevels: number) => Promise<Book>;
  /** Period of the book cross-check, ms; 0 turns the cross-check off. Default 10 000. */
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

type MessageOf<T extends StreamMessage['type']> = Extract<StreamMessage, { type: T }>;

function ofType<T extends StreamMessage['type']>(type: T) {
  return filter((m: StreamMessage): m is MessageOf<T> => m.type === type);
}

/** Per symbol: its delta topic, the book builder's counters and the stream (replaying the latest book to a new subscriber). */
interface BookEntry {
  readonly topic: string;
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
      const topic = topicOf({ type: 'l2Delta', symbol });
      const stats = newBookBuilderStats();
      const payloads = new Observable<Book>((subscriber) =>
        this.opts.source.topic$({ type: 'l2Delta', symbol }).subscribe((m) => {
          if (m.type === 'l2Delta') subscriber.next(m.data.book);
        }),
      );
      const shared = buildBook(payloads, {
        symbol,
        checks$: this.checks$(symbol),
        checkDepth: this.opts.checkDepth ?? 50,
        mismatchesBeforeRebuild: this.opts.mismatchesBeforeRebuild,
        onRebuild: () => this.opts.source.resubscribe(topic),
        stats,
      }).pipe(latest());
      this.books.set(symbol, (entry = { topic, stats, stream: shared }));
    }
    return entry.stream;
  }

  /** Decodes the last book frame of `symbol` again, changing no book (keep-warm dry runs; see StreamSource.warm). */
  warm(symbol: string): void {
    const entry = this.books.get(symbol);
    if (entry) this.opts.source.warm?.(entry.topic);
  }

  /** Counters of the book builder of `symbol` (snapshots, deltas, checks, mismatches, rebuilds). */
  bookStats(symbol: string): Readonly<BookBuilderStats> | undefined {
    return this.books.get(symbol)?.stats;
  }

  /** Public trades of `symbol`, one emission per trade. */
  trades$(symbol: string): Observable<Trade> {
    return this.memo(`trades.${symbol}`, () =>
      this.opts.source.topic$({ type: 'trades', symbol }).pipe(
        ofType('trades'),
        mergeMap((m) => m.data.trades),
        share(),
      ),
    );
  }

  ticker$(symbol: string): Observable<Ticker> {
    return this.memo(`ticker.${symbol}`, () =>
      this.opts.source.topic$({ type: 'ticker', symbol }).pipe(
        ofType('ticker'),
        map((m) => m.data.ticker),
        latest(),
      ),
    );
  }

  /** The summary of every market (the venue pushes it every 2 s). */
  frontendContext$(): Observable<MarketContext[]> {
    return this.memo('frontendContext', () =>
      this.opts.source.topic$({ type: 'frontendContext' }).pipe(
        ofType('frontendContext'),
        map((m) => m.data.ctx),
        latest(),
      ),
    );
  }

  risk$(symbol: string): Observable<Risk> {
    return this.memo(`risk.${symbol}`, () =>
      this.opts.source.topic$({ type: 'risk', symbol }).pipe(
        ofType('risk'),
        map((m) => m.data.risk),
        latest(),
      ),
    );
  }

  private memo<T>(key: string, make: () => Observable<T>): Observable<T> {
    let stream = this.cached.get(key) as Observable<T> | undefined;
    if (!stream) {
      stream = make();
      this.cached.set(key, stream);
    }
    return stream;
  }

  /** Snapshots to compare the book with: `/l2book` every crossCheckMs, else the `l2snapshot` topic at that pace. */
  private checks$(symbol: string): Observable<Book> {
    const periodMs = this.opts.crossCheckMs ?? 10_000;
    const depth = this.opts.checkDepth ?? 50;
    const l2book = this.opts.l2book;
    if (periodMs === 0) return NEVER;
    if (l2book) {
      return interval(periodMs, this.scheduler).pipe(exhaustMap(() => from(l2book(symbol, depth)).pipe(catchError(() => EMPTY))));
    }
    return this.opts.source.topic$({ type: 'l2Snapshot', symbol, nlevels: depth }).pipe(
      ofType('l2Snapshot'),
      map((m) => m.data.book),
      auditTime(periodMs, this.scheduler),
    );
  }
}
