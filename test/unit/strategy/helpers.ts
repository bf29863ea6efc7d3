// Fakes for strategy tests: immutable books, a context over scripted streams, a scheduler-driven clock.
// Invariant: no real time and no network; everything is driven by the streams the test provides.

import { NEVER, type Observable, type SchedulerLike } from 'rxjs';
import type {
  AccountState,
  BookLevel,
  BookSide,
  BookView,
  Fill,
  MarketRules,
  OrderEvent,
  StrategyContext,
  StrategyLogger,
  StrategyReport,
  Ticker,
  Trade,
} from '../../../src/strategy/api.js';
import { createStrategyContext, type MemoryMetrics, schedulerClock } from '../../../src/strategy/context.js';

export const BTC: MarketRules = { symbol: 'BTC-USD', tickSizeUsd: 0.1, lotSizeBase: 0.0001, minNotionalUsd: 10, maxLeverage: 50 };
export const ETH: MarketRules = { symbol: 'ETH-USD', tickSizeUsd: 0.01, lotSizeBase: 0.001, minNotionalUsd: 10, maxLeverage: 25 };

/** The arrival time `book` gives a book of `version` (ns): each version its own. */
export const arrivalOf = (version: number): bigint => BigInt(version) * 1_000n;

/** A frozen book: `bids` and `asks` best first as [price, size] pairs. */
export function book(bids: Array<[number, number]>, asks: Array<[number, number]>, version = 1, venueTimeMs = 1_700_000_000_000, symbol = 'BTC-USD'): BookView {
  const side = (levels: Array<[number, number]>): BookLevel[] => levels.map(([price, size]) => ({ price, size, orders: 1 }));
  const b = side(bids);
  const a = side(asks);
  const of = (s: BookSide) => (s === 'bid' ? b : a);
  return {
    symbol,
    version,
    venueTimeMs,
    arrivalNs: arrivalOf(version),
    bestBid: () => b[0],
    bestAsk: () => a[0],
    depth: (s) => of(s).length,
    levels: (s, n = Infinity) => of(s).slice(0, n),
    isCrossed: () => b.length > 0 && a.length > 0 && b[0]!.price >= a[0]!.price,
    snapshot: (n = Infinity) => ({ bids: b.slice(0, n), asks: a.slice(0, n) }),
  };
}

/** An account state holding only `positions` (symbol → signed size). */
export function accountState(positions: Record<string, number> = {}): AccountState {
  return {
    user: 'user',
    orders: new Map(),
    positions: new Map(
      Object.entries(positions).map(([symbol, size]) => [
        symbol,
        { symbol, size, entryPrice: 0, realizedPnlUsd: 0, leverage: 1, unrealizedPnlUsd: undefined, liquidationPrice: undefined },
      ]),
    ),
    collateral: new Map(),
    margin: undefined,
    leverage: new Map(),
  };
}

export interface FakeContextOptions {
  name?: string;
  symbols?: readonly string[];
  scheduler: SchedulerLike;
  books?: Record<string, Observable<BookView>>;
  tickers?: Record<string, Observable<Ticker>>;
  trades?: Record<string, Observable<Trade>>;
  state$?: Observable<AccountState>;
  fills$?: Observable<Fill>;
  orders$?: Observable<OrderEvent>;
  log?: StrategyLogger;
  metrics?: MemoryMetrics;
  /** Receives what the strategy reports (ctx.report). */
  report?: (fields: StrategyReport) => void;
}

export function fakeContext(opts: FakeContextOptions): StrategyContext {
  return createStrategyContext({
    name: opts.name ?? 'test',
    symbols: opts.symbols ?? [],
    market: {
      book$: (symbol) => opts.books?.[symbol] ?? NEVER,
      trades$: (symbol) => opts.trades?.[symbol] ?? NEVER,
      ticker$: (symbol) => opts.tickers?.[symbol] ?? NEVER,
    },
    account: { state$: () => opts.state$ ?? NEVER, fills$: () => opts.fills$ ?? NEVER },
    user: 'user',
    orders$: opts.orders$ ?? NEVER,
    markets: [BTC, ETH],
    clock: schedulerClock(opts.scheduler),
    scheduler: opts.scheduler,
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    ...(opts.report ? { report: opts.report } : {}),
  });
}

/** A logger that keeps every line. */
export function recordingLogger(): StrategyLogger & { lines: Array<{ level: string; fields: object; message: string }> } {
  const lines: Array<{ level: string; fields: object; message: string }> = [];
  const at = (level: string) => (fields: object, message: string) => void lines.push({ level, fields, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
