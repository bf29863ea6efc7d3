// Issue 14 defect 13 at the daemon's own surface: a silent WebSocket stall turns /readyz off and pulls the quotes
// within venue.staleAfterMs, and both come back when the venue's frames flow again. Real daemon, venue and proxy.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDaemonConfig } from '../../../src/app/config/index.js';
import { startDaemon, type Daemon } from '../../../src/app/daemon/daemon.js';
import { base58Encode } from '../../../src/protocol/base58.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { createLogger } from '../../../src/telemetry/index.js';
import { startVenue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { StallingProxy } from '../../support/stalling-proxy.js';
import { until } from '../../support/until.js';

const cleanup = cleanups();

describe('daemon under a silent stream stall', () => {
  it('/readyz answers 503 naming the stale topics and the quotes are pulled within staleAfterMs; both recover', async () => {
    const venue = await startVenue({ port: 0, seed: 13, flowIntervalMs: 50 });
    cleanup.push(() => venue.close());
    const proxy = await StallingProxy.start(Number(new URL(venue.url).port));
    cleanup.push(() => proxy.close());
    cleanup.push(() => proxy.resume());
    const key = Keypair.fromBytes(randomBytes(32));
    const secret = base58Encode(Uint8Array.from(JSON.parse(key.keyFileText()) as number[]));
    const wsUrl = venue.wsUrl.replace(/:\d+\//, `:${proxy.port}/`);
    const path = join(mkdtempSync(join(tmpdir(), 'perpbot-stall-')), 'daemon.yaml');
    writeFileSync(
      path,
      [
        `venue: {mode: remote, url: ${venue.url}, wsUrl: ${wsUrl}, staleAfterMs: 1000}`,
        'accounts:',
        '  - name: main',
        '    secretKey: ${MAIN_SECRET}',
        '    faucetUsd: 100000',
        'strategies:',
        '  - name: mm',
        '    module: market-maker',
        '    params: {symbol: BTC-USD, size: 0.001, maxPosition: 0.01, halfSpreadBps: 20, minIntervalMs: 50}',
        'journal: {path: journal.sqlite}',
        'telemetry: {port: 0, statusIntervalMs: 0}',
        'shutdown: {deadlineMs: 3000}',
        '',
      ].join('\n'),
    );
    const { config, strategies } = await checkDaemonConfig(path, { MAIN_SECRET: secret });
    let daemon: Daemon | undefined = await startDaemon({ config, strategies, logger: createLogger({ level: 'silent' }), out: () => undefined });
    cleanup.push(() => daemon?.stop('test cleanup'));
    const base = daemon.metricsUrl.replace(/\/metrics$/, '');
    const readyz = async () => {
      const r = await fetch(`${base}/readyz`);
      return { status: r.status, body: (await r.json()) as { ready: boolean; reasons?: string[] } };
    };
    const open = () => venue.engine.openOrders(key.publicKey);
    const quoting = () => open().some((o) => o.isBuy) && open().some((o) => !o.isBuy);

    await until(async () => quoting() && (await readyz()).status === 200, 'the daemon ready with a bid and an ask', 15_000);

    proxy.stall();
    const stalledAt = Date.now();
    await until(async () => open().length === 0 && (await readyz()).status === 503, '/readyz off and the quotes pulled', 5_000);
    expect(Date.now() - stalledAt).toBeLessThan(3_000);
    expect((await readyz()).body.reasons?.join('\n')).toMatch(/stale stream/);

    proxy.resume();
    await until(async () => quoting() && (await readyz()).status === 200, 'ready and quoting again', 15_000);

    await daemon.stop('test');
    daemon = undefined;
  }, 60_000);
});
