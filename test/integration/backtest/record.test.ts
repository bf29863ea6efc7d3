// `perpbot record` as a process against a real local venue on 127.0.0.1:0: a timed recording reads back whole, a
// reconnect's snapshot is recorded, SIGTERM closes the file cleanly, `kill -9` loses at most the last second; and the
// daemon records while it trades (config record:).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../src/backtest/recording/events.js';
import { readRecording } from '../../../src/backtest/recording/reader.js';
import { checkDaemonConfig } from '../../../src/app/config/index.js';
import { startDaemon } from '../../../src/app/daemon/daemon.js';
import { base58Encode } from '../../../src/protocol/base58.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { createLogger } from '../../../src/telemetry/index.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'dist/src/cli.js');
const cleanup = cleanups();
const dir = mkdtempSync(join(tmpdir(), 'perpbot-record-'));
let n = 0;
const fresh = () => join(dir, `r${n++}.rec`);

interface Run {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exit: Promise<number | null>;
}

function perpbot(args: string[]): Run {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => void (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => void (stderr += d.toString()));
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

async function venue(opts: Parameters<typeof startVenue>[0] = {}): Promise<Venue> {
  const v = await startVenue({ flowIntervalMs: 50, ...opts });
  cleanup.push(() => v.close());
  return v;
}

function read(path: string): { events: RecordedEvent[]; dropped: number; symbols: string[] } {
  const r = readRecording(path);
  const events = [...r.events()];
  return { events, dropped: r.droppedTailBytes, symbols: r.header.markets.map((m) => m.symbol) };
}

const symbolOf = (e: RecordedEvent) => (e.kind === 'book' ? e.book.symbol : e.kind === 'trade' ? e.trade.symbol : e.ticker.symbol);
const count = (events: readonly RecordedEvent[], what: (e: RecordedEvent) => boolean) => events.filter(what).length;

describe('perpbot record (a process, against a local venue)', () => {
  it('records 2 s of book, trades and tickers of the named markets, stamped with receive times, and reads them back', async () => {
    const v = await venue();
    const out = fresh();
    const startNs = BigInt(Date.now()) * 1_000_000n;
    const run = perpbot(['record', '--url', v.url, '--ws-url', v.wsUrl, '--symbols', 'BTC-USD,ETH-USD', '--duration', '2s', '--out', out]);
    expect(await run.exit, run.stderr()).toBe(0);
    const endNs = BigInt(Date.now()) * 1_000_000n;
    expect(run.stdout()).toMatch(/^recording BTC-USD, ETH-USD from http:\/\/127\.0\.0\.1:\d+\/api\/v1 to .* for 2\.0 s/);
    expect(run.stdout()).toMatch(/recorded \d+ events \(\d+ bytes\)/);
    const { events, dropped, symbols } = read(out);
    expect(dropped).toBe(0);
    expect(symbols).toEqual(['BTC-USD', 'ETH-USD']);
    for (const s of symbols) {
      const books = events.filter((e) => e.kind === 'book' && e.book.symbol === s);
      expect(books[0]?.kind === 'book' && books[0].book.kind).toBe('snapshot');
      expect(books.length).toBeGreaterThan(5);
      expect(count(events, (e) => e.kind === 'ticker' && e.ticker.symbol === s)).toBeGreaterThanOrEqual(5);
    }
    expect(count(events, (e) => e.kind === 'trade')).toBeGreaterThan(0);
    expect(new Set(events.map(symbolOf))).toEqual(new Set(symbols));
    for (const e of events) {
      expect(e.recvNs > startNs && e.recvNs < endNs).toBe(true);
      if (e.kind === 'ticker') expect(e.ticker.markPrice).toBeGreaterThan(0);
    }
  });

  it('records a venue of the current dialect through the same port', async () => {
    const v = await venue({ seed: 9, dialect: 'current', network: 'devnet' });
    const out = fresh();
    const run = perpbot([
      'record',
      '--url',
      v.url,
      '--ws-url',
      v.wsUrl,
      '--dialect',
      'current',
      '--network',
      'devnet',
      '--symbols',
      'BTC-USD',
      '--duration',
      '3s',
      '--out',
      out,
    ]);
    expect(await run.exit, run.stderr()).toBe(0);
    const r = readRecording(out);
    const tick = v.engine.markets().find((m) => m.symbol === 'BTC-USD')!.tickSize;
    expect(r.header).toMatchObject({ dialect: 'current', venue: v.url, markets: [{ symbol: 'BTC-USD', tickSizeUsd: tick }] });
    const books = [...r.events()].flatMap((e) => (e.kind === 'book' ? [e.book] : []));
    expect(books[0]?.kind).toBe('snapshot');
    expect(books.slice(1).some((b) => b.kind === 'delta')).toBe(true);
    for (const b of books) for (const l of [...b.bids, ...b.asks]) expect(Math.abs(l.price / tick - Math.round(l.price / tick))).toBeLessThan(1e-6);
  });

  it('records the snapshot that follows a reconnect as a snapshot', async () => {
    const v = await venue({ seed: 5 });
    const out = fresh();
    const run = perpbot(['record', '--url', v.url, '--symbols', 'BTC-USD', '--duration', '6s', '--out', out]);
    await until(() => run.stdout().includes('recording'), 'the recorder to start', 10_000);
    await new Promise((r) => setTimeout(r, 1_000));
    await v.close();
    const again = await venue({ port: v.port, resume: v, seed: 5 });
    expect(again.port).toBe(v.port);
    expect(await run.exit, run.stderr()).toBe(0);
    const { events } = read(out);
    const snapshots = events.filter((e) => e.kind === 'book' && e.book.kind === 'snapshot');
    expect(snapshots.length).toBeGreaterThanOrEqual(2);
    const second = events.indexOf(snapshots[1]!);
    expect(count(events.slice(second), (e) => e.kind === 'book' && e.book.kind === 'delta')).toBeGreaterThan(0);
  });

  it('SIGTERM closes the file cleanly; an existing file is refused', async () => {
    const v = await venue();
    const out = fresh();
    const run = perpbot(['record', '--url', v.url, '--symbols', 'ETH-USD', '--out', out]);
    await until(() => run.stdout().includes('recording'), 'the recorder to start', 10_000);
    await new Promise((r) => setTimeout(r, 700));
    run.child.kill('SIGTERM');
    expect(await run.exit, run.stderr()).toBe(0);
    expect(run.stdout()).toMatch(/recorded [1-9]\d* events/);
    const { events, dropped } = read(out);
    expect(dropped).toBe(0);
    expect(events.length).toBeGreaterThan(0);
    const refused = perpbot(['record', '--url', v.url, '--symbols', 'ETH-USD', '--out', out]);
    expect(await refused.exit).toBe(1);
    expect(refused.stderr()).toMatch(/^RECORDING: .*the file exists/);
    const unknown = perpbot(['record', '--url', v.url, '--symbols', 'DOGE-USD', '--out', fresh()]);
    expect(await unknown.exit).toBe(2);
    expect(unknown.stderr()).toMatch(/lists no market DOGE-USD/);
  });

  it('kill -9 loses at most the last second', async () => {
    const v = await venue();
    const out = fresh();
    const run = perpbot(['record', '--url', v.url, '--symbols', 'BTC-USD,ETH-USD', '--out', out]);
    await until(() => run.stdout().includes('recording'), 'the recorder to start', 10_000);
    await until(() => existsSync(out) && statSync(out).size > 4_000, 'the recording to grow', 10_000);
    await new Promise((r) => setTimeout(r, 1_500));
    const killNs = BigInt(Date.now()) * 1_000_000n;
    run.child.kill('SIGKILL');
    await run.exit;
    const { events } = read(out);
    expect(events.length).toBeGreaterThan(0);
    const lastNs = events.at(-1)!.recvNs;
    // Market data arrives every 50 ms here (flow) and 200 ms (tickers): the file must hold what came up to 1 s before the kill.
    expect(Number(killNs - lastNs) / 1e6).toBeLessThan(1_000);
  });
});

describe('the daemon records while it trades (config record:)', () => {
  it("writes the strategies' markets to record.out, and to the next free name when the file exists", async () => {
    const v = await venue();
    const work = mkdtempSync(join(tmpdir(), 'perpbot-record-daemon-'));
    const secret = base58Encode(Uint8Array.from(JSON.parse(Keypair.fromBytes(randomBytes(32)).keyFileText()) as number[]));
    writeFileSync(join(work, 'market.rec'), 'taken');
    const path = join(work, 'daemon.yaml');
    writeFileSync(
      path,
      [
        'venue:',
        '  mode: remote',
        `  url: ${v.url}`,
        `  wsUrl: ${v.wsUrl}`,
        'accounts:',
        '  - name: main',
        '    secretKey: ${MAIN_SECRET}',
        '    faucetUsd: 50000',
        'strategies:',
        '  - module: market-maker',
        '    params: {symbol: ETH-USD, size: 0.01, maxPosition: 0.1, minIntervalMs: 100}',
        'journal: {path: journal.sqlite}',
        'telemetry: {port: 0, statusIntervalMs: 0}',
        'record: {out: market.rec}',
        '',
      ].join('\n'),
    );
    const { config, strategies } = await checkDaemonConfig(path, { MAIN_SECRET: secret });
    const daemon = await startDaemon({ config, strategies, logger: createLogger({ level: 'silent' }), out: () => undefined });
    cleanup.push(() => daemon.stop('test cleanup'));
    const out = join(work, 'market-1.rec');
    await until(() => existsSync(out) && statSync(out).size > 2_000, 'the daemon to record', 15_000);
    const metrics = await (await fetch(daemon.metricsUrl)).text();
    expect(metrics).toMatch(/^perpbot_recording_write_errors_total 0$/m);
    await daemon.stop('test');
    const { events, dropped, symbols } = read(out);
    expect(dropped).toBe(0);
    expect(symbols).toEqual(['ETH-USD']);
    // The recorder joins the session's held book stream: it asks for a snapshot and keeps no delta before it.
    const books = events.filter((e) => e.kind === 'book');
    expect(books[0]?.kind === 'book' && books[0].book.kind).toBe('snapshot');
    expect(books.length).toBeGreaterThan(1);
    expect(count(events, (e) => e.kind === 'ticker')).toBeGreaterThan(0);
  });
});
