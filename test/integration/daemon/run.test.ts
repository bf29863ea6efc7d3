import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { Journal } from '../../../src/store/index.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { ROOT, sample, startDaemonProcess, waitForStatus, type DaemonProcess } from '../../../bench/support/daemon-process.js';

const DEFAULT_CONFIG = join(ROOT, 'config/default.yaml');
const running: DaemonProcess[] = [];
const venues: Venue[] = [];

afterEach(async () => {
  for (const d of running.splice(0)) d.kill();
  for (const v of venues.splice(0)) await v.close();
});

function launch(args: string[], dataDir: string, extraEnv: NodeJS.ProcessEnv = {}): DaemonProcess {
  const d = startDaemonProcess(args, { PERPBOT_METRICS_PORT: '0', PERPBOT_DATA_DIR: dataDir, PERPBOT_CONTROL_TOKEN: 'test-token', ...extraEnv });
  running.push(d);
  return d;
}

/** Banner facts: metrics URL and the traded account. */
async function bannerOf(d: DaemonProcess): Promise<{ base: string; account: string }> {
  const [, base] = await d.line(/metrics\s+(http:\/\/127\.0\.0\.1:\d+)\/metrics/);
  const [, account] = await d.line(/account\s+main\s+([1-9A-HJ-NP-Za-km-z]{32,44})/);
  return { base: base!, account: account! };
}

/** Runs the Dockerfile's HEALTHCHECK command (exec form) with PERPBOT_METRICS_PORT=`port`, as the image sets it; returns its exit status. */
function dockerHealthcheck(port: string): number | null {
  const line = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').match(/HEALTHCHECK[^\n]*\\\n\s*CMD (\[.*\])/)![1]!;
  const [command, ...args] = JSON.parse(line) as string[];
  expect(command).toBe('node');
  return spawnSync(process.execPath, args, { timeout: 10_000, env: { ...process.env, PERPBOT_METRICS_PORT: port } }).status;
}

/** Waits until /metrics shows the bot quoting: orders accepted and resting. */
async function untilQuoting(base: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const text = await (await fetch(`${base}/metrics`)).text();
    if ((sample(text, 'perpbot_open_orders') ?? 0) > 0 && (sample(text, 'perpbot_submits_total', { outcome: 'accepted' }) ?? 0) > 0) return text;
    if (Date.now() > deadline) throw new Error(`the daemon did not start quoting within 30 s; metrics:\n${text}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('perpbot run (end to end, child process)', () => {
  it('default config: banner, /readyz, live /metrics and /status, kill and resume, SIGTERM cancels and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perpbot-e2e-'));
    const d = launch(['--config', DEFAULT_CONFIG], dataDir);
    const { base, account } = await bannerOf(d);
    await waitForStatus(`${base}/readyz`, 200);
    expect((await fetch(`${base}/livez`)).status).toBe(200);
    expect(dockerHealthcheck(new URL(base).port)).toBe(0);

    const text = await untilQuoting(base);
    expect(sample(text, 'perpbot_book_updates_total', { symbol: 'BTC-USD' })).toBeGreaterThan(0);
    expect(sample(text, 'perpbot_tick_to_trade_seconds_count')).toBeGreaterThan(0);
    expect(sample(text, 'perpbot_order_ack_seconds_count')).toBeGreaterThan(0);
    // Batches are signed with precomputed commitments (execution.signing's default), never short of one.
    expect(sample(text, 'perpbot_signatures_total', { path: 'precomputed' })).toBeGreaterThan(0);
    expect(sample(text, 'perpbot_signatures_total', { path: 'deterministic' })).toBe(0);
    expect(sample(text, 'perpbot_signing_commitments')).toBeGreaterThan(0);
    expect(sample(text, 'perpbot_trading_state', { state: 'ACTIVE' })).toBe(1);
    expect(sample(text, 'perpbot_stream_data_age_seconds', { topic: 'l2book:BTC-USD' })).toBeLessThan(5);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);

    const status = (await (await fetch(`${base}/status`)).json()) as {
      accounts: { account: string; openOrders: unknown[]; strategies: { name: string; state: string }[] }[];
    };
    expect(status.accounts[0]!.account).toBe(account);
    expect(status.accounts[0]!.strategies).toEqual([expect.objectContaining({ name: 'mm', state: 'running' })]);
    expect(status.accounts[0]!.openOrders.length).toBeGreaterThan(0);

    expect((await fetch(`${base}/kill`, { method: 'POST' })).status).toBe(401);
    const auth = { authorization: 'Bearer test-token', 'content-type': 'application/json' };
    expect((await fetch(`${base}/kill`, { method: 'POST', headers: auth, body: JSON.stringify({ reason: 'e2e' }) })).status).toBe(200);
    const halted = (await (await waitForStatus(`${base}/readyz`, 503)).json()) as { reasons: string[] };
    expect(halted.reasons.join(' ')).toMatch(/halted/);
    expect((await fetch(`${base}/resume`, { method: 'POST', headers: auth })).status).toBe(200);
    await waitForStatus(`${base}/readyz`, 200);

    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect(d.stdout.join('\n')).toMatch(/status main: .*orders 0 open/);
    expect(dockerHealthcheck(new URL(base).port)).toBe(1);

    const journal = Journal.open(join(dataDir, 'perpbot.sqlite'));
    try {
      expect(journal.unresolvedBatches()).toEqual([]);
      const fillsSeen = [...d.stdout.join('\n').matchAll(/status main: .*\| fills (\d+) /g)].at(-1)![1];
      expect(journal.fills().length).toBe(Number(fillsSeen));
      expect(journal.nonces.load(account)).toBeGreaterThan(0n);
    } finally {
      journal.close();
    }
  }, 90_000);

  it('against a venue that outlives it: after SIGTERM the venue shows no open orders for the bot', async () => {
    const venue = await startVenue({ seed: 7 });
    venues.push(venue);
    const dataDir = mkdtempSync(join(tmpdir(), 'perpbot-e2e-remote-'));
    const doc = parseDocument(readFileSync(DEFAULT_CONFIG, 'utf8'));
    doc.set('venue', { mode: 'remote', url: venue.url, wsUrl: venue.wsUrl, dialect: 'v1', network: 'testnet' });
    const config = join(dataDir, 'remote.yaml');
    writeFileSync(config, doc.toString());

    const d = launch(['--config', config], dataDir);
    const { base, account } = await bannerOf(d);
    await waitForStatus(`${base}/readyz`, 200);
    await untilQuoting(base);
    expect(venue.engine.openOrders(account).length).toBeGreaterThan(0);

    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect(venue.engine.openOrders(account)).toEqual([]);
  }, 90_000);

  it('a config with mistakes exits 1 before starting anything, listing every problem with its line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-e2e-bad-'));
    const config = join(dir, 'bad.yaml');
    writeFileSync(
      config,
      [
        'venue:',
        '  mode: sideways',
        'accounts:',
        '  - name: main',
        '    keyFile: k.json',
        '    colour: red',
        'strategies: []',
        'telemetry:',
        '  port: -1',
        '',
      ].join('\n'),
    );
    const d = launch(['--config', config], dir);
    expect(await d.exited).toBe(1);
    const err = d.stderr.join('\n');
    expect(err).toMatch(/venue\.mode \(line 2\)/);
    expect(err).toMatch(/accounts\[0\]\.colour \(line 6\)/);
    expect(err).toMatch(/telemetry\.port \(line 9\)/);
    expect(d.stdout.join('\n')).not.toMatch(/daemon running/);
  }, 30_000);
});
