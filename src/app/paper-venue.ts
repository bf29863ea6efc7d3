// Paper trading: the venue port over a live venue's market data and the backtest's simulated exchange (queue and latency
// models, fees, statuses, margin), which that market data drives in real time; the bot's signed orders reach only it.
// Invariants: no submitter of the live venue is reachable through the port; the exchange applies every book update before
// the bot sees it; account streams and queries are the simulated account's.

import { type Observable, share, Subject, type Subscription, tap } from 'rxjs';
import type { LiveVenue } from '../client/venue.js';
import type { BookUpdate } from '../core/market-data.js';
import { journalLatencySource } from '../backtest/journal-latency.js';
import { latency, queueModel } from '../backtest/models.js';
import { marketConfig, type BacktestModels, type MarketDefaults } from '../backtest/replay.js';
import { RealTime } from '../backtest/sim-time.js';
import { SimVenue } from '../backtest/sim-venue.js';
import { Prng } from '../venue-sim/engine/ids.js';
import type { MarketDataSource } from '../venue/port.js';

export interface PaperVenueOptions {
  /** The traded account (base58): the simulated exchange's only account. */
  account: string;
  /** The markets the strategies trade: their public trades and tickers drive the exchange even when no strategy reads them. */
  symbols: readonly string[];
  /** The simulated account's starting collateral, USD. */
  collateralUsd: number;
  /** The simulated account's leverage by symbol (the config's start-up setting, applied here instead of at the venue). */
  leverage: Readonly<Record<string, number>>;
  /** The backtest's queue model and order-entry and response latencies (the feed's latency is the real one). */
  models: Pick<BacktestModels, 'queue' | 'entry' | 'response'>;
  /** Fees and funding interval of the markets (the live venue lists neither). */
  defaults: MarketDefaults;
  /** Seed of the latency draws. */
  seed: number;
}

/** A funding payment of the simulated account: USD received (negative: paid), the rate applied, exchange time (epoch ns). */
export interface PaperFunding {
  readonly symbol: string;
  readonly amountUsd: number;
  readonly rate: number;
  readonly timeNs: bigint;
}

/** A live venue whose account and submitter are the simulated exchange's (`paper`); its `http` is for public reads. */
export interface PaperVenue extends LiveVenue {
  readonly paper: SimVenue;
  /** The simulated account's funding payments (the simulated exchange keeps no funding history to query). */
  readonly funding$: Observable<PaperFunding>;
}

export function isPaperVenue(v: LiveVenue): v is PaperVenue {
  return 'paper' in v;
}

/**
 * The paper venue over `live` (which it owns from here: close() closes both). Reads the live venue's markets once;
 * throws what that read throws.
 */
export async function paperVenue(live: LiveVenue, opts: PaperVenueOptions): Promise<PaperVenue> {
  const rules = await live.markets();
  const time = new RealTime(live.clock, live.scheduler);
  const rng = new Prng(opts.seed);
  const journal = journalLatencySource(time);
  const funding = new Subject<PaperFunding>();
  const sim = new SimVenue({
    time,
    account: opts.account,
    rules,
    markets: rules.map((m) => marketConfig(m, opts.defaults)),
    collateralUsd: opts.collateralUsd,
    queue: queueModel(opts.models.queue),
    feed: () => 0,
    entry: latency(opts.models.entry, rng, 'backtest.latency.entry', journal),
    response: latency(opts.models.response, rng, 'backtest.latency.response', journal),
    logger: live.logger,
    onFunding: (symbol, amountUsd, rate, timeNs) => funding.next({ symbol, amountUsd, rate, timeNs }),
  });
  for (const [symbol, leverage] of Object.entries(opts.leverage)) sim.exchange.setLeverage(symbol, leverage);
  const feeds: Subscription[] = [];
  const fail = (stream: string) => (e: Error) =>
    live.logger.warn({ stream, error: e.message }, 'paper trading: a market stream feeding the simulated exchange failed');
  for (const symbol of opts.symbols) {
    feeds.push(
      live.market
        .trades$(symbol)
        .subscribe({ next: (trade) => sim.replay({ kind: 'trade', recvNs: time.nowNs(), trade }, time.nowRelNs), error: fail(`trades.${symbol}`) }),
      live.market
        .ticker$(symbol)
        .subscribe({ next: (ticker) => sim.replay({ kind: 'ticker', recvNs: time.nowNs(), ticker }, time.nowRelNs), error: fail(`ticker.${symbol}`) }),
    );
  }
  const books = new Map<string, Observable<BookUpdate>>();
  const market: MarketDataSource = {
    book$: (symbol) => {
      let book = books.get(symbol);
      if (book === undefined) {
        book = live.market.book$(symbol).pipe(
          tap((update) => sim.replay({ kind: 'book', recvNs: time.nowNs(), book: update }, time.nowRelNs)),
          share(),
        );
        books.set(symbol, book);
      }
      return book;
    },
    resyncBook: (symbol) => live.market.resyncBook(symbol),
    bookSnapshot: (symbol, levels) => live.market.bookSnapshot(symbol, levels),
    trades$: (symbol) => live.market.trades$(symbol),
    ticker$: (symbol) => live.market.ticker$(symbol),
  };
  return {
    paper: sim,
    funding$: funding.asObservable(),
    http: live.http,
    pool: live.pool,
    dialect: live.dialect,
    network: live.network,
    rehearsal: live.rehearsal,
    market,
    account: sim.account,
    submitter: sim.submitter,
    markets: () => live.markets(),
    health: live.health,
    clock: live.clock,
    scheduler: live.scheduler,
    logger: live.logger,
    close() {
      for (const f of feeds) f.unsubscribe();
      sim.close();
      time.close();
      funding.complete();
      live.close();
    },
  };
}
