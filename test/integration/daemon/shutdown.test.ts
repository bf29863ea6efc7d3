// Stopping the daemon with several accounts: the sessions stop in parallel within one shared shutdown.deadlineMs, so
// the whole stop fits the process's exit timer (deadline + CLOSE_MARGIN_MS) even when the venue answers nothing.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLOSE_MARGIN_MS } from '../../../src/app/commands/run.js';
import { checkDaemonConfig } from '../../../src/app/config/index.js';
import { startDaemon, type StopSummary } from '../../../src/app/daemon/daemon.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { createLogger } from '../../../src/telemetry/index.js';
import { startVenue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { StallingProxy } from '../../support/stalling-proxy.js';
import { until } from '../../support/until.js';

const cleanup = cleanups();

const DEADLINE_MS = 3_000;

function config(dir: string, url: string, wsUrl: string): string {
  const path = join(dir, 'daemon.yaml');
  const account = (name: string) => [`  - name: ${name}`, `    keyFile: keys/${name}.json`, '    createKey: true', '    faucetUsd: 50000'];
  const strategy = (name: string, account: string) => [
    `  - name: ${name}`,
    '    module: market-maker',
    `    account: ${account}`,
    '    params: {symbol: BTC-USD, size: 0.001, maxPosition: 0.01, minIntervalMs: 100}',
  ];
  const lines = [
    'venue:',
    '  mode: remote',
    `  url: ${url}`,
    `  wsUrl: ${wsUrl}`,
    'accounts:',
    ...account('a'),
    ...account('b'),
    'strategies:',
    ...strategy('mm-a', 'a'),
    ...strategy('mm-b', 'b'),
    'journal: {path: journal.sqlite}',
    'telemetry: {port: 0, statusIntervalMs: 0}',
    `shutdown: {deadlineMs: ${DEADLINE_MS}}`,
    '',
  ];
  writeFileSync(path, lines.join('\n'));
  return path;
}

describe('daemon shutdown with two accounts', () => {
  it('a venue that answers nothing: both sessions stop within one shared deadline, well inside the exit timer', async () => {
    const venue = await startVenue({ port: 0, seed: 4, flowIntervalMs: 50 });
    cleanup.push(() => venue.close());
    for (let i = 0; i < 5; i++) venue.step();
    const proxy = await StallingProxy.start(Number(new URL(venue.url).port));
    cleanup.push(() => proxy.close());
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-shutdown-'));
    const viaProxy = (u: string) => u.replace(/:\d+\//, `:${proxy.port}/`);
    const { config: cfg, strategies } = await checkDaemonConfig(config(dir, viaProxy(venue.url), viaProxy(venue.wsUrl)), {});
    const daemon = await startDaemon({ config: cfg, strategies, logger: createLogger({ level: 'silent' }), out: () => undefined });
    let stopping: Promise<StopSummary> | undefined;
    cleanup.push(() => stopping ?? daemon.stop('test cleanup'));
    cleanup.push(() => proxy.resume());
    const quoting = (name: string) => venue.engine.openOrders(Keypair.fromFile(join(dir, `keys/${name}.json`)).publicKey).length > 0;
    await until(() => quoting('a') && quoting('b'), 'both accounts quoting', 20_000);

    proxy.stall();
    const startedMs = Date.now();
    stopping = daemon.stop('test');
    const bound = DEADLINE_MS + CLOSE_MARGIN_MS;
    const summary = await Promise.race([stopping, new Promise<'exit timer'>((r) => setTimeout(() => r('exit timer'), bound))]);
    const elapsedMs = Date.now() - startedMs;
    expect(summary).not.toBe('exit timer');
    expect(summary).toMatchObject({ timedOut: true });
    expect(elapsedMs).toBeLessThan(DEADLINE_MS + 2_000);
  }, 60_000);
});
