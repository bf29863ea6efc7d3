import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCsv, type Summary } from '../../../src/backtest/results.js';
import { BACKTEST_STRATEGIES, fromBacktest, renderReport } from '../../../src/report/index.js';
import { smallBacktest } from '../../support/small-backtest.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function run(seed: number): Promise<string> {
  const dir = await smallBacktest(seed, 3_000, 20_000);
  dirs.push(dir);
  return dir;
}

describe('fromBacktest', () => {
  it('reads a real backtest: fills, position, mid prices, funding, the PnL split and the per-symbol row agree with the result files', async () => {
    const dir = await run(2);
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    const d = fromBacktest(dir);
    expect(s.trades).toBeGreaterThan(0);
    expect(d.fills).toHaveLength(s.trades);
    expect(d.orders).toHaveLength(s.orders);
    expect(d.orders.filter((o) => o.filled)).toHaveLength(s.ordersFilled);

    const equity = readCsv(join(dir, 'equity.csv'));
    expect(d.equity.points).toHaveLength(equity.length);
    expect(d.equity.points.at(-1)!.v).toBe(s.endEquityUsd);
    const position = d.positions.find((p) => p.symbol === 'BTC-USD')!.points;
    expect(position.at(-1)!.v).toBeCloseTo(Number(equity.at(-1)!['position_BTC-USD']), 9);

    const prices = d.prices[0]!.points;
    expect(prices.length).toBeGreaterThanOrEqual(d.fills.length);
    for (const p of prices) expect(p.v).toBeGreaterThan(90_000);
    for (const f of d.fills) expect(Math.abs(f.price - prices.find((p) => p.tMs === f.tMs)!.v)).toBeLessThan(5);

    const funding = readCsv(join(dir, 'funding.csv'));
    expect(funding.length).toBeGreaterThan(0);
    expect(funding.reduce((sum, f) => sum + Number(f.amount_usd), 0)).toBeCloseTo(s.fundingUsd, 6);
    const p = d.pnl;
    expect(p.totalUsd).toBe(s.pnlUsd);
    expect(p.feesUsd).toBe(s.feesUsd);
    expect(p.fundingUsd).toBe(s.fundingUsd);
    expect(p.spreadCaptureUsd - p.feesUsd + p.fundingUsd + p.inventoryUsd).toBeCloseTo(p.totalUsd, 9);
    expect(p.spreadCaptureUsd).toBeGreaterThan(0); // a market maker's fills rest on the good side of the mid

    expect(d.symbols).toHaveLength(1);
    const row = d.symbols[0]!;
    expect(row).toMatchObject({ strategy: BACKTEST_STRATEGIES, symbol: 'BTC-USD', fills: s.trades, ordersPlaced: s.orders, ordersFilled: s.ordersFilled });
    expect(row.feesUsd).toBeCloseTo(s.feesUsd, 5);
    expect(row.fundingUsd).toBeCloseTo(s.fundingUsd, 6);
  }, 120_000);

  it('gives the same bytes for the same backtest in another folder; another seed differs', async () => {
    const [a, b, c] = [await run(5), await run(5), await run(6)];
    const html = (dir: string) => renderReport(fromBacktest(dir));
    expect(html(b)).toBe(html(a));
    expect(html(c)).not.toBe(html(a));
  }, 180_000);

  it('names summary.json when the folder holds no backtest', () => {
    expect(() => fromBacktest('/nonexistent-results')).toThrow(/summary\.json: not a backtest summary/);
  });
});
