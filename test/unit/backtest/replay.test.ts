import { describe, expect, it } from 'vitest';
import { startTrading } from '../../../src/app/trading.js';
import type { Fill } from '../../../src/core/account-data.js';
import { runBacktest } from '../../../src/backtest/replay.js';
import type { SimOrder } from '../../../src/backtest/exchange.js';
import { MemoryNonceStore } from '../../../src/protocol/nonce.js';
import { loadStrategies } from '../../../src/strategy/loader.js';
import { SYNTHETIC_MARKET, syntheticEvents } from '../../../bench/support/recorded-events.js';

describe('runBacktest', () => {
  it('runs the market maker over synthetic events', async () => {
    const strategies = await loadStrategies([
      { name: 'mm', module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.01, maxPosition: 0.1, halfSpreadTicks: 1, minIntervalMs: 100 } },
    ]);
    const orders: SimOrder[] = [];
    const fills: Fill[] = [];
    const t0 = performance.now();
    const result = await runBacktest({
      events: syntheticEvents({ seed: 1, count: 20_000 }),
      markets: [SYNTHETIC_MARKET],
      defaults: { makerFeeRate: 0, takerFeeRate: 0, fundingIntervalMs: 3_600_000 },
      startSession: (venue, key) =>
        startTrading({ venue, key, dialect: 'v1', network: 'mainnet', nonceStore: new MemoryNonceStore(), strategies, signing: 'deterministic' }),
      collateralUsd: 100_000,
      models: { queue: { model: 'riskAverse' }, feed: { model: 'recorded' }, entry: { model: 'constant', ms: 1 }, response: { model: 'constant', ms: 1 } },
      seed: 1,
      equityIntervalMs: 60_000,
      sink: { order: (o) => orders.push(o), fill: (f) => fills.push(f), equity: () => {} },
    });
    console.log(result, orders.length, fills.length, performance.now() - t0);
    const statuses: Record<string, number> = {};
    for (const o of orders) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
    console.log(statuses);
    expect(result.events).toBe(20_000);
    expect(fills.length).toBeGreaterThan(0);
  }, 60_000);
});
