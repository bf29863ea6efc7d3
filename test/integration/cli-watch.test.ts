// perpbot watch (the built CLI in a child process): a topic the venue refuses prints the venue's error and exits 1;
// a venue that is down is retried with a line per attempt, and watch gives up after --timeout (exit 1).
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startVenue, type Venue } from '../../src/venue-sim/server/index.js';
import { freePort } from '../support/free-port.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/src/cli.js');

const venues: Venue[] = [];
afterEach(async () => {
  for (const v of venues.splice(0)) await v.close();
});

/** Runs the CLI without blocking this process's event loop (the venue answers from here). */
function perpbot(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((done) =>
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    }),
  );
}

describe('perpbot watch', () => {
  it('prints the messages of a topic; --count N ends it after N with exit 0', async () => {
    const venue = await startVenue({ port: 0, seed: 3, flowIntervalMs: 20 });
    venues.push(venue);
    const r = await perpbot(['watch', 'trades.BTC-USD', 'l2delta.BTC-USD', '--count', '3', '--url', venue.url]);
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(3);
    expect(r.stdout).toMatch(/^(trades|l2delta)\.BTC-USD {2}\S/m);
  }, 40_000);

  it("a topic the venue refuses (beside one it serves): the venue's error in one line, exit 1", async () => {
    const venue = await startVenue({ port: 0, seed: 3 });
    venues.push(venue);
    const r = await perpbot(['watch', 'ticker.BTC-USD', 'ticker.NOPE-USD', '--url', venue.url]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^SUBSCRIPTION_REFUSED: the venue refused topic ticker\.NOPE-USD: .+$/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 40_000);

  it('a venue that is down: a line per retry, then gives up after --timeout with exit 1', async () => {
    const port = await freePort();
    const r = await perpbot(['watch', 'ticker.BTC-USD', '--url', `http://127.0.0.1:${port}/api/v1`, '--timeout', '2']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^perpbot watch: venue ws://127\\.0\\.0\\.1:${port}/ws not reachable \\(ECONNREFUSED\\), retrying in [\\d.]+ s$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^TRANSPORT: venue ws://127\\.0\\.0\\.1:${port}/ws not reachable within 2 s \\(ECONNREFUSED\\)`, 'm'));
  }, 40_000);
});
