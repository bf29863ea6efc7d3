import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { NonceSource } from '../../../src/protocol/nonce.js';
import { Journal, JournalError, UNATTRIBUTED, type BatchRecord, type FillRecord, type OrderRecord } from '../../../src/store/index.js';
import { SCHEMA_VERSION } from '../../../src/store/schema.js';

const SIGNER = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
const ACCOUNT = 'BnQyDU3hTq7WkpxL9bxMmyfqTyzbEVGiBDF9nRcXVZHm';
const T0_MS = 1_767_225_600_000;
const NS = 1_000_000n;
const T0_MS_NS = BigInt(T0_MS) * NS;

const open: Journal[] = [];
function journalAt(path = join(mkdtempSync(join(tmpdir(), 'perpbot-journal-')), 'nested', 'j.sqlite')): { journal: Journal; path: string } {
  const journal = Journal.open(path);
  open.push(journal);
  return { journal, path };
}
afterEach(() => {
  for (const j of open.splice(0)) j.close();
});

function batch(nonceNs: bigint, more: Partial<BatchRecord> = {}): BatchRecord {
  return {
    signer: SIGNER,
    account: ACCOUNT,
    nonceNs,
    path: '/order',
    message: new Uint8Array([1, 2, 3, 255]),
    signature: '5sig',
    body: `{"nonce":${nonceNs}}`,
    orderIds: ['o1', null],
    atNs: nonceNs + 5n,
    ...more,
  };
}

function order(orderId: string, side: 'buy' | 'sell', size: number, price: number, atMs: number, more: Partial<OrderRecord> = {}): OrderRecord {
  return {
    account: ACCOUNT,
    strategy: 'mm',
    symbol: 'BTC-USD',
    orderId,
    side,
    price,
    size,
    filledSize: 0,
    status: 'placed',
    atNs: BigInt(T0_MS + atMs) * NS,
    ...more,
  };
}

function fill(orderId: string, side: 'buy' | 'sell', size: number, price: number, feeUsd: number, atMs: number, more: Partial<FillRecord> = {}): FillRecord {
  return {
    account: ACCOUNT,
    strategy: 'mm',
    symbol: 'BTC-USD',
    orderId,
    side,
    price,
    size,
    feeUsd,
    maker: true,
    timeNs: BigInt(T0_MS + atMs) * NS + 123n,
    ...more,
  };
}

describe('Journal', () => {
  it('creates the file in WAL mode under new parent directories, and reopens it', () => {
    const { journal, path } = journalAt();
    journal.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
    journalAt(path);
  });

  it('names the path when it cannot open, and refuses to create a missing file with mustExist', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-journal-'));
    const notDb = join(dir, 'text.sqlite');
    writeFileSync(notDb, 'this is not a database, just some text that is long enough to have a header');
    expect(() => Journal.open(notDb)).toThrow(JournalError);
    expect(() => Journal.open(notDb)).toThrow(notDb);
    const missing = join(dir, 'missing.sqlite');
    expect(() => Journal.open(missing, { mustExist: true })).toThrow(`no journal at ${missing}`);
    expect(() => Journal.open(join(dir, 'no-dir', 'x.sqlite'), { mustExist: true })).toThrow(JournalError);
  });

  it('refuses a journal written by a newer schema', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'perpbot-journal-')), 'j.sqlite');
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    expect(() => Journal.open(path)).toThrow(/schema version 99 is newer/);
  });

  it('opens read-only: reads what a writer committed, writes nothing, and refuses a missing file or another schema version', () => {
    const { journal, path } = journalAt();
    journal.recordFill(fill('o1', 'buy', 1, 100, 0.1, 1_000));
    journal.flush();
    const reader = Journal.open(path, { readOnly: true });
    open.push(reader);
    expect(reader.fills().map((f) => f.orderId)).toEqual(['o1']);
    expect(() => reader.recordBatch(batch(5n))).toThrow(/readonly/);
    reader.close();
    const missing = join(dirname(path), 'missing.sqlite');
    expect(() => Journal.open(missing, { readOnly: true })).toThrow(`no journal at ${missing}`);
    expect(existsSync(missing)).toBe(false);
    journal.close();
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION - 1}`);
    db.close();
    expect(() => Journal.open(path, { readOnly: true })).toThrow(`has schema version ${SCHEMA_VERSION - 1}, this build reads ${SCHEMA_VERSION}`);
  });

  describe('nonces', () => {
    it('keep u64 marks exactly (up to 2^64 − 1) per signer, never lowering them', () => {
      const { journal } = journalAt();
      expect(journal.nonces.load(SIGNER)).toBeUndefined();
      journal.nonces.save(SIGNER, 18_446_744_073_709_551_615n);
      journal.nonces.save(ACCOUNT, 1_767_225_600_000_000_123n);
      journal.nonces.save(ACCOUNT, 5n);
      expect(journal.nonces.load(SIGNER)).toBe(18_446_744_073_709_551_615n);
      expect(journal.nonces.load(ACCOUNT)).toBe(1_767_225_600_000_000_123n);
      expect(() => journal.nonces.save(SIGNER, 1n << 64n)).toThrow(JournalError);
    });

    it('serve NonceSource across close and reopen: no nonce is reused even when the clock went back', () => {
      const { journal, path } = journalAt();
      const clock = new ManualClock(10_000_000_000n);
      const first = new NonceSource({ signer: SIGNER, clock, store: journal.nonces, reserveNs: 1_000n });
      let last = 0n;
      for (let i = 0; i < 3000; i++) last = first.next();
      journal.close();
      clock.set(1_000n);
      const second = new NonceSource({ signer: SIGNER, clock, store: journalAt(path).journal.nonces, reserveNs: 1_000n });
      expect(second.next()).toBeGreaterThan(last);
    });
  });

  describe('batches', () => {
    it('are unresolved until settled accepted or rejected, or resolved after an unknown outcome', () => {
      const { journal } = journalAt();
      const a = journal.recordBatch(batch(1_767_225_600_000_000_001n));
      const b = journal.recordBatch(batch(1_767_225_600_000_000_002n, { orderIds: [] }));
      const c = journal.recordBatch(batch(1_767_225_600_000_000_003n));
      const d = journal.recordBatch(batch(1_767_225_600_000_000_004n));
      expect(journal.unresolvedBatches().map((r) => r.id)).toEqual([a, b, c, d]);
      journal.settleBatch(a, 'accepted');
      journal.settleBatch(b, 'rejected', 'rejectedInvalid');
      journal.settleBatch(c, 'unknown', 'timeout after 5000 ms');
      expect(journal.unresolvedBatches().map((r) => r.id)).toEqual([c, d]);
      journal.resolveBatch(c, 'applied', 'the venue knows 1 of its 1 order ids');
      journal.resolveBatch(d, 'uncertain', 'no order ids');
      expect(journal.unresolvedBatches()).toEqual([]);
      expect(journal.batch(b)).toMatchObject({ outcome: 'rejected', outcomeDetail: 'rejectedInvalid', resolution: null });
      expect(journal.batch(c)).toMatchObject({
        outcome: 'unknown',
        outcomeDetail: 'timeout after 5000 ms',
        resolution: 'applied',
        resolutionDetail: 'the venue knows 1 of its 1 order ids',
      });
    });

    it('round-trip every field, bytes and u64 values exact, and survive reopening', () => {
      const { journal, path } = journalAt();
      const record = batch(18_446_744_073_709_551_615n, { orderIds: ['7Yx', null, 'Zq9'], atNs: 1_767_225_600_123_456_789n });
      const id = journal.recordBatch(record);
      journal.close();
      const [row] = journalAt(path).journal.unresolvedBatches();
      expect(row).toEqual({ ...record, id, outcome: null, outcomeDetail: null, resolution: null, resolutionDetail: null, paper: false });
      expect([...row!.message]).toEqual([1, 2, 3, 255]);
    });

    it('keep when the answer arrived; the round trips are the live batches the venue answered, by request time', () => {
      const { journal, path } = journalAt();
      const a = journal.recordBatch(batch(T0_MS_NS + 30n));
      const b = journal.recordBatch(batch(T0_MS_NS + 10n));
      const c = journal.recordBatch(batch(T0_MS_NS + 20n));
      journal.recordBatch(batch(T0_MS_NS + 40n));
      journal.settleBatch(a, 'accepted', undefined, T0_MS_NS + 35n + 2_000_000n);
      journal.settleBatch(b, 'rejected', 'rejectedInvalid', T0_MS_NS + 15n + 3_000_000n);
      journal.settleBatch(c, 'unknown', 'timeout after 5000 ms', T0_MS_NS + 25n + 5_000_000_000n);
      journal.close();
      const paper = Journal.open(path, { paper: true });
      paper.settleBatch(paper.recordBatch(batch(T0_MS_NS + 50n)), 'accepted', undefined, T0_MS_NS + 60n);
      paper.close();
      const reader = Journal.open(path, { readOnly: true });
      open.push(reader);
      expect(reader.batchRoundTrips()).toEqual([
        { atNs: T0_MS_NS + 15n, answeredNs: T0_MS_NS + 15n + 3_000_000n },
        { atNs: T0_MS_NS + 35n, answeredNs: T0_MS_NS + 35n + 2_000_000n },
      ]);
    });

    it('reject a nonce journaled before for the same signer, and unknown ids', () => {
      const { journal } = journalAt();
      journal.recordBatch(batch(42n));
      journal.recordBatch(batch(42n, { signer: ACCOUNT }));
      expect(() => journal.recordBatch(batch(42n))).toThrow(`nonce 42 of signer ${SIGNER} is already journaled`);
      expect(() => journal.settleBatch(999, 'accepted')).toThrow(/no batch 999/);
      expect(() => journal.resolveBatch(999, 'applied', 'x')).toThrow(/no batch 999/);
    });
  });

  it('marks every row paper when opened for paper trading, and only then (rows of a journal from before paper trading are not)', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'perpbot-journal-')), 'j.sqlite');
    const write = (journal: Journal, nonceNs: bigint, id: string) => {
      journal.recordBatch(batch(nonceNs));
      journal.recordOrder(order(id, 'buy', 1, 100, 0));
      journal.recordFill(fill(id, 'buy', 1, 100, 0.01, 1));
      journal.recordFunding({ account: ACCOUNT, symbol: 'BTC-USD', amountUsd: -0.1, rate: 0.0001, timeNs: BigInt(T0_MS) * NS + nonceNs });
      journal.recordPosition({ account: ACCOUNT, symbol: 'BTC-USD', size: 1, entryPrice: 100, realizedPnlUsd: 0, unrealizedPnlUsd: 0, atMs: T0_MS });
      journal.recordNotice({ account: ACCOUNT, notice: { kind: 'feeTiers', feeTiers: [], venueTimeNs: BigInt(T0_MS) * NS } });
      journal.close();
    };
    write(Journal.open(path), 1n, 'live');
    write(Journal.open(path, { paper: true }), 2n, 'paper');
    const db = new Database(path, { readonly: true });
    for (const table of ['batches', 'order_events', 'fills', 'funding', 'positions', 'notices'])
      expect(db.prepare(`SELECT paper FROM ${table} ORDER BY id`).pluck().all(), table).toEqual([0, 1]);
    db.close();
    expect(
      journalAt(path)
        .journal.unresolvedBatches()
        .map((b) => b.paper),
    ).toEqual([false, true]);
  });

  describe('buffered rows', () => {
    it('commit on the next event-loop turn without an explicit flush', async () => {
      const { journal, path } = journalAt();
      journal.recordFill(fill('o1', 'buy', 1, 100, 0.1, 0));
      const reader = new Database(path, { readonly: true });
      const count = () => reader.prepare('SELECT COUNT(*) FROM fills').pluck().get();
      expect(count()).toBe(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(count()).toBe(1);
      reader.close();
    });

    it('journaledOrders(): one row per order, its last status and filled size, its first and last event times and the intent that placed it', () => {
      const { journal } = journalAt();
      journal.recordOrder(order('o1', 'buy', 2, 100, 0, { intent: { seq: 7, leg: 1, dataTimeMs: T0_MS - 3 } }));
      journal.recordOrder(order('o2', 'sell', 1, 101, 1));
      journal.recordOrder(order('o1', 'buy', 2, 100, 5, { filledSize: 2, status: 'filled', intent: { seq: 7, leg: 1, dataTimeMs: T0_MS - 3 } }));
      const { atNs: _, ...o1 } = order('o1', 'buy', 2, 100, 0, { filledSize: 2, status: 'filled', intent: { seq: 7, leg: 1, dataTimeMs: T0_MS - 3 } });
      const { atNs: __, ...o2 } = order('o2', 'sell', 1, 101, 1);
      expect(journal.journaledOrders()).toEqual([
        { ...o1, reason: undefined, firstNs: BigInt(T0_MS) * NS, lastNs: BigInt(T0_MS + 5) * NS },
        { ...o2, reason: undefined, firstNs: BigInt(T0_MS + 1) * NS, lastNs: BigInt(T0_MS + 1) * NS },
      ]);
      expect(journal.journaledOrders({ sinceMs: T0_MS + 1 }).map((o) => o.orderId)).toEqual(['o2', 'o1']);
    });

    it('keeps an intent whose data time has a fraction of a millisecond (a venue may stamp so; before, the write threw and ended the daemon)', () => {
      const { journal } = journalAt();
      journal.recordOrder(order('o1', 'buy', 2, 100, 0, { intent: { seq: 1, leg: 0, dataTimeMs: T0_MS + 0.25 } }));
      journal.flush();
      expect(journal.journaledOrders()[0]!.intent).toEqual({ seq: 1, leg: 0, dataTimeMs: T0_MS + 0.25 });
    });

    it('round-trip orders, fills, funding and positions', () => {
      const { journal, path } = journalAt();
      const placed = order('o1', 'buy', 2, 100, 0, { strategy: undefined });
      const filled = order('o1', 'buy', 2, 100, 5, { filledSize: 2, status: 'filled', reason: 'crossed' });
      journal.recordOrder(placed);
      journal.recordOrder(filled);
      const f = fill('o1', 'buy', 2, 100, -0.004, 3, { strategy: undefined, maker: false });
      journal.recordFill(f);
      const pay = { account: ACCOUNT, symbol: 'BTC-USD', amountUsd: -0.25, rate: 0.0001, timeNs: 1_767_225_600_000_000_777n };
      journal.recordFunding(pay);
      const p1 = { account: ACCOUNT, symbol: 'BTC-USD', size: 1, entryPrice: 100, realizedPnlUsd: 0, unrealizedPnlUsd: 1, atMs: T0_MS };
      const p2 = { ...p1, size: -0.5, entryPrice: 101, realizedPnlUsd: 2, unrealizedPnlUsd: -1, atMs: T0_MS + 10 };
      const eth = { ...p1, symbol: 'ETH-USD', size: 3 };
      journal.recordPosition(p1);
      journal.recordPosition(eth);
      journal.recordPosition(p2);
      journal.close();
      const again = journalAt(path).journal;
      expect(again.orderEvents(ACCOUNT, 'o1')).toEqual([placed, filled]);
      expect(again.fills()).toEqual([{ ...f, seq: 0, epoch: null }]);
      expect(again.funding()).toEqual([pay]);
      expect(again.positions()).toEqual([p2, eth]);
    });

    it('keep the account notices of the current generation across a reopen (adl, refused cancels, fee tiers)', () => {
      const { journal, path } = journalAt();
      const adl = {
        kind: 'adl',
        symbol: 'BTC-USD',
        price: 100,
        size: 0.5,
        side: 'sell',
        reason: 'auto-deleveraging',
        venueTimeNs: 1_767_225_600_000_000_001n,
      } as const;
      const refused = { kind: 'cancelRejected', symbol: 'BTC-USD', orderId: 'o1', reason: 'order not found', venueTimeNs: 1_767_225_600_000_000_002n } as const;
      const all = {
        kind: 'cancelRejected',
        symbol: undefined,
        orderId: undefined,
        reason: 'nothing to cancel',
        venueTimeNs: 1_767_225_600_000_000_003n,
      } as const;
      const tiers = {
        kind: 'feeTiers',
        feeTiers: [{ symbol: 'BTC-USD', tierIndex: 2, rollingVolumeUsd: 1_500_000, makerBps: 1.8, takerBps: 3.3 }],
        venueTimeNs: 1_767_225_600_000_000_004n,
      } as const;
      for (const notice of [tiers, adl, refused, all]) journal.recordNotice({ account: ACCOUNT, notice });
      journal.close();
      expect(
        journalAt(path)
          .journal.notices()
          .map((r) => r.notice),
      ).toEqual([adl, refused, { kind: 'cancelRejected', reason: 'nothing to cancel', venueTimeNs: all.venueTimeNs }, tiers]);
    });

    it('store a fill or funding payment replayed after a reconnect once; equal fills of one match apart by seq', () => {
      const { journal } = journalAt();
      const f = fill('o1', 'buy', 1, 100, 0.1, 0);
      journal.recordFill(f);
      journal.flush();
      journal.recordFill(f);
      journal.recordFill({ ...f, size: 0.5 });
      journal.recordFill({ ...f, timeNs: f.timeNs + 1n });
      journal.recordFill({ ...f, seq: 1 });
      journal.recordFill({ ...f, seq: 1 });
      const pay = { account: ACCOUNT, symbol: 'BTC-USD', amountUsd: 1, rate: 0.001, timeNs: 5n };
      journal.recordFunding(pay);
      journal.recordFunding(pay);
      expect(journal.fills().map((r) => [r.size, r.timeNs - f.timeNs, r.seq])).toEqual([
        [1, 0n, 0],
        [0.5, 0n, 0],
        [1, 0n, 1],
        [1, 1n, 0],
      ]);
      expect(journal.funding()).toHaveLength(1);
    });

    it('refuse new rows once closed, after committing the buffered ones', () => {
      const { journal, path } = journalAt();
      journal.recordFill(fill('o1', 'buy', 1, 100, 0.1, 0));
      journal.close();
      expect(() => journal.recordFill(fill('o2', 'buy', 1, 100, 0.1, 0))).toThrow(/closed/);
      expect(journalAt(path).journal.fills()).toHaveLength(1);
    });
  });

  describe('report', () => {
    /**
     * mm on BTC-USD: buy 2 @100 (fee 0.10), buy 1 @103 (fee 0.05; fill journaled without its strategy), sell 2 @105
     * (rebate 0.02), a sell order never filled, then funding −0.50 on the long 1 left; funding +0.25 on SOL-USD, where
     * no strategy traded.
     */
    function scripted(): Journal {
      const { journal } = journalAt();
      journal.recordOrder(order('o1', 'buy', 2, 100, 0));
      journal.recordFill(fill('o1', 'buy', 2, 100, 0.1, 1_000));
      journal.recordOrder(order('o1', 'buy', 2, 100, 1_000, { filledSize: 2, status: 'filled' }));
      journal.recordOrder(order('o2', 'buy', 1, 103, 2_000));
      journal.recordFill(fill('o2', 'buy', 1, 103, 0.05, 3_000, { strategy: undefined }));
      journal.recordOrder(order('o3', 'sell', 2, 105, 4_000));
      journal.recordFill(fill('o3', 'sell', 2, 105, -0.02, 5_000));
      journal.recordOrder(order('o4', 'sell', 1, 110, 6_000));
      journal.recordOrder(order('o4', 'sell', 1, 110, 6_500, { status: 'cancelled' }));
      journal.recordFunding({ account: ACCOUNT, symbol: 'BTC-USD', amountUsd: -0.5, rate: 0.0001, timeNs: BigInt(T0_MS + 7_000) * NS });
      journal.recordFunding({ account: ACCOUNT, symbol: 'SOL-USD', amountUsd: 0.25, rate: -0.0001, timeNs: BigInt(T0_MS + 7_000) * NS });
      return journal;
    }

    it('computes PnL, fees, funding, volume and fill ratio per strategy and symbol', () => {
      const [account, mm] = scripted().report();
      expect(account).toMatchObject({
        strategy: UNATTRIBUTED,
        symbol: 'SOL-USD',
        fills: 0,
        fundingUsd: 0.25,
        netPnlUsd: 0.25,
        ordersPlaced: 0,
        fillRatio: null,
      });
      expect(mm).toMatchObject({ strategy: 'mm', symbol: 'BTC-USD', fills: 3, buySize: 3, sellSize: 2, ordersPlaced: 4, ordersFilled: 3, fillRatio: 0.75 });
      expect(mm!.volumeUsd).toBeCloseTo(200 + 103 + 210, 9);
      expect(mm!.feesUsd).toBeCloseTo(0.1 + 0.05 - 0.02, 9);
      expect(mm!.fundingUsd).toBeCloseTo(-0.5, 9);
      // average cost (200 + 103) / 3 = 101; 2 sold at 105
      expect(mm!.realizedPnlUsd).toBeCloseTo(8, 9);
      expect(mm!.netPnlUsd).toBeCloseTo(8 - 0.13 - 0.5, 9);
    });

    it('with sinceMs counts only later activity, at the cost basis built before it', () => {
      const [account, mm] = scripted().report({ sinceMs: T0_MS + 4_000 });
      expect(account!.fundingUsd).toBe(0.25);
      expect(mm).toMatchObject({ fills: 1, buySize: 0, sellSize: 2, ordersPlaced: 2, ordersFilled: 1, fillRatio: 0.5 });
      expect(mm!.volumeUsd).toBeCloseTo(210, 9);
      expect(mm!.feesUsd).toBeCloseTo(-0.02, 9);
      expect(mm!.realizedPnlUsd).toBeCloseTo(8, 9);
      expect(mm!.netPnlUsd).toBeCloseTo(8 + 0.02 - 0.5, 9);
      expect(scripted().report({ sinceMs: T0_MS + 8_000 })).toEqual([]);
    });
  });
});
