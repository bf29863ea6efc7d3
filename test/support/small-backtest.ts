// A small real backtest: the built-in market maker over synthetic recorded events, results in a temp folder (the report
// and replay tests). Invariant: the same options give the same result files.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTrading, type TradingSession } from '../../src/app/trading.js';
import { runBacktest } from '../../src/backtest/replay.js';
import { ResultsWriter } from '../../src/backtest/results.js';
import type { Dialect } from '../../src/core/types.js';
import { MemoryNonceStore } from '../../src/protocol/nonce.js';
import { loadStrategies } from '../../src/strategy/loader.js';
import { SYNTHETIC_MARKET, syntheticEvents } from './recorded-events.js';

export interface SmallBacktestOptions {
  seed: number;
  /** Synthetic events replayed. Default 3,000. */
  count?: number;
  /** Funding is paid every this many ms. Default 1 h. */
  fundingIntervalMs?: number;
  /** Default 5 s. */
  equityIntervalMs?: number;
  /** Default v1. */
  dialect?: Dialect;
  risk?: Parameters<typeof startTrading>[0]['risk'];
}

/** Runs the backtest into a new temp folder (the caller removes it); returns the folder, the result, the summary and the session. */
export async function runSmallBacktest(o: SmallBacktestOptions) {
  const { seed, dialect = 'v1', equityIntervalMs = 5_000 } = o;
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-small-bt-'));
  const strategies = await loadStrategies([
    { name: 'mm', module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.01, maxPosition: 0.1, halfSpreadTicks: 1, minIntervalMs: 100 } },
  ]);
  const writer = new ResultsWriter(dir, ['BTC-USD']);
  let session: TradingSession | undefined;
  const result = await runBacktest({
    events: syntheticEvents({ seed: 1, count: o.count ?? 3_000 }),
    markets: [{ ...SYNTHETIC_MARKET, fundingIntervalMs: o.fundingIntervalMs ?? 3_600_000 }],
    defaults: { makerFeeRate: 0, takerFeeRate: 0, fundingIntervalMs: 3_600_000 },
    dialect,
    startSession: async (venue, key) =>
      (session = await startTrading({
        venue,
        key,
        dialect,
        network: 'mainnet',
        nonceStore: new MemoryNonceStore(),
        strategies,
        signing: 'deterministic',
        ...(o.risk && { risk: o.risk }),
      })),
    collateralUsd: 100_000,
    models: {
      queue: { model: 'power', power: 2 },
      feed: { model: 'uniform', minMs: 0, maxMs: 2 },
      entry: { model: 'lognormal', medianMs: 1, sigma: 0.5 },
      response: { model: 'normal', meanMs: 1, stdMs: 0.3 },
    },
    seed,
    equityIntervalMs,
    sink: writer,
  });
  const summary = writer.finish(result, { configHash: 'test', seed, models: { queue: 'power(2)' }, dataFiles: [], equityIntervalMs });
  return { dir, result, summary, session: session! };
}

/** Runs the backtest into a new temp folder and returns its path (the caller removes it). */
export async function smallBacktest(seed: number, count = 3_000, fundingIntervalMs = 3_600_000): Promise<string> {
  return (await runSmallBacktest({ seed, count, fundingIntervalMs })).dir;
}
