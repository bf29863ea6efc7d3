// A small real backtest for the report tests: the built-in market maker over synthetic recorded events, results in a temp folder.
// Invariant: the same seed gives the same result files.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTrading } from '../../src/app/trading.js';
import { runBacktest } from '../../src/backtest/replay.js';
import { ResultsWriter } from '../../src/backtest/results.js';
import { MemoryNonceStore } from '../../src/protocol/nonce.js';
import { loadStrategies } from '../../src/strategy/loader.js';
import { SYNTHETIC_MARKET, syntheticEvents } from './recorded-events.js';

/** Runs the backtest into a new temp folder and returns its path (the caller removes it); funding is paid every `fundingIntervalMs`. */
export async function smallBacktest(seed: number, count = 3_000, fundingIntervalMs = 3_600_000): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-report-bt-'));
  const strategies = await loadStrategies([
    { name: 'mm', module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.01, maxPosition: 0.1, halfSpreadTicks: 1, minIntervalMs: 100 } },
  ]);
  const writer = new ResultsWriter(dir, ['BTC-USD']);
  const result = await runBacktest({
    events: syntheticEvents({ seed: 1, count }),
    markets: [{ ...SYNTHETIC_MARKET, fundingIntervalMs }],
    defaults: { makerFeeRate: 0, takerFeeRate: 0, fundingIntervalMs: 3_600_000 },
    startSession: (venue, key) =>
      startTrading({ venue, key, dialect: 'v1', network: 'mainnet', nonceStore: new MemoryNonceStore(), strategies, signing: 'deterministic' }),
    collateralUsd: 100_000,
    models: {
      queue: { model: 'power', power: 2 },
      feed: { model: 'uniform', minMs: 0, maxMs: 2 },
      entry: { model: 'lognormal', medianMs: 1, sigma: 0.5 },
      response: { model: 'normal', meanMs: 1, stdMs: 0.3 },
    },
    seed,
    equityIntervalMs: 5_000,
    sink: writer,
  });
  writer.finish(result, { configHash: 'test', seed, models: { queue: 'power(2)' }, dataFiles: [], equityIntervalMs: 5_000 });
  return dir;
}
