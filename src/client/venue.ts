// The live venue: the venue port over the HTTP client and the WebSocket pool, every wire shape in the vocabulary.
// Invariants: translations are protocol/vocabulary.ts's; a book update carries the arrival time of the frame that carried it
// (read while that frame is delivered); the rehearsal sends, counts and changes nothing.

import { asyncScheduler, combineLatest, distinctUntilChanged, filter, map, Observable, of, switchMap, type SchedulerLike, type Subscriber } from 'rxjs';
import type { AccountUpdate, ClosedOrder, Fill, VenueOrder } from '../core/account-data.js';
import { systemClock, type Clock } from '../core/clock.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { BookUpdate, MarketRules, Ticker, Trade } from '../core/market-data.js';
import type { Dialect, Network } from '../core/types.js';
import { RecentUse, type Rehearsal } from '../latency/rehearsal.js';
import type { SignedRequest } from '../protocol/sign.js';
import type { StreamMessage, Subscription } from '../protocol/v1/stream.js';
import {
  accountUpdateOf,
  bookUpdateOf,
  closedOrderOf,
  fillOfRow,
  itemResultsOf,
  marketRulesOf,
  tickerOf,
  tradeOf,
  venueOrderOfOpen,
} from '../protocol/vocabulary.js';
import type { AccountDataSource, MarketDataSource, StreamHealth, SubmitHooks, SubmitOutcome, Submitter, Venue, VenueHealth } from '../venue/port.js';
import { HttpClient, type HttpClientOptions } from './http.js';
import type { SubmitOutcome as HttpOutcome } from './submit.js';
import { topicOf, type Decoded } from './ws-connection.js';
import { WsPool, type TopicHealth } from './ws-pool.js';

export interface ConnectVenueOptions {
  /** REST base URL ending in the version prefix, e.g. `http://127.0.0.1:8080/api/v1`. */
  url: string;
  /** WebSocket URL (the local venue serves `/ws`). */
  wsUrl: string;
  dialect: Dialect;
  /** Network byte of the current dialect, that the venue's actions are signed for. */
  network: Network;
  /** Stamps frames and drives the client's rate limits. Default: the system clock. */
  clock?: Clock;
  /** Timers of the streams' watchdogs and reconnects. Default asyncScheduler. */
  scheduler?: SchedulerLike;
  logger?: Logger;
  /** Client-side request budgets (HttpClient defaults: 20/s for orders and reads, 50/s for cancels). */
  http?: Pick<HttpClientOptions, 'rateLimit' | 'cancelRateLimit' | 'timeoutMs' | 'maxSockets' | 'spareSockets' | 'rateLimitMaxWaitMs' | 'readRetries'>;
  /** Data-age bound of the streams, ms (WsConnectionOptions.silenceMs): a stream not heard from for this long is stale. Default 3000. */
  staleAfterMs?: number;
}

/** The live venue, with the clients under it (the command line, metrics and status pages use them directly). */
export interface LiveVenue extends Venue {
  readonly http: HttpClient;
  readonly pool: WsPool;
  readonly dialect: Dialect;
  readonly network: Network;
  readonly rehearsal: Rehearsal;
}

/** What a held stream feeds: `account.<pk>` an account, `<stream>.<symbol>` a market; undefined for `frontendContext`. */
function feedsOf(topic: string): StreamHealth['feeds'] | undefined {
  const dot = topic.indexOf('.');
  if (dot < 0) return undefined;
  const arg = topic.slice(dot + 1);
  return topic.startsWith('account.') ? { account: arg } : { symbol: arg };
}

function streamHealthOf(topic: string, fresh: boolean, reason: string): StreamHealth | undefined {
  const feeds = feedsOf(topic);
  return feeds && { stream: topic, feeds, fresh, reason };
}

function isMessage(decoded: Decoded | undefined): decoded is StreamMessage {
  return decoded !== undefined && !Array.isArray(decoded);
}

/** The client's outcome in the vocabulary: an accepted answer's statuses become items; the other two pass as they are. */
function outcomeOf(raw: HttpOutcome): SubmitOutcome {
  return raw.outcome === 'accepted' ? { outcome: 'accepted', items: itemResultsOf(raw.response.response.data.statuses) } : raw;
}

/**
 * The messages of one subscription, each handed to `each` with the subscriber: one closure per subscription, no operator
 * per frame. `hold` runs on subscribe and returns what runs on unsubscribe.
 */
function topicStream<T>(
  pool: WsPool,
  subscription: Subscription,
  each: (m: StreamMessage, subscriber: Subscriber<T>) => void,
  hold?: () => () => void,
): Observable<T> {
  return new Observable<T>((subscriber) => {
    const release = hold?.();
    const inner = pool.topic$(subscription).subscribe({
      next: (m) => each(m, subscriber),
      error: (e) => subscriber.error(e),
      complete: () => subscriber.complete(),
    });
    return () => {
      inner.unsubscribe();
      release?.();
    };
  });
}

class LiveMarketData implements MarketDataSource {
  /** Subscribers per held book topic; `topics` lists them for the rehearsal's rotation. */
  private readonly holders = new Map<string, number>();
  private topics: string[] = [];
  private next = 0;
  /** A book frame was translated since the last rehearsal (which then has nothing to warm). */
  private readonly used = new RecentUse();

  constructor(
    private readonly pool: WsPool,
    private readonly http: HttpClient,
    private readonly clock: Clock,
  ) {}

  book$(symbol: string): Observable<BookUpdate> {
    const subscription: Subscription = { type: 'l2Delta', symbol };
    const topic = topicOf(subscription);
    const { pool, clock, used } = this;
    return topicStream<BookUpdate>(
      pool,
      subscription,
      (m, subscriber) => {
        if (m.type !== 'l2Delta') return;
        used.mark();
        subscriber.next(bookUpdateOf(m.data.book, pool.frameArrivalNs ?? clock.nowNs()));
      },
      () => {
        this.hold(topic, 1);
        return () => this.hold(topic, -1);
      },
    );
  }

  resyncBook(symbol: string): void {
    this.pool.resubscribe(topicOf({ type: 'l2Delta', symbol }));
  }

  async bookSnapshot(symbol: string, levels: number): Promise<BookUpdate> {
    const book = await this.http.l2book(symbol, levels);
    return bookUpdateOf(book, this.clock.nowNs());
  }

  trades$(symbol: string): Observable<Trade> {
    return topicStream<Trade>(this.pool, { type: 'trades', symbol }, (m, subscriber) => {
      if (m.type === 'trades') for (const t of m.data.trades) subscriber.next(tradeOf(t));
    });
  }

  ticker$(symbol: string): Observable<Ticker> {
    return topicStream<Ticker>(this.pool, { type: 'ticker', symbol }, (m, subscriber) => {
      if (m.type === 'ticker') subscriber.next(tickerOf(m.data.ticker));
    });
  }

  /**
   * Decodes the last frame of one held book topic again (each in turn) and translates it; the result is dropped.
   * Skipped when a book frame was translated since the last rehearsal.
   */
  rehearse(): void {
    if (!this.used.due() || this.topics.length === 0) return;
    const decoded = this.pool.warm(this.topics[this.next++ % this.topics.length]!);
    if (isMessage(decoded) && decoded.type === 'l2Delta') bookUpdateOf(decoded.data.book, 0n);
  }

  private hold(topic: string, delta: 1 | -1): void {
    const n = (this.holders.get(topic) ?? 0) + delta;
    if (n > 0) this.holders.set(topic, n);
    else this.holders.delete(topic);
    this.topics = [...this.holders.keys()];
  }
}

class LiveAccountData implements AccountDataSource {
  constructor(
    private readonly pool: WsPool,
    private readonly http: HttpClient,
  ) {}

  /** Every account message the vocabulary has a kind for (today's model: all of them). */
  updates$(account: string): Observable<AccountUpdate> {
    return topicStream<AccountUpdate>(this.pool, { type: 'account', user: account }, (m, subscriber) => {
      if (m.type !== 'account') return;
      const update = accountUpdateOf(m.data);
      if (update) subscriber.next(update);
    });
  }

  async fills(account: string): Promise<readonly Fill[]> {
    return (await this.http.account('fills', account)).map((r) => fillOfRow(account, r.fills));
  }

  async openOrders(account: string): Promise<readonly VenueOrder[]> {
    return (await this.http.account('openOrders', account)).map((r) => venueOrderOfOpen(r.openOrder));
  }

  async orderHistory(account: string): Promise<readonly ClosedOrder[]> {
    return (await this.http.account('orderHistory', account)).map((r) => closedOrderOf(r.orderHistory));
  }
}

class LiveSubmitter implements Submitter {
  /** The last request submitted: the rehearsal prepares its bytes again (unless one was submitted since the last). */
  private last: SignedRequest | undefined;
  private readonly used = new RecentUse();

  constructor(private readonly http: HttpClient) {}

  async submit(request: SignedRequest, hooks?: SubmitHooks): Promise<SubmitOutcome> {
    this.last = request;
    this.used.mark();
    return outcomeOf(await this.http.submit(request, hooks));
  }

  rehearse(): void {
    if (this.used.due() && this.last) this.http.warm(this.last);
  }
}

class LiveHealth implements VenueHealth {
  readonly health$: Observable<StreamHealth>;
  readonly connected$: Observable<boolean>;

  constructor(private readonly pool: WsPool) {
    this.health$ = pool.health$.pipe(
      map((h: TopicHealth) => streamHealthOf(h.topic, h.fresh, h.reason)),
      filter((h): h is StreamHealth => h !== undefined),
    );
    this.connected$ = pool.connections$.pipe(
      switchMap((conns) =>
        conns.length === 0 ? of(true) : combineLatest(conns.map((c) => c.state$)).pipe(map((states) => states.every((s) => s === 'open'))),
      ),
      distinctUntilChanged(),
    );
  }

  stale(): ReadonlyMap<string, StreamHealth> {
    const out = new Map<string, StreamHealth>();
    for (const [topic, reason] of this.pool.staleTopics()) {
      const h = streamHealthOf(topic, false, reason);
      if (h) out.set(topic, h);
    }
    return out;
  }
}

/** The parts a live venue is made of: clients already built with the venue's dialect (tests tune their timers). */
export interface LiveVenueParts {
  http: HttpClient;
  pool: WsPool;
  dialect: Dialect;
  network: Network;
  /** The clock `pool` stamps frames with. Default: the system clock. */
  clock?: Clock;
  /** The scheduler `pool` runs on. Default asyncScheduler. */
  scheduler?: SchedulerLike;
  logger?: Logger;
}

/**
 * The live venue over `parts` (closing it closes both clients). `health.connected$` is true while every connection is
 * open, and before the first one exists (connections open as streams are subscribed).
 */
export function liveVenueOf(parts: LiveVenueParts): LiveVenue {
  const { http, pool } = parts;
  const clock = parts.clock ?? systemClock();
  const market = new LiveMarketData(pool, http, clock);
  const submitter = new LiveSubmitter(http);
  return {
    http,
    pool,
    dialect: parts.dialect,
    network: parts.network,
    market,
    account: new LiveAccountData(pool, http),
    submitter,
    markets: async (): Promise<readonly MarketRules[]> => (await http.exchangeInfo()).map(marketRulesOf),
    health: new LiveHealth(pool),
    clock,
    scheduler: parts.scheduler ?? asyncScheduler,
    logger: parts.logger ?? silentLogger,
    rehearsal: {
      rehearse() {
        market.rehearse();
        submitter.rehearse();
      },
    },
    close() {
      pool.close();
      http.close();
    },
  };
}

/** Opens the live venue: an HttpClient and a WsPool for `opts`. Throws RangeError for a URL that is not http(s). */
export function connectVenue(opts: ConnectVenueOptions): LiveVenue {
  const clock = opts.clock ?? systemClock();
  const scheduler = opts.scheduler ?? asyncScheduler;
  const logger = opts.logger ?? silentLogger;
  const http = new HttpClient({ baseUrl: opts.url, dialect: opts.dialect, clock, ...opts.http });
  const pool = new WsPool({
    url: opts.wsUrl,
    dialect: opts.dialect,
    logger,
    clock,
    scheduler,
    ...(opts.staleAfterMs !== undefined && { silenceMs: opts.staleAfterMs }),
  });
  return liveVenueOf({ http, pool, dialect: opts.dialect, network: opts.network, clock, scheduler, logger });
}
