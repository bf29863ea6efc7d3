// The testing kit for strategy authors (`perpbot/testing`): runs a strategy in the real StrategyHost over scripted books, trades, fills and order events in virtual time, and records what it emits.
// Invariants: no real time and no network (every timer runs on the kit's VirtualTimeScheduler); intents are validated exactly as the daemon's host does.

import { ReplaySubject, Subject, VirtualTimeScheduler, type Observable } from 'rxjs';
import type { AccountPosition, AccountState } from '../account/state.js';
import type { Fill } from '../core/account-data.js';
import { ValidationError } from '../core/errors.js';
import type { Intent, OrderEvent, OrderSpec, QuoteSpec } from '../core/intent.js';
import type { MarketRules, Ticker, Trade } from '../core/market-data.js';
import { parse } from '../core/schema.js';
import { L2Book } from '../market/book.js';
import type { BookView, StrategyDefinition, StrategyLogger } from '../strategy/api.js';
import { createStrategyContext, MemoryMetrics, schedulerClock } from '../strategy/context.js';
import { StrategyHost, type StrategyStatus } from '../strategy/host.js';

/** Rules of the local venue's BTC-USD, the default market of a test. */
export const BTC_USD: MarketRules = Object.freeze({ symbol: 'BTC-USD', tickSizeUsd: 0.1, lotSizeBase: 0.0001, minNotionalUsd: 10, maxLeverage: 50 });

/** A price level as `[priceUsd, sizeBase]`. */
export type Level = readonly [number, number];

export interface StrategyTestOptions {
  /** Instance name (the `strategy` of order events). Default the definition's name. */
  name?: string;
  /** Markets the venue lists. Default [BTC_USD]. */
  markets?: readonly MarketRules[];
  /** Virtual time at the start, epoch ms. Default 1_700_000_000_000. */
  startMs?: number;
  /** The account the strategy trades. Default `test-account`. */
  user?: string;
}

/** One line the strategy logged. */
export interface LoggedLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly fields: object;
  readonly message: string;
}

/**
 * A strategy under test. Push market and account events with `book`, `trade`, `ticker`, `fill`, `order`
 * and `position` (delivered at the current virtual time), move time with `advance`, schedule pushes with `at`,
 * and read what it emitted in `intents` (validated: an invalid intent fails the strategy, see `status`).
 */
export class StrategyTest<P = unknown> {
  readonly scheduler = new VirtualTimeScheduler();
  readonly host: StrategyHost;
  readonly name: string;
  readonly params: P;
  /** Every valid intent, in emission order. */
  readonly intents: Intent[] = [];
  readonly logs: LoggedLine[] = [];
  readonly metrics: MemoryMetrics;
  private readonly books = new Map<string, { book: L2Book; subject: Subject<BookView> }>();
  private readonly trades = new Map<string, Subject<Trade>>();
  private readonly tickers = new Map<string, Subject<Ticker>>();
  private readonly fills = new Subject<Fill>();
  private readonly state = new ReplaySubject<AccountState>(1);
  private readonly positions = new Map<string, AccountPosition>();
  private readonly user: string;
  private nextOrderId = 1;

  /** Throws ValidationError naming `params.<key>` when `params` do not fit the definition's schema. */
  constructor(
    readonly definition: StrategyDefinition<P>,
    params: unknown,
    opts: StrategyTestOptions = {},
  ) {
    this.scheduler.frame = opts.startMs ?? 1_700_000_000_000;
    this.params = parse(definition.params, params, 'params');
    this.name = opts.name ?? definition.name;
    this.user = opts.user ?? 'test-account';
    const log: StrategyLogger = {
      debug: (fields, message) => void this.logs.push({ level: 'debug', fields, message }),
      info: (fields, message) => void this.logs.push({ level: 'info', fields, message }),
      warn: (fields, message) => void this.logs.push({ level: 'warn', fields, message }),
      error: (fields, message) => void this.logs.push({ level: 'error', fields, message }),
    };
    this.metrics = new MemoryMetrics(log);
    const clock = schedulerClock(this.scheduler);
    this.host = new StrategyHost({ clock, log });
    this.host.intents$.subscribe(({ intent }) => this.intents.push(intent));
    const symbols = definition.symbols?.(this.params) ?? [];
    const context = createStrategyContext({
      name: this.name,
      symbols,
      market: {
        book$: (symbol) => this.bookOf(symbol).subject.asObservable(),
        trades$: (symbol) => streamOf(this.trades, symbol),
        ticker$: (symbol) => streamOf(this.tickers, symbol),
      },
      account: { state$: () => this.state.asObservable(), fills$: () => this.fills.asObservable() },
      user: this.user,
      orders$: this.host.orders$(this.name),
      markets: opts.markets ?? [BTC_USD],
      clock,
      scheduler: this.scheduler,
      log,
      metrics: this.metrics,
    });
    this.emitState();
    this.host.start({ name: this.name, definition, params: this.params, context, symbols });
  }

  /** Virtual time, epoch ms. */
  get nowMs(): number {
    return this.scheduler.now();
  }

  /** The strategy's state in the host; `reason` says why it failed. */
  get status(): StrategyStatus {
    return this.host.status(this.name)!;
  }

  /** Replaces the book of `symbol` (levels best first) and emits it, stamped with the current virtual time. */
  book(symbol: string, bids: readonly Level[], asks: readonly Level[]): this {
    const { book, subject } = this.bookOf(symbol);
    const levels = (side: readonly Level[]) => side.map(([price, size]) => ({ price, size, orders: 1 }));
    book.apply({ kind: 'snapshot', symbol, bids: levels(bids), asks: levels(asks), venueTimeMs: this.nowMs, arrivalNs: BigInt(this.nowMs) * 1_000_000n });
    subject.next(book);
    return this;
  }

  /** A public trade (the aggressor's side), at the current virtual time. */
  trade(symbol: string, takerSide: Trade['takerSide'], price: number, size: number): this {
    subjectOf(this.trades, symbol).next({ symbol, price, size, takerSide, timeMs: this.nowMs, maker: 'maker', taker: 'taker', liquidation: false });
    return this;
  }

  /** A ticker; fields not given are those of a quiet market at `lastPrice`. */
  ticker(ticker: Pick<Ticker, 'symbol' | 'lastPrice'> & Partial<Ticker>): this {
    const p = ticker.lastPrice;
    subjectOf(this.tickers, ticker.symbol).next({
      markPrice: p,
      oraclePrice: p,
      fundingRate: 0,
      openInterest: 0,
      volume24h: 0,
      volume24hUsd: 0,
      high24hPrice: p,
      low24hPrice: p,
      venueTimeNs: BigInt(this.nowMs) * 1_000_000n,
      ...ticker,
    });
    return this;
  }

  /** Sets the account's position in `symbol` (signed base units, long > 0) and emits the account state. */
  position(symbol: string, size: number, entryPrice = 0): this {
    if (size === 0) this.positions.delete(symbol);
    else this.positions.set(symbol, { symbol, size, entryPrice, realizedPnlUsd: 0, leverage: 1, unrealizedPnlUsd: undefined, liquidationPrice: undefined });
    this.emitState();
    return this;
  }

  /** A fill of the account (maker, no fee unless given); the position moves by it and the new state is emitted after the fill. */
  fill(fill: Pick<Fill, 'symbol' | 'side' | 'price' | 'size'> & Partial<Fill>): this {
    this.fills.next({
      orderId: `fill-${this.nextOrderId++}`,
      feeUsd: 0,
      maker: true,
      cause: 'trade',
      venueTimeNs: BigInt(this.nowMs) * 1_000_000n,
      ...fill,
    });
    const before = this.positions.get(fill.symbol);
    const size = (before?.size ?? 0) + (fill.side === 'buy' ? fill.size : -fill.size);
    return this.position(fill.symbol, Math.round(size * 1e12) / 1e12, before?.entryPrice ?? fill.price);
  }

  /**
   * An event of one of the strategy's orders, as execution reports it (e.g. `{ status: 'filled', ... }`).
   * Returns false when the strategy is not running (the host drops it).
   */
  order(event: Pick<OrderEvent, 'symbol' | 'side' | 'price' | 'size' | 'status'> & Partial<OrderEvent>): boolean {
    return this.host.routeOrderEvent({
      strategy: this.name,
      orderId: `order-${this.nextOrderId++}`,
      clientTag: undefined,
      filledSize: event.status === 'filled' ? event.size : 0,
      reason: undefined,
      timeMs: this.nowMs,
      ...event,
    });
  }

  /** Runs `push` when virtual time reaches `atMs` (epoch ms; during a later `advance`). */
  at(atMs: number, push: (test: this) => void): this {
    if (atMs < this.nowMs) throw new ValidationError('atMs', `must not be in the past (now ${this.nowMs}), got ${atMs}`);
    this.scheduler.schedule(() => push(this), atMs - this.nowMs);
    return this;
  }

  /** Moves virtual time forward by `ms`, running every timer and scheduled push due by then, in time order. */
  advance(ms: number): this {
    if (!(ms >= 0)) throw new ValidationError('ms', `must be >= 0, got ${ms}`);
    const target = this.nowMs + ms;
    this.scheduler.maxFrames = target;
    this.scheduler.flush();
    this.scheduler.frame = target;
    return this;
  }

  /** The last intent, or undefined. */
  last(): Intent | undefined {
    return this.intents.at(-1);
  }

  /** The quotes of the last quote set for `symbol` (undefined when none was emitted). */
  quotes(symbol: string): readonly QuoteSpec[] | undefined {
    for (let i = this.intents.length - 1; i >= 0; i--) {
      const intent = this.intents[i]!;
      if (intent.kind === 'quoteSet' && intent.symbol === symbol) return intent.quotes;
    }
    return undefined;
  }

  /** The orders of every `place`, `replace` and `basket` intent, in order. */
  placed(): OrderSpec[] {
    return this.intents.flatMap((i) => (i.kind === 'place' || i.kind === 'replace' ? [i.order] : i.kind === 'basket' ? i.orders : []));
  }

  /** Removes and returns the intents recorded so far (to assert step by step). */
  take(): Intent[] {
    return this.intents.splice(0);
  }

  /** Stops the strategy as the daemon would; resolves once stopped. */
  stop(reason = 'stopped'): Promise<void> {
    return this.host.stop(this.name, reason);
  }

  private bookOf(symbol: string): { book: L2Book; subject: Subject<BookView> } {
    let b = this.books.get(symbol);
    if (!b) this.books.set(symbol, (b = { book: new L2Book(symbol), subject: new Subject<BookView>() }));
    return b;
  }

  private emitState(): void {
    this.state.next({ user: this.user, orders: new Map(), positions: new Map(this.positions), collateral: new Map(), margin: undefined, leverage: new Map() });
  }
}

function subjectOf<T>(map: Map<string, Subject<T>>, symbol: string): Subject<T> {
  let s = map.get(symbol);
  if (!s) map.set(symbol, (s = new Subject<T>()));
  return s;
}

function streamOf<T>(map: Map<string, Subject<T>>, symbol: string): Observable<T> {
  return subjectOf(map, symbol).asObservable();
}

/** Starts `definition` with `params` under test (see StrategyTest). Throws ValidationError naming `params.<key>` for bad params. */
export function testStrategy<P>(definition: StrategyDefinition<P>, params: unknown, opts?: StrategyTestOptions): StrategyTest<P> {
  return new StrategyTest(definition, params, opts);
}
