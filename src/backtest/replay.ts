// The backtest runner: streams recorded events through the simulated venue in replay time while the unchanged trading
// session (strategies, risk, execution) trades it, and reports orders, fills and the equity curve as they happen.
// Invariants: the data is read one event at a time (memory stays flat for any length); the outputs depend only on the
// data, the options and the seed (no wall-clock time, no unseeded randomness); time moves only when the bot's pending
// work of the previous instant has run.

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Observable } from 'rxjs';
import type { Fill } from '../core/account-data.js';
import { type IntentRef, type OrderEvent, TERMINAL_STATUSES } from '../core/intent.js';
import { ConfigError } from '../core/errors.js';
import type { MarketRules } from '../core/market-data.js';
import type { Dialect } from '../core/types.js';
import { createHash } from 'node:crypto';
import { Keypair } from '../protocol/keys.js';
import { HOUR_NS } from '../venue-sim/engine/markets.js';
import type { MarketConfig } from '../venue-sim/engine/types.js';
import type { Venue } from '../venue/port.js';
import type { SimOrder } from './exchange.js';
import { journalLatencySource } from './journal-latency.js';
import { latency, queueModel, type FeedLatencyConfig, type LatencyConfig, type QueueModelConfig } from './models.js';
import type { RecordedEvent, RecordedMarket } from './recording/events.js';
import { DRAIN_ALL, DRAIN_MICROTASKS, SimVenue } from './sim-venue.js';
import { VirtualTime } from './virtual-time.js';
import { Prng } from '../venue-sim/engine/ids.js';

/**
 * Microtask turns the replay waits after each delivery to the bot before time moves on: a book change reaches a strategy
 * one turn later (the session conflates books on a microtask) and its orders are sent one turn after that (execution
 * flushes on a microtask); the third is slack. Settled promises (answers, queries) get a whole event-loop turn instead.
 */
const MICROTASK_TURNS = 3;

/** Execution's id of an order that never reached the wire (`local:<key>`). */
const LOCAL_ID_PREFIX = 'local:';

export interface BacktestModels {
  queue: QueueModelConfig;
  feed: FeedLatencyConfig;
  entry: LatencyConfig;
  response: LatencyConfig;
}

/** Default fee fractions and funding interval for recorded markets that do not carry theirs. */
export interface MarketDefaults {
  makerFeeRate: number;
  takerFeeRate: number;
  fundingIntervalMs: number;
}

/** Who sent an order: the strategy, and the intent that placed it when one did (OrderEvent.intent). */
export interface OrderOrigin {
  readonly strategy: string;
  readonly intent: IntentRef | undefined;
}

/** What the runner reports while it runs (the results writer). */
export interface BacktestSink {
  /** An order ended (or was left open at the end); `origin`: the strategy that sent it and the intent that placed it. */
  order(order: SimOrder, origin: OrderOrigin | undefined): void;
  /**
   * A fill, the recorded book's mid price of its market when it happened (USD), and the recorded size ahead of the
   * order in its queue when it filled (0 for a taker fill).
   */
  fill(fill: Fill, midUsd: number, queueAheadBase: number): void;
  /** A funding payment: USD received (negative: paid), the rate applied, exchange time (epoch ns). */
  funding?(symbol: string, amountUsd: number, rate: number, timeNs: bigint): void;
  /**
   * Equity sample: time (epoch ns), equity USD, position per symbol (base units) and the recorded book's mid price per
   * symbol (USD), both in the markets' order.
   */
  equity(timeNs: bigint, equityUsd: number, positions: readonly number[], midsUsd: readonly number[]): void;
  /** An order the session refused before it reached the exchange (risk, or execution's own checks): its final event. */
  denied?(event: OrderEvent): void;
  /** Every `progressEvery` events and at the end. */
  progress?(events: number, timeNs: bigint): void;
}

export interface BacktestOptions {
  events: Iterable<RecordedEvent> | AsyncIterable<RecordedEvent>;
  markets: readonly RecordedMarket[];
  defaults: MarketDefaults;
  /**
   * Starts the trading session on the simulated venue with the backtest's key (the composition root passes startTrading
   * with `dialect`, deterministic signing and the config's strategies, risk and execution).
   */
  startSession: (
    venue: Venue,
    key: Keypair,
  ) => Promise<{ stop(opts: { deadlineMs: number }): Promise<unknown>; execution: { events$(): Observable<OrderEvent> } }>;
  /** The dialect the session signs (default v1; `current` runs its transactions in blocks, docs/backtest.md). */
  dialect?: Dialect;
  collateralUsd: number;
  models: BacktestModels;
  seed: number;
  /** Interval of the equity samples, ms. */
  equityIntervalMs: number;
  sink: BacktestSink;
  progressEvery?: number;
  /** Stops the replay early (Ctrl-C); the session still stops cleanly and the results are marked partial. */
  signal?: AbortSignal;
}

export interface BacktestResult {
  events: number;
  firstEventNs: bigint | undefined;
  lastEventNs: bigint | undefined;
  /** True when stopped by the signal before the data ended. */
  partial: boolean;
  startEquityUsd: number;
  endEquityUsd: number;
  feesUsd: number;
  fundingUsd: number;
  tradedNotionalUsd: number;
  fills: number;
  liquidations: number;
  requests: number;
  /** The simulated account (base58). */
  account: string;
  symbols: readonly string[];
}

/** The engine's market configuration for a recorded market: its rules, its fees (or the defaults), margin from its leverage. */
export function marketConfig(m: RecordedMarket, d: MarketDefaults): MarketConfig {
  const im = 1 / m.maxLeverage;
  return {
    symbol: m.symbol,
    tickSize: m.tickSizeUsd,
    lotSize: m.lotSizeBase,
    minNotionalUsd: m.minNotionalUsd,
    maxLeverage: m.maxLeverage,
    makerFeeRate: m.makerFeeRate ?? d.makerFeeRate,
    takerFeeRate: m.takerFeeRate ?? d.takerFeeRate,
    initialMarginFraction: im,
    maintenanceMarginFraction: im / 2,
    fundingIntervalNs:
      m.fundingIntervalMs !== undefined
        ? BigInt(Math.round(m.fundingIntervalMs)) * 1_000_000n
        : d.fundingIntervalMs > 0
          ? BigInt(Math.round(d.fundingIntervalMs)) * 1_000_000n
          : HOUR_NS,
  };
}

/** The venue's own time of a recorded event, epoch ns. */
function venueNs(e: RecordedEvent): bigint {
  switch (e.kind) {
    case 'book':
      return BigInt(e.book.venueTimeMs) * 1_000_000n;
    case 'trade':
      return BigInt(e.trade.timeMs) * 1_000_000n;
    case 'ticker':
      return e.ticker.venueTimeNs;
  }
}

/** The backtest's signing key: derived from the seed, so order ids (and every output) repeat run after run. */
export function backtestKey(seed: number): Keypair {
  return Keypair.fromBytes(createHash('sha256').update(`perpbot-backtest/${seed}`).digest());
}

/** The replay's place in the data: the exchange and feed times reached (ns since the time's origin). */
class Cursor {
  exchangeNs = 0;
  feedNs = 0;
  /** The times of the event being applied are set (work due before it may still be running). */
  timed = false;
}

type EventIterator = Iterator<RecordedEvent> | AsyncIterator<RecordedEvent>;

function iterate(events: BacktestOptions['events']): EventIterator {
  return Symbol.asyncIterator in events ? events[Symbol.asyncIterator]() : events[Symbol.iterator]();
}

async function nextEvent(it: EventIterator): Promise<RecordedEvent | undefined> {
  let r = it.next();
  if (r instanceof Promise) r = await r;
  return r.done ? undefined : r.value;
}

/** Replays `opts.events` through the strategies; throws ConfigError for strategies of several accounts or unknown markets. */
export async function runBacktest(opts: BacktestOptions): Promise<BacktestResult> {
  const it = iterate(opts.events);
  const first = await nextEvent(it);
  const symbols = opts.markets.map((m) => m.symbol);
  const key = backtestKey(opts.seed);
  const result: BacktestResult = {
    events: 0,
    firstEventNs: undefined,
    lastEventNs: undefined,
    partial: false,
    startEquityUsd: opts.collateralUsd,
    endEquityUsd: opts.collateralUsd,
    feesUsd: 0,
    fundingUsd: 0,
    tradedNotionalUsd: 0,
    fills: 0,
    liquidations: 0,
    requests: 0,
    account: key.publicKey,
    symbols,
  };
  if (first === undefined) return result;
  const firstNs = venueNs(first) < first.recvNs ? venueNs(first) : first.recvNs;
  const time = new VirtualTime(firstNs - 1_000_000_000n);
  const rng = new Prng(opts.seed);
  const journal = journalLatencySource(time);
  const feedModel = opts.models.feed;
  const feed = latency(feedModel.model === 'recorded' ? { model: 'constant', ms: 0 } : feedModel, rng, 'backtest.latency.feed');
  const venue = new SimVenue({
    time,
    account: key.publicKey,
    rules: opts.markets.map(
      (m): MarketRules => ({
        symbol: m.symbol,
        tickSizeUsd: m.tickSizeUsd,
        lotSizeBase: m.lotSizeBase,
        minNotionalUsd: m.minNotionalUsd,
        maxLeverage: m.maxLeverage,
      }),
    ),
    markets: opts.markets.map((m) => marketConfig(m, opts.defaults)),
    collateralUsd: opts.collateralUsd,
    ...(opts.dialect && { dialect: opts.dialect }),
    queue: queueModel(opts.models.queue),
    feed,
    entry: latency(opts.models.entry, rng, 'backtest.latency.entry', journal),
    response: latency(opts.models.response, rng, 'backtest.latency.response', journal),
    onOrderDone: (o) => {
      opts.sink.order(o, origins.get(o.id));
      origins.delete(o.id);
    },
    onFill: (f, queueAheadBase) => opts.sink.fill(f, venue.exchange.midPrice(f.symbol) ?? 0, queueAheadBase),
    onFunding: (symbol, amountUsd, rate, timeNs) => opts.sink.funding?.(symbol, amountUsd, rate, timeNs),
  });
  const exchange = venue.exchange;
  const session = await opts.startSession(venue, key);
  /** The origin of each order the bot sent (its id is known at signing, before the exchange sees it) until it ends. */
  const origins = new Map<string, OrderOrigin>();
  const originEvents = session.execution.events$().subscribe((e) => {
    if (e.status === 'pendingNew' && !e.orderId.startsWith(LOCAL_ID_PREFIX)) origins.set(e.orderId, { strategy: e.strategy, intent: e.intent });
  });
  const denials = session.execution.events$().subscribe((e) => {
    if (e.orderId.startsWith(LOCAL_ID_PREFIX) && TERMINAL_STATUSES.has(e.status)) opts.sink.denied?.(e);
  });

  const drain = async (level: number) => {
    if (level === DRAIN_MICROTASKS) for (let i = 0; i < MICROTASK_TURNS; i++) await undefined;
    else if (level === DRAIN_ALL) await nextTurn();
  };
  const runUntil = async (untilNs: number) => {
    for (let level = time.runNext(untilNs); level >= 0; level = time.runNext(untilNs)) if (level > 0) await drain(level);
  };
  await drain(DRAIN_ALL);

  const positions = () => symbols.map((s) => exchange.positionSize(s));
  const mids = () => symbols.map((s) => exchange.midPrice(s) ?? 0);
  const equityNs = Math.max(1, Math.round(opts.equityIntervalMs * 1e6));
  const sample = () => {
    opts.sink.equity(time.nowNs(), exchange.equityUsd(), positions(), mids());
    time.at(time.nowRelNs + equityNs, sample, 0);
  };
  opts.sink.equity(time.nowNs(), exchange.equityUsd(), positions(), mids());
  time.at(time.nowRelNs + equityNs, sample, 0);

  const recordedFeed = feedModel.model === 'recorded';
  const progressEvery = opts.progressEvery ?? 100_000;
  const c = new Cursor();
  /**
   * Applies event c.e at the exchange and returns 0, unless work due before its exchange time needs the bot's pending
   * work drained first: then returns that drain (call again once drained). Work due at that instant runs once the
   * instant's recorded events have all reached the exchange (so the deltas of one instant reach the bot as one).
   * Synchronous, and the times live in `c`, so an event costs no promise and no boxed number.
   */
  const apply = (e: RecordedEvent): number => {
    if (!c.timed) {
      const v = e.kind === 'book' ? time.relMs(e.book.venueTimeMs) : e.kind === 'trade' ? time.relMs(e.trade.timeMs) : time.rel(e.ticker.venueTimeNs);
      const recv = time.rel(e.recvNs);
      c.exchangeNs = Math.max(c.exchangeNs, recordedFeed ? Math.min(v, recv) : v);
      c.feedNs = Math.max(c.feedNs, recordedFeed ? recv : c.exchangeNs + feed());
      c.timed = true;
    }
    for (let level = time.runNext(c.exchangeNs - 1); level >= 0; level = time.runNext(c.exchangeNs - 1)) if (level > 0) return level;
    c.timed = false;
    time.advanceTo(c.exchangeNs);
    venue.replay(e, c.feedNs);
    result.lastEventNs = e.recvNs;
    result.firstEventNs ??= e.recvNs;
    if (++result.events % progressEvery === 0) opts.sink.progress?.(result.events, e.recvNs);
    return 0;
  };
  const sync = !(Symbol.asyncIterator in opts.events);
  for (let e: RecordedEvent | undefined = first; e !== undefined; ) {
    const level = apply(e);
    if (level > 0) {
      await drain(level);
      continue;
    }
    if (opts.signal?.aborted) {
      result.partial = true;
      break;
    }
    e = sync ? (it as Iterator<RecordedEvent>).next().value : await nextEvent(it);
  }
  await runUntil(c.feedNs);
  opts.sink.progress?.(result.events, result.lastEventNs ?? time.nowNs());

  let stopped = false;
  const stopping = session.stop({ deadlineMs: 10_000 }).finally(() => (stopped = true));
  const pumpEndNs = time.nowRelNs + 60_000_000_000;
  while (!stopped) {
    const next = time.nextAtNs();
    if (next === undefined || next > pumpEndNs) {
      await nextTurn();
      continue;
    }
    await drain(time.runNext(next));
  }
  await stopping;
  denials.unsubscribe();
  exchange.finish();
  originEvents.unsubscribe();
  opts.sink.equity(time.nowNs(), exchange.equityUsd(), positions(), mids());
  const qs = exchange.st.quoteScale;
  return {
    ...result,
    endEquityUsd: exchange.equityUsd(),
    feesUsd: Number(exchange.feesUnits) / qs,
    fundingUsd: Number(exchange.fundingUnits) / qs,
    tradedNotionalUsd: exchange.tradedNotionalUsd,
    fills: exchange.fills,
    liquidations: exchange.liquidations,
    requests: venue.requests,
  };
}

/** The strategies' one account; throws ConfigError when they trade several (a backtest simulates one account). */
export function singleAccount(strategies: readonly { account: string }[]): string {
  const accounts = [...new Set(strategies.map((s) => s.account))];
  if (accounts.length !== 1) throw new ConfigError('strategies', `a backtest simulates one account; the strategies trade ${accounts.join(', ')}`);
  return accounts[0]!;
}
