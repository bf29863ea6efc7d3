import { describe, expect, it } from 'vitest';
import { compareRuns, stats, type CompareFill, type CompareOrder } from '../../../src/backtest/compare.js';

const T0 = 1_767_225_600_000_000_000n;
const MS = 1_000_000n;

function order(id: string, seq: number, dataTimeMs: number, side: 'buy' | 'sell', price: number, more: Partial<CompareOrder> = {}): CompareOrder {
  return {
    orderId: id,
    strategy: 'mm',
    symbol: 'BTC-USD',
    side,
    price,
    size: 0.01,
    filledSize: 0,
    status: 'cancelled',
    timeNs: T0 + BigInt(dataTimeMs) * MS,
    intent: { seq, leg: 0, dataTimeMs },
    ...more,
  };
}

function fill(orderId: string, side: 'buy' | 'sell', price: number, atMs: number, more: Partial<CompareFill> = {}): CompareFill {
  return { orderId, symbol: 'BTC-USD', side, price, size: 0.01, feeUsd: 0, timeNs: T0 + BigInt(atMs) * MS, ...more };
}

describe('compareRuns', () => {
  it('pairs orders by the intent data time, market, side and leg although the intent numbers drifted; pairs their fills in time order', () => {
    const live = {
      orders: [
        order('L1', 5, 100, 'buy', 99),
        order('L2', 5, 100, 'sell', 101),
        order('L3', 6, 200, 'buy', 99.5, { filledSize: 0.01 }),
        order('L4', 7, 300, 'buy', 98, { filledSize: 0.01 }),
        order('L5', 8, 400, 'sell', 102, { intent: undefined }),
      ],
      fills: [fill('L3', 'buy', 99.5, 250), fill('L4', 'buy', 98, 350)],
    };
    const sim = {
      orders: [
        order('S1', 1, 100, 'buy', 99),
        order('S2', 1, 100, 'sell', 101.5),
        order('S3', 3, 200, 'buy', 99.5, { filledSize: 0.01, queueAheadBase: 0 }),
        order('S4', 4, 250, 'sell', 101, { filledSize: 0.01, queueAheadBase: 0.05 }),
      ],
      fills: [fill('S3', 'buy', 99.5, 260, { queueAheadBase: 0.002 }), fill('S4', 'sell', 101, 270)],
    };
    const marks = [
      { timeNs: T0 + 200n * MS, marks: { 'BTC-USD': 100 } },
      { timeNs: T0 + 1000n * MS, marks: { 'BTC-USD': 100 } },
    ];
    const c = compareRuns({ live, sim, marks });
    expect(c.orders).toMatchObject({ live: 5, sim: 4, matched: 3, liveOnly: 2, liveWithoutIntent: 1, simOnly: 1, simWithoutIntent: 0, matchedSamePrice: 2 });
    expect(c.orders.intentSeqDrift).toMatchObject({ count: 3, min: 3, max: 4 });
    expect(c.orders.priceDiffUsd).toMatchObject({ count: 3, max: 0.5 });
    expect(c.orders.matchedFilled).toEqual({ both: 1, liveOnly: 0, simOnly: 0, neither: 2 });
    expect(c.orders.matchedFilledNearPrice).toEqual({ both: 1, liveOnly: 0, simOnly: 0, neither: 1 }); // 101 vs 101.5 is 50 bp apart
    expect(c.fills).toMatchObject({
      live: 2,
      sim: 2,
      matched: 1,
      matchedShare: 0.5,
      liveOnly: { total: 1, orderUnmatched: 1, simFilledLess: 0 },
      simOnly: { total: 1, orderUnmatched: 1, liveFilledLess: 0 },
    });
    expect(c.fills.timeDiffMs).toMatchObject({ count: 1, median: 10 });
    expect(c.fills.queueAheadBase).toMatchObject({ count: 1, median: 0.002 });
    // S3 rested with nothing ahead (bucket 0); S1 and S2 never rested (no queue ahead): left out.
    expect(c.calibration[0]).toEqual({ bucket: '0', orders: 1, predicted: 1, observed: 1 });
    expect(c.calibration.slice(1).every((r) => r.orders === 0)).toBe(true);
    expect(c.calibrationNearPrice[0]).toEqual(c.calibration[0]);
    // At 200 ms neither side holds a position; at 1000 ms live is long 0.02 bought at 99.5 and 98, the simulation flat
    // after buying at 99.5 and selling at 101: live 0.01 × 0.5 + 0.01 × 2 = 0.025, sim 0.015.
    expect(c.equity).toMatchObject({ samples: 2, liveFinalPnlUsd: 0.025, simFinalPnlUsd: 0.015, finalDiffUsd: 0.01, maxAbsDiffUsd: 0.01 });
    expect(c.equity.rmsDiffUsd).toBeCloseTo(Math.sqrt(0.0001 / 2), 6);
  });

  it('pairs intents with the same data time in intent-number order', () => {
    const live = { orders: [order('L2', 11, 100, 'buy', 98), order('L1', 10, 100, 'buy', 99)], fills: [] };
    const sim = { orders: [order('S1', 3, 100, 'buy', 99), order('S2', 4, 100, 'buy', 98)], fills: [] };
    const c = compareRuns({ live, sim, marks: [] });
    expect(c.orders.matchedSamePrice).toBe(2);
    expect(c.equity).toMatchObject({ samples: 0, maxAbsDiffUsd: 0 });
  });

  it('stats: mean, median, 90th percentile of absolute values, extremes', () => {
    expect(stats([3, -1, 2, 10])).toEqual({ count: 4, mean: 3.5, median: 2.5, p90Abs: 10, min: -1, max: 10 });
    expect(stats([])).toEqual({ count: 0, mean: 0, median: 0, p90Abs: 0, min: 0, max: 0 });
  });
});
