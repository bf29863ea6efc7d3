// The simulated venue: the venue port over the simulated exchange and its time (a replay's, or real time when paper trading), so the unchanged session code trades
// a recording. Market data reaches the bot after the feed latency, signed actions reach the exchange after the order-entry
// latency, and answers and account updates come back after the response latency.
// Invariants: v1 or current dialect; a v1 request encoded in this process by the v1 codec is read from its encoded action
// (what its body carries), any other is decoded with the protocol's request schema, a current one from its body; current
// transactions run in the local venue's block order (shared code, src/venue-sim/server); order ids are the request's own (the
// protocol's derivation; no second parser); each stream (feed, account, answers) delivers in the order it was produced;
// no socket, and no timer beyond the SimTime it is given (virtual time in a backtest, the machine's in paper trading).

import { BehaviorSubject, concat, defer, EMPTY, NEVER, type Observable, of, Subject } from 'rxjs';
import type { AccountUpdate, ClosedOrder, Fill, ItemResult, VenueOrder } from '../core/account-data.js';
import { ValidationError } from '../core/errors.js';
import { parseJson } from '../core/json.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { BookLevel, BookUpdate, MarketRules, Ticker, Trade } from '../core/market-data.js';
import { parse } from '../core/schema.js';
import type { SignedRequest } from '../protocol/sign.js';
import type { Dialect } from '../core/types.js';
import { actionTag, parseActions, type Action } from '../protocol/current/actions.js';
import { requestBodySchemas, type OrderItem } from '../protocol/v1/actions.js';
import { blockOrder } from '../venue-sim/server/block.js';
import { currentOrderItem, priorityOf, slidPrice } from '../venue-sim/server/current-items.js';
import { encodedAction } from '../protocol/v1/codec.js';
import type { AccountDataSource, MarketDataSource, StreamHealth, SubmitHooks, SubmitOutcome, Venue } from '../venue/port.js';
import { SimExchange, type ExchangeOptions, type ExchangeSink, type SimOrder } from './exchange.js';
import type { Latency } from './models.js';
import type { RecordedEvent } from './recording/events.js';
import type { SimTime } from './sim-time.js';

/** The current actions the exchange runs (as v1 order items); trailing stops, ranges, modifies and settings it does not. */
const EXCHANGE_ACTIONS: ReadonlySet<string> = new Set(['l', 'm', 'st', 'tp', 'cx', 'cxa']);

/** How long the venue keeps an account's fills and ended orders for the queries (newest). */
const HISTORY_LIMIT = 1000;

export interface SimVenueOptions extends Omit<ExchangeOptions, 'account'> {
  /** The replay's virtual time, or real time (paper trading). */
  time: SimTime;
  account: string;
  rules: readonly MarketRules[];
  /** Feed latency of the bot's own book changes (a recorded feed latency has no value for them). */
  feed: Latency;
  entry: Latency;
  response: Latency;
  /**
   * The dialect the session signs (default v1). `current`: the actions reaching the exchange at one instant form a block,
   * run in the local venue's order (§14: transactions shuffled by the block timestamp, then cancels, post-only, the rest).
   */
  dialect?: Dialect;
  /** Results: orders that ended (or were left open), and fills. */
  onOrderDone?: (order: SimOrder) => void;
  onFill?: (fill: Fill, queueAheadBase: number) => void;
  onFunding?: ExchangeSink['funding'];
  logger?: Logger;
}

/** When a delivery runs bot code: its microtasks (1) or, after a promise is settled, the whole pending chain (2) must run before time moves. */
export const DRAIN_MICROTASKS = 1;
export const DRAIN_ALL = 2;

interface PendingBook {
  readonly symbol: string;
  readonly atNs: number;
  /** The update queued first and the deltas that joined it, in order (joined into one when delivered): the first `count`. */
  readonly updates: BookUpdate[];
  count: number;
  sent: boolean;
}

/** The first `count` of `updates` as one update arriving at `arrivalNs`: their levels in order, the last one's venue time. */
function joinedBook(updates: readonly BookUpdate[], count: number, arrivalNs: bigint): BookUpdate {
  const first = updates[0]!;
  if (count === 1) return { ...first, arrivalNs };
  let bidCount = 0;
  let askCount = 0;
  for (let i = 0; i < count; i++) {
    bidCount += updates[i]!.bids.length;
    askCount += updates[i]!.asks.length;
  }
  const bids = new Array<BookLevel>(bidCount);
  const asks = new Array<BookLevel>(askCount);
  let b = 0;
  let a = 0;
  for (let i = 0; i < count; i++) {
    for (const l of updates[i]!.bids) bids[b++] = l;
    for (const l of updates[i]!.asks) asks[a++] = l;
  }
  return { kind: first.kind, symbol: first.symbol, bids, asks, venueTimeMs: updates[count - 1]!.venueTimeMs, arrivalNs };
}

/** What a spare PendingBook array holds once delivered (so it keeps no update alive). */
const NO_UPDATE: BookUpdate = { kind: 'delta', symbol: '', bids: [], asks: [], venueTimeMs: 0, arrivalNs: 0n };

/** One market stream of the bot: a subject the replay feeds, filtered per symbol by the port. */
class Streams {
  readonly books = new Map<string, Subject<BookUpdate>>();
  readonly trades = new Map<string, Subject<Trade>>();
  readonly tickers = new Map<string, Subject<Ticker>>();

  of<T>(map: Map<string, Subject<T>>, symbol: string): Subject<T> {
    let s = map.get(symbol);
    if (s === undefined) map.set(symbol, (s = new Subject<T>()));
    return s;
  }

  complete(): void {
    for (const m of [this.books, this.trades, this.tickers]) for (const s of m.values()) s.complete();
  }
}

export class SimVenue implements Venue {
  readonly clock: SimTime;
  readonly scheduler: SimTime;
  readonly logger: Logger;
  readonly health = {
    health$: NEVER as Observable<StreamHealth>,
    stale: () => new Map<string, StreamHealth>(),
    connected$: new BehaviorSubject(true),
  };
  readonly exchange: SimExchange;
  readonly market: MarketDataSource;
  readonly account: AccountDataSource;
  readonly submitter = { submit: (request: SignedRequest, hooks?: SubmitHooks) => this.submit(request, hooks) };
  /** Actions received and market events replayed, for the results. */
  requests = 0;
  private readonly time: SimTime;
  private readonly streams = new Streams();
  private readonly accountUpdates = new Subject<AccountUpdate>();
  private readonly fillLog: Fill[] = [];
  private readonly ended: ClosedOrder[] = [];
  private feedAtNs = 0;
  private accountAtNs = 0;
  /** Exchange time (ns since origin) of the last account update queued, and when it reaches the bot. */
  private accountFromNs = -1;
  /** Feed delivery time of the recorded event being applied (-1 outside one: own changes draw a feed latency). */
  private currentFeedAtNs = -1;
  private closed = false;
  /** Current-dialect transactions that reached the exchange at this instant, run together as one block. */
  private block: { actions: Action[]; ids: readonly (string | null)[]; resolve: (o: SubmitOutcome) => void }[] = [];
  /** Arrays of delivered PendingBooks, reused (a busy feed joins tens of deltas an instant). */
  private readonly spareUpdates: BookUpdate[][] = [];
  /** The bot's book update queued last, while no other feed item was queued after it: a delta at its time joins it. */
  private pendingBook: PendingBook | undefined;

  constructor(private readonly opts: SimVenueOptions) {
    this.time = this.clock = this.scheduler = opts.time;
    this.logger = opts.logger ?? silentLogger;
    this.exchange = new SimExchange(opts, {
      account: (u) => this.queueAccount(u),
      book: (u) => this.queueBook(u),
      orderDone: (o) => this.orderDone(o),
      fill: (f, queueAheadBase) => {
        this.fillLog.push(f);
        if (this.fillLog.length > HISTORY_LIMIT) this.fillLog.shift();
        opts.onFill?.(f, queueAheadBase);
      },
      funding: opts.onFunding,
    });
    const streams = this.streams;
    const time = this.time;
    this.market = {
      book$: (symbol) =>
        concat(
          defer(() => {
            const view = this.exchange.bookView(symbol, Number.POSITIVE_INFINITY, time.nowMs());
            return view !== undefined && view.bids.length + view.asks.length > 0 ? of({ ...view, arrivalNs: time.nowNs() }) : EMPTY;
          }),
          streams.of(streams.books, symbol),
        ),
      resyncBook: (symbol) => {
        const view = this.exchange.bookView(symbol, Number.POSITIVE_INFINITY, time.nowMs());
        if (view !== undefined) this.queueBook(view);
      },
      bookSnapshot: (symbol, levels) => {
        const view = this.exchange.bookView(symbol, levels, time.nowMs());
        if (view === undefined) return Promise.reject(new ValidationError('symbol', `the recording has no market ${symbol}`));
        return new Promise((resolve) => time.at(Math.max(time.nowRelNs, this.feedAtNs), () => resolve({ ...view, arrivalNs: time.nowNs() }), DRAIN_ALL));
      },
      trades$: (symbol) => streams.of(streams.trades, symbol),
      ticker$: (symbol) => streams.of(streams.tickers, symbol),
    };
    this.account = {
      updates$: (account) =>
        account !== opts.account
          ? NEVER
          : concat(
              defer(() => of(this.exchange.snapshot())),
              this.accountUpdates,
            ),
      fills: async () => [...this.fillLog].reverse(),
      openOrders: async (): Promise<readonly VenueOrder[]> => this.exchange.openOrders(),
      orderHistory: async () => [...this.ended].reverse(),
    };
  }

  async markets(): Promise<readonly MarketRules[]> {
    return this.opts.rules;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.streams.complete();
    this.accountUpdates.complete();
  }

  /**
   * Applies one recorded event at the exchange now (its exchange time) and queues what the bot sees of it at `feedAtNs`
   * (ns since the time's origin; not before the previous feed delivery).
   */
  replay(e: RecordedEvent, feedAtNs: number): void {
    const nowNs = this.time.nowNs();
    this.currentFeedAtNs = feedAtNs;
    switch (e.kind) {
      case 'book':
        this.exchange.applyBook(e.book, nowNs);
        break;
      case 'trade':
        this.exchange.applyTrade(e.trade, nowNs);
        this.queueFeed(e.trade.symbol, this.streams.trades, e.trade);
        break;
      case 'ticker':
        this.exchange.applyTicker(e.ticker, nowNs);
        this.queueFeed(e.ticker.symbol, this.streams.tickers, e.ticker);
        break;
    }
    this.currentFeedAtNs = -1;
  }

  private queueFeed<T extends { symbol: string }>(symbol: string, map: Map<string, Subject<T>>, value: T): void {
    const subject = map.get(symbol);
    const time = this.time;
    const at = Math.max(this.feedAtNs, this.currentFeedAtNs >= 0 ? this.currentFeedAtNs : time.nowRelNs + this.opts.feed());
    this.feedAtNs = at;
    if (subject === undefined || !subject.observed || this.closed) return;
    this.pendingBook = undefined;
    time.at(at, () => subject.next(value), DRAIN_MICROTASKS);
  }

  /**
   * Queues a change of the bot's book. Book deltas of one symbol that reach the bot at the same instant, with nothing
   * else the bot receives of the feed between them (a trade or ticker stream it does not observe is not between them), reach
   * it as one delta (their levels in order: the last size of a level wins).
   */
  private queueBook(update: BookUpdate): void {
    const time = this.time;
    const at = Math.max(this.feedAtNs, this.currentFeedAtNs >= 0 ? this.currentFeedAtNs : time.nowRelNs + this.opts.feed());
    this.feedAtNs = at;
    const pending = this.pendingBook;
    if (
      pending !== undefined &&
      !pending.sent &&
      pending.atNs === at &&
      pending.symbol === update.symbol &&
      update.kind === 'delta' &&
      pending.updates[0]!.kind === 'delta'
    ) {
      pending.updates[pending.count++] = update;
      return;
    }
    this.pendingBook = undefined;
    const subject = this.streams.books.get(update.symbol);
    if (subject === undefined || !subject.observed || this.closed) return;
    const updates = this.spareUpdates.pop() ?? [];
    updates[0] = update;
    const entry: PendingBook = { symbol: update.symbol, atNs: at, updates, count: 1, sent: false };
    this.pendingBook = entry;
    time.at(
      at,
      () => {
        entry.sent = true;
        const joined = joinedBook(updates, entry.count, time.nowNs());
        updates.fill(NO_UPDATE, 0, entry.count);
        this.spareUpdates.push(updates);
        subject.next(joined);
      },
      DRAIN_MICROTASKS,
    );
  }

  private queueAccount(update: AccountUpdate): void {
    const time = this.time;
    if (this.accountFromNs !== time.nowRelNs) {
      this.accountFromNs = time.nowRelNs;
      this.accountAtNs = Math.max(this.accountAtNs, time.nowRelNs + this.opts.response());
    }
    if (this.closed) return;
    time.at(this.accountAtNs, () => this.accountUpdates.next(update), DRAIN_MICROTASKS);
  }

  private orderDone(o: SimOrder): void {
    if (o.status !== 'placed' && o.status !== 'working') {
      this.ended.push({
        orderId: o.id,
        symbol: o.m.symbol,
        side: o.side,
        orderType: o.kind,
        tif: o.tif,
        price: o.price,
        avgFillPrice: o.avgFillPrice,
        originalSize: o.size,
        filledSize: o.m.size(o.filledLots),
        reduceOnly: o.reduceOnly,
        status: o.status,
        reason: o.reason,
        venueTimeNs: o.endedNs,
      });
      if (this.ended.length > HISTORY_LIMIT) this.ended.shift();
    }
    this.opts.onOrderDone?.(o);
  }

  /** Decodes the signed current transaction now; it joins the block of the instant it reaches the exchange (entry latency). */
  private submitCurrent(request: SignedRequest): Promise<SubmitOutcome> {
    let actions: Action[];
    try {
      actions = parseActions((parseJson(request.bodyText) as { actions?: unknown }).actions);
    } catch (e) {
      return invalidRequest(e);
    }
    return this.afterEntry((resolve) => {
      if (this.block.length === 0) this.time.at(this.time.nowRelNs, () => this.runBlock(), 0);
      this.block.push({ actions, ids: request.encoded.orderIds, resolve });
    });
  }

  /** Runs `arrive` when a request sent now reaches the exchange (entry latency); it settles the request's outcome. */
  private afterEntry(arrive: (resolve: (outcome: SubmitOutcome) => void) => void): Promise<SubmitOutcome> {
    return new Promise((resolve) => this.time.at(this.time.nowRelNs + this.opts.entry(), () => arrive(resolve), 0));
  }

  /** Runs the block of this instant in the local venue's order; each transaction's answer lists its actions in their own order. */
  private runBlock(): void {
    const txs = this.block;
    this.block = [];
    const time = this.time;
    const nowNs = time.nowNs();
    const results = txs.map((tx) => new Array<ItemResult>(tx.actions.length));
    const slide = (symbol: string, isBuy: boolean, px: number) => {
      const view = this.exchange.bookView(symbol, 1, time.nowMs());
      const tick = this.opts.rules.find((r) => r.symbol === symbol)?.tickSizeUsd;
      return tick === undefined ? px : slidPrice(isBuy, px, (isBuy ? view?.asks : view?.bids)?.[0]?.price, tick);
    };
    for (const [t, a] of blockOrder(
      txs.map((tx) => tx.actions.map(priorityOf)),
      nowNs,
    )) {
      const tx = txs[t]!;
      const action = tx.actions[a]!;
      const tag = actionTag(action);
      const order = EXCHANGE_ACTIONS.has(tag) ? currentOrderItem(action, slide) : undefined;
      results[t]![a] =
        order === undefined
          ? { kind: 'error', message: `${tag} is not supported by the backtest's exchange` }
          : 'refused' in order
            ? { kind: 'error', message: order.refused }
            : this.exchange.submit([order.item as OrderItem], [tx.ids[a] ?? null], nowNs)[0]!;
    }
    txs.forEach((tx, t) => time.at(time.nowRelNs + this.opts.response(), () => tx.resolve({ outcome: 'accepted', items: results[t]! }), DRAIN_ALL));
  }

  /** Decodes the signed v1 order action now; it reaches the exchange after the entry latency, its answer the bot after the response latency. */
  private submit(request: SignedRequest, hooks: SubmitHooks | undefined): Promise<SubmitOutcome> {
    hooks?.onWritten?.();
    this.requests++;
    if (this.opts.dialect === 'current') return this.submitCurrent(request);
    let decoded: { items: Parameters<SimExchange['submit']>[0]; ids: (string | null)[] };
    try {
      const own = request.encoded === undefined ? undefined : encodedAction(request.encoded);
      const items = own?.type === 'order' ? own.orders : parse(requestBodySchemas.order, parseJson(request.bodyText), 'body').action.orders;
      decoded = { items, ids: request.encoded.orderIds };
    } catch (e) {
      return invalidRequest(e);
    }
    const time = this.time;
    return this.afterEntry((resolve) => {
      const items = this.exchange.submit(decoded.items, decoded.ids, time.nowNs());
      time.at(time.nowRelNs + this.opts.response(), () => resolve({ outcome: 'accepted', items }), DRAIN_ALL);
    });
  }
}

/** What the venue answers a body it cannot read: rejected, 400 INVALID_REQUEST, with the parser's message. */
function invalidRequest(e: unknown): Promise<SubmitOutcome> {
  const reason = e instanceof Error ? e.message : String(e);
  return Promise.resolve({ outcome: 'rejected', reason, httpStatus: 400, code: 'INVALID_REQUEST', retryAfterMs: undefined });
}
