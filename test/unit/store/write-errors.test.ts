import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { NonceSource } from '../../../src/protocol/nonce.js';
import { Journal, type JournalWriteKind, type OrderRecord } from '../../../src/store/index.js';

const SIGNER = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
const ACCOUNT = 'BnQyDU3hTq7WkpxL9bxMmyfqTyzbEVGiBDF9nRcXVZHm';
const T0_NS = 1_767_225_600_000_000_000n;

const opened: Journal[] = [];
afterEach(() => {
  for (const j of opened.splice(0)) j.close();
});

/** A journal reporting its failed writes to `failures`, and its connection (SQLite's limits are per connection). */
function journalAt(path: string, failures: [JournalWriteKind, string][]): { journal: Journal; db: Database.Database } {
  const journal = Journal.open(path, { onWriteError: (kind, e) => failures.push([kind, e.message]) });
  opened.push(journal);
  return { journal, db: (journal as unknown as { db: Database.Database }).db };
}

const newPath = () => join(mkdtempSync(join(tmpdir(), 'perpbot-write-errors-')), 'j.sqlite');

function order(i: number): OrderRecord {
  return {
    account: ACCOUNT,
    strategy: 'mm',
    symbol: 'BTC-USD',
    orderId: `order-${i}-${'x'.repeat(200)}`,
    side: 'buy',
    price: 100_000,
    size: 0.001,
    filledSize: 0,
    status: 'placed',
    atNs: T0_NS + BigInt(i),
  };
}

describe('journal write errors', () => {
  it('on a full disk (SQLITE_FULL) reports each failed write by kind, keeps buffered rows and commits them once there is room', () => {
    const failures: [JournalWriteKind, string][] = [];
    const { journal, db } = journalAt(newPath(), failures);
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    let recorded = 0;
    while (failures.length === 0 && recorded < 10_000) {
      journal.recordOrder(order(recorded++));
      journal.flush();
    }
    expect(failures).toEqual([['order', 'database or disk is full']]);
    journal.recordFill({ ...order(recorded), feeUsd: 0, maker: true, timeNs: T0_NS });
    journal.flush();
    expect(failures.slice(1).sort()).toEqual([
      ['fill', 'database or disk is full'],
      ['order', 'database or disk is full'],
    ]);
    const batch = {
      signer: SIGNER,
      account: ACCOUNT,
      nonceNs: 1n,
      path: '/order',
      message: new Uint8Array(300),
      signature: 's',
      body: '{}',
      orderIds: [],
      atNs: 1n,
    };
    let nonceNs = 1n;
    expect(() => {
      for (;;) journal.recordBatch({ ...batch, nonceNs: nonceNs++ });
    }).toThrow('database or disk is full');
    expect(failures.at(-1)).toEqual(['batch', 'database or disk is full']);

    db.pragma('max_page_count = 1000000');
    expect(journal.orderEvents(ACCOUNT, order(recorded - 1).orderId)).toHaveLength(1);
    expect(journal.fills()).toHaveLength(1);
    expect(journal.recordBatch({ ...batch, nonceNs })).toBeGreaterThan(0);
  });

  it('keeps at most maxRetainedRows buffered rows while writes fail, dropping the oldest and reporting how many', () => {
    const failures: [JournalWriteKind, string][] = [];
    const dropped: number[] = [];
    const journal = Journal.open(newPath(), {
      onWriteError: (kind, e) => failures.push([kind, e.message]),
      maxRetainedRows: 10,
      onRowsDropped: (n) => dropped.push(n),
    });
    opened.push(journal);
    const db = (journal as unknown as { db: Database.Database }).db;
    db.pragma('query_only = 1');
    for (let i = 0; i < 8; i++) journal.recordOrder(order(i));
    journal.flush();
    expect(dropped).toEqual([]);
    for (let i = 8; i < 12; i++) journal.recordOrder(order(i));
    journal.flush();
    expect(dropped).toEqual([2]);
    expect(failures).toHaveLength(2);
    db.pragma('query_only = 0');
    expect(journal.journaledOrders().map((o) => o.orderId)).toEqual(Array.from({ length: 10 }, (_, i) => order(i + 2).orderId));
  });

  it('drops at close what still cannot be written, reporting it instead of throwing', () => {
    const failures: [JournalWriteKind, string][] = [];
    const path = newPath();
    const { journal, db } = journalAt(path, failures);
    db.pragma('query_only = 1');
    journal.recordOrder(order(1));
    expect(() => journal.close()).not.toThrow();
    expect(failures).toEqual([['order', 'attempt to write a readonly database']]);
    const reader = Journal.open(path, { readOnly: true });
    opened.push(reader);
    expect(reader.journaledOrders()).toEqual([]);
  });

  it('a nonce mark that cannot be saved is reported and thrown: no nonce beyond the saved mark is handed out, and a restart never reuses one', async () => {
    const failures: [JournalWriteKind, string][] = [];
    const path = newPath();
    const { journal, db } = journalAt(path, failures);
    const clock = new ManualClock(T0_NS);
    const source = new NonceSource({ signer: SIGNER, clock, store: journal.nonces, reserveNs: 10_000_000_000n });
    const handedOut = [source.next()];
    db.pragma('query_only = 1');
    clock.advanceMs(6_000);
    // Within the saved reservation: still signs; the early renewal fails and is reported.
    handedOut.push(source.next());
    await new Promise((r) => setImmediate(r));
    expect(failures).toEqual([['nonce', 'attempt to write a readonly database']]);
    clock.advanceMs(5_000);
    expect(() => source.next()).toThrow('attempt to write a readonly database');
    expect(failures).toHaveLength(2);
    expect(() => source.next()).toThrow('attempt to write a readonly database');
    journal.close();

    // The clock stepped back at the restart: the saved mark still puts every nonce above those handed out.
    const { journal: again } = journalAt(path, failures);
    const restarted = new NonceSource({ signer: SIGNER, clock: new ManualClock(T0_NS), store: again.nonces });
    expect(restarted.next()).toBeGreaterThan(handedOut.at(-1)!);
  });
});
