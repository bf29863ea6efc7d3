import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkDaemonConfig } from '../../../src/app/config/index.js';
import { startDaemon, type Daemon } from '../../../src/app/daemon/daemon.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { Journal } from '../../../src/store/index.js';
import { createLogger } from '../../../src/telemetry/index.js';
import { cleanups } from '../../support/cleanups.js';
import { writeDaemonYaml } from '../../support/daemon-yaml.js';
import { until } from '../../support/until.js';
import { quietVenue, Trader } from '../venue/harness.js';

const cleanup = cleanups();
afterEach(() => {
  vi.restoreAllMocks();
});

interface Started {
  daemon: Daemon;
  /** The daemon's own journal connection (a fault set on it is the daemon's: SQLite limits are per connection). */
  db: Database.Database;
  logs: string[];
  out: string[];
}

/** Starts the daemon of `configPath` in this process and keeps its journal's connection. */
async function start(configPath: string): Promise<Started> {
  const opened: Journal[] = [];
  const open = Journal.open.bind(Journal);
  vi.spyOn(Journal, 'open').mockImplementation((path, opts) => {
    const journal = open(path, opts);
    opened.push(journal);
    return journal;
  });
  const { config, strategies } = await checkDaemonConfig(configPath, {});
  const logs: string[] = [];
  const out: string[] = [];
  const daemon = await startDaemon({
    config: { ...config, telemetry: { ...config.telemetry, statusIntervalMs: 50 } },
    strategies,
    logger: createLogger({ level: 'info', destination: { write: (l: string) => void logs.push(l) } }),
    out: (l) => out.push(l),
  });
  cleanup.push(() => daemon.stop('test cleanup'));
  vi.restoreAllMocks();
  expect(opened).toHaveLength(1);
  // The journal keeps its connection private; the test reaches it to break the daemon's writes for real.
  return { daemon, db: (opened[0] as unknown as { db: Database.Database }).db, logs, out };
}

/** The venue's fills of `t`'s account as `orderId|price|size`, sorted. */
async function venueFills(t: Trader): Promise<string[]> {
  const rows = (await t.query('fills')) as { fills: { maker: string; orderIdMaker: string; orderIdTaker: string; price: number; amount: number } }[];
  return rows.map(({ fills: f }) => `${f.maker === t.account ? f.orderIdMaker : f.orderIdTaker}|${f.price}|${f.amount}`).sort();
}

/**
 * A venue with a book (another account's bid and ask) and the daemon's market maker quoting both sides, every batch
 * settled in the journal; `hitBid` sells 0.001 into the bot's bid.
 */
async function quoting() {
  const venue = await quietVenue({ seed: 5 });
  cleanup.push(() => venue.close());
  const maker = new Trader(venue);
  const taker = new Trader(venue);
  await maker.faucet(100_000);
  await taker.faucet(100_000);
  expect((await maker.orders(maker.limit('BTC-USD', true, 99_000, 0.01), maker.limit('BTC-USD', false, 101_000, 0.01))).status).toBe(200);
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-journal-fault-'));
  const configPath = writeDaemonYaml(dir, venue);
  const first = await start(configPath);
  const bot = new Trader(venue, Keypair.fromFile(join(dir, 'keys/main.json')));
  const open = () => venue.engine.openOrders(bot.account);
  await until(() => open().length === 2, 'the market maker quotes both sides', 20_000, 20);
  const unsettled = first.db.prepare('SELECT COUNT(*) FROM batches WHERE outcome IS NULL').pluck();
  await until(() => unsettled.get() === 0, 'the quotes’ batches settled in the journal', 5_000, 20);
  const hitBid = async () => {
    const bid = Math.max(
      ...open()
        .filter((o) => o.isBuy)
        .map((o) => o.price),
    );
    expect((await taker.orders(taker.limit('BTC-USD', false, bid, 0.001, 'IOC'))).status).toBe(200);
  };
  return { dir, configPath, first, bot, open, hitBid };
}

describe('the daemon when its journal cannot be written', () => {
  it('halts trading, cancels every order and stays up; a restart after the fix journals every fill the venue made', async () => {
    const { dir, configPath, first, bot, open, hitBid } = await quoting();
    const base = first.daemon.metricsUrl.replace(/\/metrics$/, '');

    // Every write of the daemon's journal connection fails from now on (SQLITE_READONLY), nonce marks included.
    first.db.pragma('query_only = 1');
    await hitBid();
    await until(() => first.daemon.readiness().reasons.some((r) => r.includes('journal write failed')), 'readiness names the journal', 10_000, 20);
    await until(() => open().length === 0, 'every resting order cancelled', 10_000, 20);
    expect((await venueFills(bot)).length).toBe(1);

    const readyz = await fetch(`${base}/readyz`);
    expect(readyz.status).toBe(503);
    expect(await readyz.text()).toContain('journal write failed: attempt to write a readonly database');
    const status = (await (await fetch(`${base}/status`)).json()) as { journal: unknown; accounts: { trading: { state: string; reason: string } }[] };
    expect(status.journal).toEqual({ ok: false, error: 'journal write failed: attempt to write a readonly database' });
    expect(status.accounts[0]!.trading).toMatchObject({ state: 'HALTED', reason: 'journal write failed: attempt to write a readonly database' });
    const metrics = await (await fetch(first.daemon.metricsUrl)).text();
    expect(metrics).toMatch(/^perpbot_journal_write_errors_total\{kind="(fill|order|batch|nonce)"\} [1-9]/m);
    await until(() => first.out.some((l) => l.includes('HALTED') && l.includes('journal FAILED')), 'the status line says so', 5_000, 20);
    expect(first.logs.filter((l) => l.includes('"journal write failed: trading halted on every account"'))).toHaveLength(1);

    // The operator fixes the disk and restarts: the start-up catch-up journals the fill the broken journal lost.
    expect(await first.daemon.stop('operator restart')).toEqual({ leftOpen: 0, timedOut: false });
    const second = await start(configPath);
    const reader = Journal.open(join(dir, 'journal.sqlite'), { readOnly: true });
    cleanup.push(() => reader.close());
    const journaled = () =>
      reader
        .fills()
        .map((f) => `${f.orderId}|${f.price}|${f.size}`)
        .sort();
    const expected = await venueFills(bot);
    await until(() => journaled().join() === expected.join(), 'every venue fill journaled', 10_000, 20);
    expect(second.logs.find((l) => l.includes('journal caught up with the venue'))).toContain('"imported":1');
    expect(second.daemon.readiness().reasons.filter((r) => r.includes('journal'))).toEqual([]);
  }, 60_000);

  it('still cancels every order when the journal breaks after a quiet spell longer than the nonces reserved ahead (10 s)', async () => {
    const { first, open, hitBid } = await quoting();
    // Nothing is signed meanwhile: the quotes rest on a still book.
    await new Promise((r) => setTimeout(r, 11_000));
    expect(open()).toHaveLength(2);
    first.db.pragma('query_only = 1');
    await hitBid();
    await until(() => first.daemon.readiness().reasons.some((r) => r.includes('journal write failed')), 'readiness names the journal', 10_000, 20);
    await until(() => open().length === 0, 'every resting order cancelled', 10_000, 20);
    expect(first.logs.filter((l) => l.includes('not signed'))).toEqual([]);
  }, 60_000);
});
