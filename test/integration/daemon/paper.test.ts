import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { report } from '../../../src/app/commands/report.js';
import { checkDaemonConfig } from '../../../src/app/config/index.js';
import { startDaemon, type Daemon } from '../../../src/app/daemon/daemon.js';
import type { Dialect } from '../../../src/core/types.js';
import { base58Encode } from '../../../src/protocol/base58.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { createLogger } from '../../../src/telemetry/index.js';
import { startVenue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';

const cleanup = cleanups();

const JOURNAL_TABLES = ['batches', 'order_events', 'fills', 'positions', 'funding', 'notices'] as const;

interface Status {
  venue: { mode: string; url: string };
  accounts: {
    name: string;
    account: string;
    openOrders: unknown[];
    positions: { symbol: string; size: number }[];
    margin: { totalBalanceUsd: number } | null;
  }[];
}

describe.each<Dialect>(['v1', 'current'])('paper trading (the daemon on a local venue of the %s dialect as its market data)', (dialect) => {
  it('quotes on the simulated exchange only: the venue gets no order, fills come from the fill model, the journal and /status say paper', async () => {
    // The test steps the market flow itself (a round every 20 ms), so it runs at the same pace on a slow machine.
    const venue = await startVenue({ seed: 7, dialect, host: '127.0.0.1', port: 0, flowIntervalMs: 3_600_000 });
    cleanup.push(() => venue.close());
    const flow = setInterval(() => venue.step(), 20);
    cleanup.push(() => clearInterval(flow));
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-paper-'));
    const key = Keypair.fromBytes(randomBytes(32));
    const secret = base58Encode(Uint8Array.from(JSON.parse(key.keyFileText()) as number[]));
    const path = join(dir, 'paper.yaml');
    writeFileSync(
      path,
      [
        'venue:',
        '  mode: paper',
        `  url: ${venue.url}`,
        `  wsUrl: ${venue.wsUrl}`,
        `  dialect: ${dialect}`,
        'accounts:',
        '  - name: main',
        '    secretKey: ${PAPER_SECRET}',
        '    paper: {collateralUsd: 25000}',
        'strategies:',
        '  - name: mm',
        '    module: market-maker',
        '    params: {symbol: BTC-USD, size: 0.001, maxPosition: 0.01, halfSpreadTicks: 1, minIntervalMs: 50}',
        'journal: {path: journal.sqlite}',
        'backtest: {fundingIntervalMs: 1000}',
        'telemetry: {port: 0, statusIntervalMs: 0}',
        'shutdown: {deadlineMs: 5000}',
        '',
      ].join('\n'),
    );
    const { config, strategies } = await checkDaemonConfig(path, { PAPER_SECRET: secret });
    const out: string[] = [];
    let daemon: Daemon | undefined = await startDaemon({ config, strategies, logger: createLogger({ level: 'silent' }), out: (l) => out.push(l) });
    cleanup.push(() => daemon?.stop('test cleanup'));
    const base = daemon.metricsUrl.replace(/\/metrics$/, '');
    const status = async () => (await (await fetch(`${base}/status`)).json()) as Status;

    await until(async () => (await fetch(`${base}/readyz`)).status === 200, 'readiness', 20_000, 50);
    const first = await status();
    expect(first.venue).toEqual({ mode: 'paper', url: venue.url });
    await until(async () => (await status()).accounts[0]!.openOrders.length > 0, 'paper quotes', 20_000, 50);
    await until(async () => (await status()).accounts[0]!.positions.some((p) => p.size !== 0), 'a paper fill (a position)', 30_000, 100);
    // The configured collateral, less what paper trading paid or made since (fees, PnL of a few fills of 0.001 BTC).
    const margin = (await status()).accounts[0]!.margin;
    expect(margin?.totalBalanceUsd).toBeGreaterThan(24_900);
    expect(margin?.totalBalanceUsd).toBeLessThan(25_100);
    expect(out.join('\n')).toMatch(/PAPER TRADING on the market data of/);
    // Funding every second of the held position, as the simulated exchange pays it, reaches the journal.
    const fundingRows = () => {
      const db = new Database(join(dir, 'journal.sqlite'), { readonly: true });
      try {
        return db.prepare('SELECT COUNT(*) FROM funding WHERE paper = 1 AND amount_usd <> 0').pluck().get() as number;
      } finally {
        db.close();
      }
    };
    await until(() => fundingRows() > 0, 'a paper funding payment in the journal', 20_000, 200);

    // The venue never saw an order of the account: none open, none in its history, no fill.
    const account = key.publicKey;
    expect(venue.engine.openOrders(account)).toEqual([]);
    expect(venue.engine.orderHistory(account)).toEqual([]);
    expect(venue.engine.fills(account)).toEqual([]);

    const summary = await daemon.stop('test');
    daemon = undefined;
    expect(summary).toEqual({ leftOpen: 0, timedOut: false });
    expect(venue.engine.orderHistory(account)).toEqual([]);
    expect(out.join('\n')).toMatch(/^status main \(paper\): pos /m);

    const reported: string[] = [];
    expect(await report(['--journal', join(dir, 'journal.sqlite')], (l) => reported.push(...l.split('\n')))).toBe(0);
    expect(reported.find((l) => l.startsWith('mm '))).toMatch(/^mm\s+BTC-USD\s+[1-9]/);
    expect(reported.at(-1)).toMatch(/^paper trading: (\d+) of the \1 fills/);

    const db = new Database(join(dir, 'journal.sqlite'), { readonly: true });
    try {
      const count = (sql: string) => (db.prepare(sql).pluck().get() as number) ?? 0;
      for (const table of JOURNAL_TABLES) expect(count(`SELECT COUNT(*) FROM ${table} WHERE paper <> 1`), table).toBe(0);
      expect(count('SELECT COUNT(*) FROM batches')).toBeGreaterThan(0);
      expect(count("SELECT COUNT(*) FROM order_events WHERE status = 'placed'")).toBeGreaterThan(0);
      expect(count('SELECT COUNT(*) FROM fills')).toBeGreaterThan(0);
      expect(count('SELECT COUNT(*) FROM batches WHERE outcome IS NULL OR resolution IS NOT NULL')).toBe(0);
      expect(db.prepare('SELECT venue FROM epochs').pluck().all()).toEqual([`paper ${venue.url}`]);
    } finally {
      db.close();
    }
  }, 90_000);
});
