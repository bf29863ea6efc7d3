import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { EMPTY } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { BookUpdate } from '../../../src/core/market-data.js';
import type { RecordedEvent } from '../../../src/backtest/recording/events.js';
import { runBacktest } from '../../../src/backtest/replay.js';
import { SYNTHETIC_MARKET } from '../../support/recorded-events.js';
import { runSmallBacktest, type SmallBacktestOptions } from '../../support/small-backtest.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function run(seed: number, risk?: SmallBacktestOptions['risk'], dialect: 'v1' | 'current' = 'v1') {
  const r = await runSmallBacktest({ seed, count: 6_000, equityIntervalMs: 10_000, dialect, ...(risk && { risk }) });
  dirs.push(r.dir);
  return { ...r, bookStats: r.session.market.bookStats('BTC-USD')! };
}

const files = (dir: string) => Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));

describe('runBacktest', () => {
  it('runs the built-in market maker over recorded events: it quotes, gets filled, pays fees, and stops with no order open', async () => {
    const { result, summary, bookStats } = await run(1);
    expect(bookStats.rebuilds).toEqual({ crossed: 0, mismatch: 0 }); // the bot's book (own orders overlaid) never looked crossed or wrong
    expect(result.partial).toBe(false);
    expect(result.events).toBeGreaterThan(6_000);
    expect(summary.trades).toBeGreaterThan(0);
    expect(summary.makerTrades).toBe(summary.trades);
    expect(summary.feesUsd).toBeGreaterThan(0);
    expect(summary.statuses.placed ?? 0).toBe(0);
    expect(summary.statuses.working ?? 0).toBe(0);
    expect(summary.orders).toBe(Object.values(summary.statuses).reduce((a, b) => a + b, 0));
  }, 120_000);

  it('is deterministic: the same data, models and seed give byte-identical files; another seed differs', async () => {
    const a = await run(3);
    const b = await run(3);
    const c = await run(4);
    expect(Object.keys(files(a.dir)).sort()).toEqual(['equity.csv', 'funding.csv', 'orders.csv', 'summary.json', 'trades.csv']);
    expect(files(b.dir)).toEqual(files(a.dir));
    expect(files(c.dir)['orders.csv']).not.toEqual(files(a.dir)['orders.csv']);
  }, 120_000);

  it('backtests a session of the current dialect: it quotes, gets filled and stops with no order open, deterministically', async () => {
    const a = await run(5, undefined, 'current');
    const b = await run(5, undefined, 'current');
    expect(a.summary.trades).toBeGreaterThan(0);
    expect(a.summary.statuses.placed ?? 0).toBe(0);
    expect(a.summary.statuses.working ?? 0).toBe(0);
    expect(files(b.dir)).toEqual(files(a.dir));
  }, 120_000);

  it('writes the orders risk refused to orders.csv with their local id and refusal; they never reach the exchange', async () => {
    const { dir, summary } = await run(1, { maxOrderNotionalUsd: 0.01 });
    const rows = readFileSync(join(dir, 'orders.csv'), 'utf8').trim().split('\n');
    expect(rows[0]).toBe(
      'order_id,symbol,side,type,tif,price,trigger_price,size,reduce_only,status,reason,filled_size,avg_fill_price,created_ns,ended_ns,strategy,intent_seq,intent_leg,intent_data_ms,queue_ahead_base',
    );
    expect(summary.orders).toBe(0);
    expect(summary.ordersDenied).toBeGreaterThan(0);
    expect(rows).toHaveLength(summary.ordersDenied + 1);
    for (const row of rows.slice(1))
      expect(row).toMatch(/^local:\d+,BTC-USD,(buy|sell),,,[\d.]+,,0\.01,,rejectedRiskLimit,risk MAX_ORDER_NOTIONAL: [^,]*,0,,\d+,\d+,mm,\d+,[01],\d+,$/);
  }, 120_000);

  it('delivers the book deltas of one instant as one delta when their venue time is their receive time (a synthetic recording)', async () => {
    const T0 = 1_767_225_600_000;
    const delta = (ms: number, price: number, kind: 'snapshot' | 'delta' = 'delta'): RecordedEvent => ({
      kind: 'book',
      recvNs: BigInt(ms) * 1_000_000n,
      book: { kind, symbol: 'BTC-USD', bids: [{ price, size: 1, orders: 1 }], asks: [{ price: 101, size: 1, orders: 1 }], venueTimeMs: ms, arrivalNs: 0n },
    });
    const books: { atMs: number; bids: number[] }[] = [];
    await runBacktest({
      events: [delta(T0, 99, 'snapshot'), delta(T0 + 10, 99.1), delta(T0 + 10, 99.2), delta(T0 + 10, 99.3), delta(T0 + 20, 99.4)],
      markets: [SYNTHETIC_MARKET],
      defaults: { makerFeeRate: 0, takerFeeRate: 0, fundingIntervalMs: 3_600_000 },
      startSession: async (venue) => {
        venue.market.book$('BTC-USD').subscribe((b: BookUpdate) => books.push({ atMs: venue.clock.nowMs() - T0, bids: b.bids.map((l) => l.price) }));
        return { stop: async () => {}, execution: { events$: () => EMPTY } };
      },
      collateralUsd: 100_000,
      models: { queue: { model: 'riskAverse' }, feed: { model: 'recorded' }, entry: { model: 'constant', ms: 1 }, response: { model: 'constant', ms: 1 } },
      seed: 1,
      equityIntervalMs: 60_000,
      sink: { order: () => {}, fill: () => {}, equity: () => {} },
    });
    expect(books).toEqual([
      { atMs: 0, bids: [99] },
      { atMs: 10, bids: [99.1, 99.2, 99.3] },
      { atMs: 20, bids: [99.4] },
    ]);
  });
});
