// Each built-in strategy's example config (config/examples/<name>.yaml), unchanged, backtested on one short synthetic
// recording of BTC-USD and ETH-USD through the backtest command's own entry: the run completes, the strategy trades as
// it should on that data, no order is left open at the end, and the summary's numbers are present and finite.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backtest } from '../../../src/app/commands/backtest.js';
import { writeSyntheticRecording } from '../../../src/backtest/recording/synthetic.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'perpbot-smoke-'));
const data = join(dir, 'synthetic.rec');

beforeAll(() => writeSyntheticRecording(data, { seed: 7, durationMs: 3 * 60_000, symbols: ['BTC-USD', 'ETH-USD'] }), 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Order = Record<string, string>;

function readCsv(path: string): Order[] {
  const [head, ...rows] = readFileSync(path, 'utf8').trim().split('\n');
  const keys = head!.split(',');
  return rows.map((r) => Object.fromEntries(r.split(',').map((v, i) => [keys[i], v])));
}

const FINITE = [
  'returnPct',
  'startEquityUsd',
  'endEquityUsd',
  'pnlUsd',
  'maxDrawdownPct',
  'sharpe',
  'orders',
  'ordersFilled',
  'fillRatio',
  'trades',
  'makerTrades',
  'feesUsd',
  'fundingUsd',
  'tradedNotionalUsd',
  'turnover',
  'liquidations',
  'requests',
] as const;

/** What each strategy must have done on three minutes of the local venue's market (beyond placing orders). */
const cases: { name: string; check: (orders: Order[], summary: Record<string, number>) => void }[] = [
  {
    name: 'market-maker',
    check: (orders, s) => {
      expect(orders.every((o) => o.tif === 'ALO' && o.symbol === 'BTC-USD')).toBe(true);
      expect(new Set(orders.map((o) => o.side))).toEqual(new Set(['buy', 'sell']));
      expect(s.makerTrades).toBeGreaterThan(0);
    },
  },
  {
    name: 'grid',
    check: (orders) => {
      const grid = orders.filter((o) => o.tif === 'ALO');
      expect(grid.every((o) => Number(o.price) % 100 === 0 && Number(o.price) >= 96000 && Number(o.price) <= 98000)).toBe(true);
      for (const side of ['buy', 'sell']) expect(grid.some((o) => o.side === side && o.status === 'filled')).toBe(true);
    },
  },
  {
    name: 'twap',
    check: (orders) => {
      expect(orders.every((o) => o.side === 'buy' && o.tif === 'IOC' && Number(o.size) <= 0.005 && Number(o.price) <= 99000)).toBe(true);
      expect(orders.some((o) => o.status === 'filled')).toBe(true);
    },
  },
  {
    name: 'funding-capture',
    // The synthetic rate is the local venue's 0.0000125 per period, above minFundingRate: a short entry, then its stop.
    check: (orders) => {
      const [entry, stop] = orders;
      expect(entry).toMatchObject({ side: 'sell', tif: 'IOC', status: 'filled', filled_size: '0.005' });
      expect(stop).toMatchObject({ side: 'buy', type: 'trigger', reduce_only: 'true' });
    },
  },
  {
    name: 'pair-spread',
    check: (orders) => {
      const filled = orders.filter((o) => o.status === 'filled');
      expect(new Set(filled.map((o) => o.symbol))).toEqual(new Set(['BTC-USD', 'ETH-USD']));
      for (const o of orders) expect(Number(o.size)).toBeLessThanOrEqual(o.symbol === 'BTC-USD' ? 0.001 : 0.03);
    },
  },
];

describe('built-in strategies backtested on a synthetic recording', () => {
  it.each(cases)(
    '$name: its example config trades and leaves no order open',
    async ({ name, check }) => {
      const out = join(dir, name);
      const printed: string[] = [];
      const config = join(ROOT, 'config/examples', `${name}.yaml`);
      expect(await backtest(['--data', data, '--config', config, '--seed', '3', '--out', out], (l) => printed.push(l))).toBe(0);
      expect(printed.join('\n')).toMatch(/^backtest: results in /);

      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
      expect(summary).toMatchObject({ partial: false, seed: 3, liquidations: 0 });
      for (const field of FINITE) expect(Number.isFinite(summary[field]), `summary.${field} = ${summary[field]}`).toBe(true);
      expect(summary.data.events).toBeGreaterThan(10_000);

      const rows = readCsv(join(out, 'orders.csv'));
      expect(rows).toHaveLength(summary.orders + summary.ordersDenied);
      // the orders that reached the exchange (the others were refused by risk or execution: local ids)
      const orders = rows.filter((o) => !o.order_id!.startsWith('local:'));
      expect(orders.length).toBeGreaterThan(0);
      expect(orders).toHaveLength(summary.orders);
      expect(orders.filter((o) => o.status === 'placed' || o.status === 'working')).toEqual([]);
      expect(Object.keys(summary.statuses)).not.toContain('working');
      expect(summary.trades).toBeGreaterThan(0);
      expect(readCsv(join(out, 'trades.csv'))).toHaveLength(summary.trades);
      check(orders, summary);
    },
    60_000,
  );
});
