// Backtest throughput: market events replayed per second with the built-in market maker attached (one thread), the wall
// time and peak RSS of a 24-hour synthetic day. Invariant: seeded data and models; medians of BENCH_RUNS runs.

import { startTrading } from '../src/app/trading.js';
import { runBacktest } from '../src/backtest/replay.js';
import { MemoryNonceStore } from '../src/protocol/nonce.js';
import { loadStrategies } from '../src/strategy/loader.js';
import { median, report } from './lib.js';
import { SYNTHETIC_MARKET, syntheticEvents } from './support/recorded-events.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const DAY_STEP_MS = 100;
const DAY_STEPS = (24 * 3_600_000) / DAY_STEP_MS;

async function replay(steps: number, stepMs: number): Promise<{ events: number; wallS: number }> {
  const strategies = await loadStrategies([
    { name: 'mm', module: 'market-maker', params: { symbol: SYNTHETIC_MARKET.symbol, size: 0.01, maxPosition: 0.1, halfSpreadTicks: 2, minIntervalMs: 250 } },
  ]);
  const t0 = performance.now();
  const result = await runBacktest({
    events: syntheticEvents({ seed: 7, count: steps, stepMs }),
    markets: [SYNTHETIC_MARKET],
    defaults: { makerFeeRate: 0.0002, takerFeeRate: 0.0005, fundingIntervalMs: 3_600_000 },
    startSession: (venue, key) =>
      startTrading({ venue, key, dialect: 'v1', network: 'mainnet', nonceStore: new MemoryNonceStore(), strategies, signing: 'deterministic' }),
    collateralUsd: 100_000,
    models: { queue: { model: 'riskAverse' }, feed: { model: 'recorded' }, entry: { model: 'constant', ms: 1 }, response: { model: 'constant', ms: 1 } },
    seed: 1,
    equityIntervalMs: 60_000,
    sink: { order: () => {}, fill: () => {}, equity: () => {} },
  });
  return { events: result.events, wallS: (performance.now() - t0) / 1000 };
}

const rates: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const r = await replay(EVENTS, 50);
  rates.push(r.events / r.wallS);
}
report('backtest', 'events_per_s', median(rates), 'events/s');
if (process.env.BENCH_DAY !== '0') {
  const day = await replay(DAY_STEPS, DAY_STEP_MS);
  report('backtest', 'day_wall_s', day.wallS, 's');
  report('backtest', 'day_events', day.events, 'events');
  report('backtest', 'peak_rss_mb', process.resourceUsage().maxRSS / 1024, 'MB');
}
