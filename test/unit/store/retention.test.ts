import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { journalSizeGauge } from '../../../src/app/daemon/recording.js';
import { ManualClock } from '../../../src/core/clock.js';
import { Journal, type BatchRecord } from '../../../src/store/index.js';
import { startRetention } from '../../../src/store/retention.js';
import { until } from '../../support/until.js';

const ACCOUNT = 'BnQyDU3hTq7WkpxL9bxMmyfqTyzbEVGiBDF9nRcXVZHm';
const SIGNER = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
const DAY_MS = 86_400_000;
const NOW_MS = 1_800_000_000_000;
const NS = 1_000_000n;

const open: Journal[] = [];
afterEach(() => {
  for (const j of open.splice(0)) j.close();
});
function journal(): Journal {
  const j = Journal.open(join(mkdtempSync(join(tmpdir(), 'perpbot-retention-')), 'j.sqlite'));
  open.push(j);
  return j;
}

function batch(nonceNs: bigint, atMs: number, body = '{}'): BatchRecord {
  return {
    signer: SIGNER,
    account: ACCOUNT,
    nonceNs,
    path: '/order',
    message: new Uint8Array([1]),
    signature: 's',
    body,
    orderIds: [],
    atNs: BigInt(atMs) * NS,
  };
}

/** One row of every prunable table at `atMs`, and a settled batch. */
function rowsAt(j: Journal, atMs: number, n: number): void {
  const atNs = BigInt(atMs) * NS;
  j.recordOrder({
    account: ACCOUNT,
    strategy: 's',
    symbol: 'ETH-USD',
    orderId: `o${n}`,
    side: 'buy',
    price: 1,
    size: 1,
    filledSize: 0,
    status: 'placed',
    atNs,
  });
  j.recordFill({ account: ACCOUNT, strategy: 's', symbol: 'ETH-USD', orderId: `o${n}`, side: 'buy', price: 1, size: 1, feeUsd: 0, maker: true, timeNs: atNs });
  j.recordFunding({ account: ACCOUNT, symbol: 'ETH-USD', amountUsd: 1, rate: 0, timeNs: atNs });
  j.recordPosition({ account: ACCOUNT, symbol: 'ETH-USD', size: 1, entryPrice: 1, realizedPnlUsd: 0, unrealizedPnlUsd: 0, atMs });
  j.settleBatch(j.recordBatch(batch(BigInt(n) + 1000n, atMs)), 'accepted');
}

function pruneAll(j: Journal, step: Parameters<Journal['prune']>[0]): number[] {
  const steps: number[] = [];
  for (let deleted = j.prune(step); deleted > 0; deleted = j.prune(step)) steps.push(deleted);
  return steps;
}

describe('journal retention', () => {
  it('prunes rows past the age in bounded steps; keeps nonce marks, epochs, unresolved batches and recent rows', () => {
    const j = journal();
    j.nonces.save(SIGNER, 5n);
    j.catchUp(ACCOUNT, 'http://venue', [], 1n);
    const unresolved = j.recordBatch(batch(1n, NOW_MS - 30 * DAY_MS));
    for (let i = 0; i < 7; i++) rowsAt(j, NOW_MS - 10 * DAY_MS + i, i);
    rowsAt(j, NOW_MS - DAY_MS, 99);
    const steps = pruneAll(j, { beforeMs: NOW_MS - 7 * DAY_MS, rows: 3 });
    // five tables, at most three rows each per step
    expect(Math.max(...steps)).toBeLessThanOrEqual(15);
    expect(steps.reduce((a, b) => a + b, 0)).toBe(7 * 5);
    expect(j.fills().map((f) => f.orderId)).toEqual(['o99']);
    expect(j.funding()).toHaveLength(1);
    expect(j.positions()).toHaveLength(1);
    expect(j.orderEvents(ACCOUNT, 'o99')).toHaveLength(1);
    expect(j.orderEvents(ACCOUNT, 'o0')).toEqual([]);
    expect(j.unresolvedBatches().map((b) => b.id)).toEqual([unresolved]);
    expect(j.batch(unresolved + 8)).toMatchObject({ outcome: 'accepted' });
    expect(j.nonces.load(SIGNER)).toBe(5n);
    expect(j.catchUp(ACCOUNT, 'http://venue', [], 2n)).toMatchObject({ continued: false, epoch: 2 });
  });

  it('does not journal again a funding payment older than the age it pruned (the venue lists its funding history every minute)', () => {
    const j = journal();
    const old = { account: ACCOUNT, symbol: 'ETH-USD', amountUsd: 1, rate: 0, timeNs: BigInt(NOW_MS - 8 * DAY_MS) * NS };
    const recent = { ...old, timeNs: BigInt(NOW_MS) * NS };
    j.recordFunding(old);
    pruneAll(j, { beforeMs: NOW_MS - 7 * DAY_MS, rows: 10 });
    j.recordFunding(old);
    j.recordFunding(recent);
    expect(j.funding()).toEqual([{ ...recent }]);
  });

  it('prunes the oldest rows while the pages in use exceed the size bound, and hands freed pages back to the file system', () => {
    const j = journal();
    const body = 'x'.repeat(2000);
    for (let i = 0; i < 2000; i++) j.settleBatch(j.recordBatch(batch(BigInt(i) + 10n, NOW_MS + i, body)), 'accepted');
    const before = j.usedBytes();
    expect(before).toBeGreaterThan(4 * 2 ** 20);
    const steps = pruneAll(j, { maxBytes: 2 ** 20, rows: 100 });
    expect(Math.max(...steps)).toBeLessThanOrEqual(100);
    expect(j.usedBytes()).toBeLessThanOrEqual(2 ** 20);
    expect(j.usedBytes()).toBeGreaterThan(2 ** 20 / 2);
    expect(j.batch(2000)).toBeDefined();
    expect(j.batch(1)).toBeUndefined();
    j.close();
    const fileBytes = j.fileBytes();
    expect(fileBytes).toBeLessThan(before / 2);
  });

  it('runs on a timer with the configured age and reports the journal size as perpbot_journal_bytes', async () => {
    const j = journal();
    rowsAt(j, NOW_MS - 8 * DAY_MS, 1);
    rowsAt(j, NOW_MS, 2);
    const pruned: number[] = [];
    const stop = startRetention(j, {
      maxAgeDays: 7,
      maxMegabytes: 1024,
      pruneIntervalMs: 5,
      clock: new ManualClock(BigInt(NOW_MS) * NS),
      onPruned: (n) => pruned.push(n),
      onError: (e) => {
        throw e;
      },
    });
    await until(() => pruned.length > 0, 'a prune step');
    stop();
    expect(pruned).toEqual([5]);
    expect(j.fills().map((f) => f.orderId)).toEqual(['o2']);

    const registry = new Registry();
    journalSizeGauge(j, registry);
    const text = await registry.metrics();
    const bytes = Number(/^perpbot_journal_bytes (\d+)$/m.exec(text)?.[1]);
    expect(bytes).toBe(j.fileBytes());
    expect(bytes).toBeGreaterThan(0);
  });
});
