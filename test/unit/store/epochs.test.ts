import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { buildReport, type ReportFill } from '../../../src/store/report.js';
import { Journal, type FillRecord } from '../../../src/store/index.js';
import { MIGRATIONS } from '../../../src/store/schema.js';

const ACCOUNT = 'BnQyDU3hTq7WkpxL9bxMmyfqTyzbEVGiBDF9nRcXVZHm';
const OTHER = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
const VENUE = 'http://127.0.0.1:1/api/v1';

const open: Journal[] = [];
afterEach(() => {
  for (const j of open.splice(0)) j.close();
});
function journalAt(path = join(mkdtempSync(join(tmpdir(), 'perpbot-epochs-')), 'j.sqlite')): Journal {
  const j = Journal.open(path);
  open.push(j);
  return j;
}

function fill(orderId: string, side: 'buy' | 'sell', size: number, price: number, timeNs: bigint, more: Partial<FillRecord> = {}): FillRecord {
  return { account: ACCOUNT, strategy: undefined, symbol: 'ETH-USD', orderId, side, price, size, feeUsd: 0, maker: false, timeNs, ...more };
}

describe('account epochs', () => {
  it('the report starts each epoch flat: long 0.5 @3000 on one venue instance, short 0.5 @3100 on the next realizes nothing', () => {
    const row = (epoch: number, side: 'buy' | 'sell', price: number, timeNs: bigint): ReportFill => ({
      account: ACCOUNT,
      epoch,
      strategy: 's',
      symbol: 'ETH-USD',
      side,
      price,
      size: 0.5,
      feeUsd: 0,
      timeNs,
    });
    const [r] = buildReport([row(1, 'buy', 3000, 1n), row(2, 'sell', 3100, 2n)], [], []);
    expect(r).toMatchObject({ fills: 2, realizedPnlUsd: 0 });
  });

  it('catchUp continues the epoch of the newest journaled fill the venue holds and journals only the fills after it', () => {
    const j = journalAt();
    const a = fill('oa', 'buy', 1, 100, 10n);
    j.recordFill(fill('early', 'buy', 1, 90, 5n));
    const first = j.catchUp(ACCOUNT, VENUE, [], 1n);
    expect(first).toEqual({ epoch: 1, continued: false, imported: 0, repaired: 0 });
    j.recordFill(a);
    const missed = [fill('ob', 'sell', 2, 110, 20n, { maker: true }), fill('oc', 'buy', 0.5, 105, 30n)];
    // `before` is older than the newest known fill and missing from the journal (pruned, or before it): not imported.
    const before = fill('old', 'buy', 7, 1, 3n);
    const again = j.catchUp(ACCOUNT, VENUE, [before, a, ...missed], 2n);
    expect(again).toEqual({ epoch: 1, continued: true, imported: 2, repaired: 0 });
    expect(j.fills().map((f) => [f.orderId, f.epoch])).toEqual([
      ['early', 1],
      ['oa', 1],
      ['ob', 1],
      ['oc', 1],
    ]);
    expect(j.netPositions(ACCOUNT)).toEqual(new Map([['ETH-USD', 1 + 1 - 2 + 0.5]]));
    expect(j.catchUp(ACCOUNT, VENUE, [a, ...missed], 3n)).toEqual({ epoch: 1, continued: true, imported: 0, repaired: 0 });
  });

  it('catchUp starts a new epoch when the venue holds none of the journaled fills; rows recorded before it join it', () => {
    const j = journalAt();
    j.catchUp(ACCOUNT, VENUE, [], 1n);
    j.recordFill(fill('oa', 'buy', 1, 100, 10n));
    j.catchUp(OTHER, VENUE, [], 1n);
    j.recordOrder({
      account: ACCOUNT,
      strategy: 's',
      symbol: 'ETH-USD',
      orderId: 'x',
      side: 'buy',
      price: 1,
      size: 1,
      filledSize: 0,
      status: 'placed',
      atNs: 1n,
    });
    const fresh = j.catchUp(ACCOUNT, 'http://elsewhere/api/v1', [fill('ob', 'sell', 0.25, 120, 40n)], 50n);
    expect(fresh).toEqual({ epoch: 3, continued: false, imported: 1, repaired: 0 });
    expect(j.netPositions(ACCOUNT)).toEqual(new Map([['ETH-USD', -0.25]]));
    expect(j.fills().map((f) => f.epoch)).toEqual([1, 3]);
  });

  it('a journal from before epochs gets one epoch per account for its rows', () => {
    const j = journalAt(
      legacyJournal(`INSERT INTO fills VALUES (1, '${ACCOUNT}', NULL, 'ETH-USD', 'o1', 'buy', 100, 1, 0, 0, '00000000000000000010', 0);
      INSERT INTO funding VALUES (1, '${OTHER}', 'ETH-USD', 1, 0.001, '00000000000000000020');`),
    );
    const [legacy] = j.fills().map((f) => f.epoch);
    expect(legacy).toEqual(expect.any(Number));
    expect(j.funding()).toHaveLength(1);
    expect(j.catchUp(OTHER, VENUE, [], 1n)).toMatchObject({ continued: false });
    expect(j.catchUp(ACCOUNT, VENUE, [fill('o1', 'buy', 1, 100, 10n), fill('o2', 'sell', 1, 100, 11n)], 1n)).toEqual({
      epoch: legacy,
      continued: true,
      imported: 1,
      repaired: 0,
    });
  });

  it('catchUp gives a maker fill of an epoch from before epochs the side the venue shows (earlier builds journaled the taker’s)', () => {
    // An earlier build journaled maker fill om (a sell) with the taker's side after a stream gap.
    const j = journalAt(
      legacyJournal(`INSERT INTO fills VALUES (1, '${ACCOUNT}', NULL, 'ETH-USD', 'om', 'buy', 100, 1, 0, 1, '00000000000000000010', 0);
      INSERT INTO fills VALUES (2, '${ACCOUNT}', NULL, 'ETH-USD', 'ot', 'buy', 100, 1, 0, 0, '00000000000000000020', 0);`),
    );
    const venue = [fill('om', 'sell', 1, 100, 10n, { maker: true }), fill('ot', 'buy', 1, 100, 20n)];
    expect(j.catchUp(ACCOUNT, VENUE, venue, 2n)).toMatchObject({ continued: true, imported: 0, repaired: 1 });
    expect(j.fills().map((f) => f.side)).toEqual(['sell', 'buy']);
    expect(j.netPositions(ACCOUNT)).toEqual(new Map([['ETH-USD', 0]]));
    expect(j.catchUp(ACCOUNT, VENUE, venue, 3n)).toMatchObject({ repaired: 0 });
  });
});

/** A journal file as builds before epochs wrote it (schema version 1, its first migration), holding `rows` (SQL inserts). */
function legacyJournal(rows: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'perpbot-epochs-')), 'old.sqlite');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(MIGRATIONS[0]!);
  db.exec(`${rows}
    PRAGMA user_version = 1;`);
  db.close();
  return path;
}
