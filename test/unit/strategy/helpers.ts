// Fakes for strategy tests: immutable books, a context over scripted streams, a scheduler-driven clock.
// Invariant: no real time and no network; everything is driven by the streams the test provides.

import { NEVER, type Observable, type SchedulerLike } from 'rxjs';
import type { AccountState } from '../../../src/account/state.js';
import type { MarketInfo } from '../../../src/client/exchange-info.js';
import type { OrderEvent } from '../../../src/core/intent.js';
import type { BookSide, BookView, Level } from '../../../src/market/book.js';
import type { FillUpdate, Ticker, Trade } from '../../../src/protocol/v1/stream.js';
import type { StrategyContext, StrategyLogger } from '../../../src/strategy/api.js';
import { createStrategyContext, type MemoryMetrics, schedulerClock } from '../../../src/strategy/context.js';

export const BTC: MarketInfo = { symbol: 'BTC-USD', tickSize: 0.1, lotSize: 0.0001, minNotional: 10, maxLeverage: 50 };
export const ETH: MarketInfo = { symbol: 'ETH-USD', tickSize: 0.01, lotSize: 0.001, minNotional: 10, maxLeverage: 25 };

/** A frozen book: `bids` and `asks` best first as [px, sz] pairs. */
export function book(bids: Array<[number, number]>, asks: Array<[number, number]>, version = 1, timestamp = 1_700_000_000_000, symbol = 'BTC-USD'): BookView {
  const side = (levels: Array<[number, number]>): Level[] => levels.map(([px, sz]) => ({ px, sz, n: 1 }));
  const b = side(bids);
  const a = side(asks);
  const of = (s: BookSide) => (s === 'bid' ? b : a);
  return {
    symbol,
    version,
    timestamp,
    bestBid: () => b[0],
    bestAsk: () => a[0],
    depth: (s) => of(s).length,
    levels: (s, n = Infinity) => of(s).slice(0, n),
    isCrossed: () => b.length > 0 && a.length > 0 && b[0]!.px >= a[0]!.px,
    snapshot: (n = Infinity) => ({ bids: b.slice(0, n), asks: a.slice(0, n) }),
  };
}

/** An account state holding only `positions` (symbol → signed size). */
export function accountState(positions: Record<string, number> = {}): AccountState {
  return {
    user: 'user',
    orders: new Map(),
    positions: new Map(
      Object.entries(positions).map(([symbol, size]) => [symbol, { symbol, size, price: 0, realizedPnl: 0, leverage: 1, unrealizedPnl: undefined, liquidationPrice: undefined }]),
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
  state$?: Observable<AccountState>;
  fills$?: Observable<FillUpdate>;
  orders$?: Observable<OrderEvent>;
  log?: StrategyLogger;
  metrics?: MemoryMetrics;
}

export function fakeContext(opts: FakeContextOptions): StrategyContext {
  return createStrategyContext({
    name: opts.name ?? 'test',
    symbols: opts.symbols ?? [],
    market: {
      book$: (symbol) => opts.books?.[symbol] ?? NEVER,
      trades$: () => NEVER as Observable<Trade>,
      ticker$: () => NEVER as Observable<Ticker>,
    },
    account: { state$: () => opts.state$ ?? NEVER, fills$: () => opts.fills$ ?? NEVER },
    user: 'user',
    orders$: opts.orders$ ?? NEVER,
    markets: [BTC, ETH],
    clock: schedulerClock(opts.scheduler),
    scheduler: opts.scheduler,
    ...(opts.log ? { log: opts.log } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
  });
}

/** A logger that keeps every line. */
export function recordingLogger(): StrategyLogger & { lines: Array<{ level: string; fields: object; message: string }> } {
  const lines: Array<{ level: string; fields: object; message: string }> = [];
  const at = (level: string) => (fields: object, message: string) => void lines.push({ level, fields, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
