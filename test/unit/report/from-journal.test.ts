import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fromJournal, renderReport } from '../../../src/report/index.js';
import { Journal, JournalError, type FillRecord, type OrderRecord } from '../../../src/store/index.js';

const ACCOUNT = 'BnQyDU3hTq7WkpxL9bxMmyfqTyzbEVGiBDF9nRcXVZHm';
const T0_MS = 1_767_225_600_000;
const NS = 1_000_000n;
const dir = mkdtempSync(join(tmpdir(), 'perpbot-report-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (ms: number) => BigInt(T0_MS + ms) * NS;

function order(orderId: string, side: 'buy' | 'sell', price: number, ms: number): OrderRecord {
  return { account: ACCOUNT, strategy: 'mm', symbol: 'BTC-USD', orderId, side, price, size: 1, filledSize: 0, status: 'placed', atNs: at(ms) };
}

function fill(orderId: string, side: 'buy' | 'sell', size: number, price: number, feeUsd: number, ms: number): FillRecord {
  return { account: ACCOUNT, strategy: 'mm', symbol: 'BTC-USD', orderId, side, price, size, feeUsd, maker: true, timeNs: at(ms) };
}

/** A journal written by the store module (`paper`: by paper trading), closed; returns its path. */
function written(name: string, fill: (j: Journal) => void, paper = false): string {
  const path = join(dir, name);
  const journal = Journal.open(path, { paper });
  fill(journal);
  journal.close();
  return path;
}

describe('fromJournal', () => {
  it('builds PnL, position, fills, the PnL split and fill ratio from a journal, without writing to it', () => {
    const path = written('a.sqlite', (j) => {
      j.recordOrder(order('o1', 'buy', 100, 0));
      j.recordOrder(order('o2', 'sell', 110, 500));
      j.recordOrder(order('o3', 'buy', 105, 1_500));
      j.recordOrder(order('o4', 'sell', 130, 1_600));
      j.recordFill(fill('o1', 'buy', 1, 100, 0.1, 1_000));
      j.recordFill(fill('o2', 'sell', 1, 110, 0.1, 2_000));
      j.recordFill(fill('o3', 'buy', 2, 105, 0, 3_000));
      j.recordFunding({ account: ACCOUNT, symbol: 'BTC-USD', amountUsd: -0.5, rate: 0.0001, timeNs: at(4_000) });
    });
    const before = readFileSync(path);
    const d = fromJournal(path);
    expect(readFileSync(path)).toEqual(before);
    // SQLite's shared-memory index of a WAL database appears for any reader; the log itself stays empty.
    expect(readdirSync(dir).includes('a.sqlite-wal') ? readFileSync(`${path}-wal`).length : 0).toBe(0);

    expect(d.equity.points.map((p) => Number(p.v.toFixed(6)))).toEqual([-0.1, 9.8, 9.8, 9.3]);
    expect(d.positions).toEqual([
      {
        symbol: 'BTC-USD',
        points: [
          { tMs: T0_MS + 1_000, v: 1 },
          { tMs: T0_MS + 2_000, v: 0 },
          { tMs: T0_MS + 3_000, v: 2 },
        ],
      },
    ]);
    expect(d.prices[0]!.points.map((p) => p.v)).toEqual([100, 110, 105]);
    expect(d.fills.map((f) => f.side)).toEqual(['buy', 'sell', 'buy']);
    expect(d.pnl).toMatchObject({ spreadCaptureUsd: 10, fundingUsd: -0.5, totalUsd: expect.closeTo(9.3, 9), inventoryUsd: expect.closeTo(0, 9) });
    expect(d.pnl.feesUsd).toBeCloseTo(0.2, 12);
    expect(d.orders.map((o) => o.filled)).toEqual([true, true, true, false]);
    expect(d.summary.find((s) => s.label === 'fill ratio')!.value).toBe('75.0%');
    expect(d.symbols).toMatchObject([{ strategy: 'mm', symbol: 'BTC-USD', fills: 3, ordersPlaced: 4, ordersFilled: 3 }]);
    expect(renderReport(d)).toContain('▲ 2 buys');
  });

  it('closes an account’s positions at the last fill price when its venue instance (epoch) changes, so PnL does not jump', () => {
    const path = written('b.sqlite', (j) => {
      j.catchUp(ACCOUNT, 'http://venue-a', [], at(0));
      j.recordFill(fill('o1', 'buy', 1, 100, 0.1, 1_000));
      j.flush();
      j.catchUp(ACCOUNT, 'http://venue-b', [], at(1_500));
      j.recordFill(fill('o2', 'buy', 1, 120, 0, 2_000));
    });
    const d = fromJournal(path);
    expect(d.equity.points.map((p) => Number(p.v.toFixed(6)))).toEqual([-0.1, -0.1]);
    expect(d.positions[0]!.points.map((p) => p.v)).toEqual([1, 0, 1]);
  });

  it('says on the page which fills paper trading made: in the title and the summary', () => {
    const live = fromJournal(written('live.sqlite', (j) => j.recordFill(fill('o1', 'buy', 1, 100, 0, 1_000))));
    expect(live.title).toBe('Journal live.sqlite');
    expect(live.summary.map((s) => s.label)).not.toContain('paper trading fills');
    const path = written('paper.sqlite', (j) => j.recordFill(fill('o1', 'buy', 1, 100, 0, 1_000)), true);
    expect(fromJournal(path).title).toBe('Journal paper.sqlite (paper trading)');
    const mixed = Journal.open(path);
    mixed.recordFill(fill('o2', 'sell', 1, 101, 0, 2_000));
    mixed.close();
    const d = fromJournal(path);
    expect(d.title).toBe('Journal paper.sqlite (paper trading and live)');
    expect(d.summary.find((s) => s.label === 'paper trading fills')!.value).toBe('1 of 2');
    expect(renderReport(d)).toContain('paper trading fills');
  });

  it('refuses a missing journal instead of creating one', () => {
    const missing = join(dir, 'missing.sqlite');
    expect(() => fromJournal(missing)).toThrow(JournalError);
    expect(() => fromJournal(missing)).toThrow(`no journal at ${missing}`);
    expect(readdirSync(dir)).not.toContain('missing.sqlite');
  });
});
