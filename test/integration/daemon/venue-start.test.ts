// A remote venue that is not up yet when the daemon starts: the daemon retries with backoff (one line per attempt)
// and starts once the venue answers; a venue still down after venue.startTimeoutMs is one line and exit 1.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { ROOT, startDaemonProcess, type DaemonProcess } from '../../../bench/support/daemon-process.js';
import { startVenue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { freePort } from '../../support/free-port.js';
import { until } from '../../support/until.js';

const cleanup = cleanups();

/** default.yaml against a remote venue on `port`, with `venue` keys added. */
function remoteConfig(dir: string, port: number, venue: Record<string, unknown> = {}): string {
  const doc = parseDocument(readFileSync(join(ROOT, 'config/default.yaml'), 'utf8'));
  doc.set('venue', { mode: 'remote', url: `http://127.0.0.1:${port}/api/v1`, wsUrl: `ws://127.0.0.1:${port}/ws`, ...venue });
  const path = join(dir, 'config.yaml');
  writeFileSync(path, doc.toString());
  return path;
}

function launch(config: string, dir: string): DaemonProcess {
  const d = startDaemonProcess(['--config', config], { PERPBOT_DATA_DIR: dir, PERPBOT_METRICS_PORT: '0' });
  cleanup.push(() => d.kill());
  return d;
}

const retryLine = (port: number) => new RegExp(`venue http://127\\.0\\.0\\.1:${port}/api/v1 not reachable \\(ECONNREFUSED\\), retrying in [\\d.]+ s`);

describe('a remote venue not up at start', () => {
  it('the daemon retries with a line per attempt and runs once the venue is up', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-venue-start-'));
    const d = launch(remoteConfig(dir, port), dir);
    await until(() => d.stderr.filter((l) => retryLine(port).test(l)).length >= 2, 'two retry lines', 30_000);
    const venue = await startVenue({ port, seed: 2 });
    cleanup.push(() => venue.close());
    await d.line(/perpbot daemon running/, 30_000);
    expect(d.child.exitCode).toBeNull();
  }, 90_000);

  it('still down after venue.startTimeoutMs: one line naming the venue and the setting, exit 1', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-venue-start-'));
    const d = launch(remoteConfig(dir, port, { startTimeoutMs: 1500 }), dir);
    expect(await d.exited).toBe(1);
    const err = d.stderr.join('\n');
    expect(err).toMatch(new RegExp(`^CONFIG: venue\\.startTimeoutMs: venue http://127\\.0\\.0\\.1:${port}/api/v1 not reachable within 1\\.5 s`, 'm'));
    expect(err).not.toMatch(/uncaught|\n\s+at /);
  }, 60_000);
});

describe('a current-dialect venue on another network', () => {
  it('the first start-up action refused for its signature: one line naming venue.network as the likely cause, exit 1', async () => {
    const venue = await startVenue({ port: 0, seed: 2, flow: false, dialect: 'current', network: 'testnet' });
    cleanup.push(() => venue.close());
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-venue-start-'));
    const d = launch(remoteConfig(dir, venue.port, { dialect: 'current', network: 'devnet' }), dir);
    expect(await d.exited).toBe(1);
    const err = d.stderr.join('\n');
    expect(err).toMatch(/^CONFIG: accounts\.main: faucet 100000 USD: the venue did not accept it \(bad signature\).*venue\.network is devnet/m);
    expect(err).not.toMatch(/uncaught|\n\s+at /);
  }, 60_000);
});
