import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDaemonConfig } from '../../../src/app/config/index.js';
import { placeAction } from '../../../src/app/commands/actions.js';
import { startDaemon, type Daemon } from '../../../src/app/daemon/daemon.js';
import { canDedicateCpu } from '../../../src/latency/dedicated-cpu.js';
import { HttpClient } from '../../../src/client/http.js';
import { base58Encode } from '../../../src/protocol/base58.js';
import { RECONCILE_OWNER } from '../../../src/execution/reconcile.js';
import { codecFor } from '../../../src/protocol/codecs.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { signRequest } from '../../../src/protocol/sign.js';
import type { Dialect } from '../../../src/core/types.js';
import { Journal } from '../../../src/store/index.js';
import { createLogger } from '../../../src/telemetry/index.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';

const cleanup = cleanups();

/** The event-loop thread's CPUs (Linux). */
const eventLoopCpus = () => /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${process.pid}/task/${process.pid}/status`, 'utf8'))![1];
/** The daemon also runs with a dedicated CPU where the machine allows it (2+ CPUs, util-linux). */
const DEDICATE = canDedicateCpu(0);
/** latency.eventLoopNice of the daemon: one step below the test's priority (allowed without privileges). */
const NICE = Math.min(19, getPriority() + 1);

function config(dir: string, venue: Venue, dialect: Dialect): string {
  const path = join(dir, 'daemon.yaml');
  writeFileSync(
    path,
    [
      'venue:',
      `  mode: remote`,
      `  url: ${venue.url}`,
      `  wsUrl: ${venue.wsUrl}`,
      `  dialect: ${dialect}`,
      'accounts:',
      '  - name: main',
      '    secretKey: ${MAIN_SECRET}',
      '    faucetUsd: 50000',
      '  - name: bot',
      '    keyFile: keys/bot.json',
      '    createKey: true',
      '    agentOf: main',
      '    leverage: {ETH-USD: 3}',
      '  - name: other',
      '    keyFile: keys/other.json',
      '    createKey: true',
      '    faucetUsd: 50000',
      'strategies:',
      '  - name: mm-btc',
      '    module: market-maker',
      '    account: bot',
      '    params: {symbol: BTC-USD, size: 0.001, maxPosition: 0.01, minIntervalMs: 100}',
      '  - name: mm-eth',
      '    module: market-maker',
      '    account: bot',
      '    params: {symbol: ETH-USD, size: 0.01, maxPosition: 0.1, minIntervalMs: 100}',
      '  - name: mm-sol',
      '    module: market-maker',
      '    account: other',
      '    params: {symbol: SOL-USD, size: 1, maxPosition: 10, minIntervalMs: 100}',
      'journal: {path: journal.sqlite}',
      'telemetry: {port: 0, statusIntervalMs: 0}',
      'shutdown: {deadlineMs: 5000}',
      `latency: {keepWarmMs: 1, eventLoopNice: ${NICE}${DEDICATE ? ', dedicatedCpu: 0' : ''}}`,
      '',
    ].join('\n'),
  );
  return path;
}

describe.each<Dialect>(['v1', 'current'])('daemon (in process, against a local venue) in the %s dialect', (dialect) => {
  it('runs several accounts (an owner key, its agent, another key) and strategies; resolves unanswered batches first', async () => {
    const venue = await startVenue({ seed: 3, dialect });
    cleanup.push(() => venue.close());
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-daemon-'));
    const main = Keypair.fromBytes(randomBytes(32));
    const secret = base58Encode(Uint8Array.from(JSON.parse(main.keyFileText()) as number[]));

    // A batch the last run signed and sent but never saw answered, and one it signed and never sent.
    venue.engine.faucet(main.publicKey, 10_000);
    const http = new HttpClient({ baseUrl: venue.url, dialect });
    cleanup.push(() => http.close());
    const signedOrder = (price: number, nonce: bigint) =>
      signRequest(codecFor(dialect), main, {
        actions: placeAction(dialect, { symbol: 'BTC-USD', side: 'buy', size: 0.001, price, tif: 'GTC', reduceOnly: false }, undefined),
        account: main.publicKey,
        signer: main.publicKey,
        nonce,
        network: 'testnet',
        mode: 'raw',
      });
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    const sent = signedOrder(50_000, nowNs);
    const unsent = signedOrder(50_100, nowNs + 1n);
    expect((await http.submit(sent)).outcome).toBe('accepted');
    const leftover = sent.encoded.orderIds[0]!;
    expect(venue.engine.openOrders(main.publicKey).map((o) => o.orderId)).toEqual([leftover]);
    const journal = Journal.open(join(dir, 'journal.sqlite'));
    const record = (r: typeof sent) =>
      journal.recordBatch({
        signer: r.signer,
        account: main.publicKey,
        nonceNs: r.nonce,
        path: r.encoded.path,
        message: r.encoded.message,
        signature: r.signature,
        body: r.bodyText,
        orderIds: r.encoded.orderIds,
        atNs: r.nonce,
      });
    const sentId = record(sent);
    const unsentId = record(unsent);
    journal.close();

    const logs: string[] = [];
    const out: string[] = [];
    const { config: cfg, strategies } = await checkDaemonConfig(config(dir, venue, dialect), { MAIN_SECRET: secret });
    const cpusAtStart = DEDICATE ? eventLoopCpus() : undefined;
    const niceAtStart = getPriority();
    let daemon: Daemon | undefined = await startDaemon({
      config: cfg,
      strategies,
      logger: createLogger({ level: 'info', destination: { write: (l: string) => void logs.push(l) } }),
      out: (l) => out.push(l),
    });
    cleanup.push(() => daemon?.stop('test cleanup'));

    const base = daemon.metricsUrl.replace(/\/metrics$/, '');
    await until(async () => (await fetch(`${base}/readyz`)).status === 200, 'readiness', 20_000, 50);
    if (DEDICATE) expect(eventLoopCpus()).toBe('0');
    expect(getPriority()).toBe(NICE);
    const agent = Keypair.fromFile(join(dir, 'keys/bot.json'));
    expect(venue.engine.isAuthorized(main.publicKey, agent.publicKey)).toBe(true);
    const symbolsOf = (account: string) => new Set(venue.engine.openOrders(account).map((o) => o.symbol));
    await until(() => symbolsOf(main.publicKey).size === 2, 'quotes in BTC-USD and ETH-USD on the main account', 20_000, 50);
    const other = Keypair.fromFile(join(dir, 'keys/other.json'));
    await until(() => symbolsOf(other.publicKey).has('SOL-USD'), 'quotes in SOL-USD on the other account', 20_000, 50);
    // Reconciliation cancelled the order the daemon did not place.
    expect(venue.engine.openOrders(main.publicKey).map((o) => o.orderId)).not.toContain(leftover);

    const status = (await (await fetch(`${base}/status`)).json()) as {
      accounts: { name: string; account: string; signer: string; strategies: { name: string; state: string }[] }[];
    };
    expect(status.accounts.map((a) => [a.name, a.account, a.signer, a.strategies.map((s) => `${s.name}:${s.state}`).join(',')])).toEqual([
      ['bot', main.publicKey, agent.publicKey, 'mm-btc:running,mm-eth:running'],
      ['other', other.publicKey, other.publicKey, 'mm-sol:running'],
    ]);
    expect(out.join('\n')).toMatch(new RegExp(`account\\s+bot ${main.publicKey} \\(agent key ${agent.publicKey} of main\\)`));

    const summary = await daemon.stop('test');
    daemon = undefined;
    expect(summary).toEqual({ leftOpen: 0, timedOut: false });
    if (DEDICATE) expect(eventLoopCpus()).toBe(cpusAtStart);
    if (process.getuid?.() === 0) expect(getPriority()).toBe(niceAtStart);
    expect(venue.engine.openOrders(main.publicKey)).toEqual([]);
    expect(venue.engine.openOrders(other.publicKey)).toEqual([]);

    const after = Journal.open(join(dir, 'journal.sqlite'));
    try {
      expect(after.batch(sentId)).toMatchObject({ resolution: 'applied' });
      expect(after.batch(unsentId)).toMatchObject({ resolution: 'not-applied' });
      expect(after.unresolvedBatches()).toEqual([]);
      const rows = after.report();
      // The recorder runs from before the sessions start: start-up reconciliation's cancel of the leftover is kept.
      expect(rows.map((r) => `${r.strategy}/${r.symbol}`).sort()).toEqual([`${RECONCILE_OWNER}/BTC-USD`, 'mm-btc/BTC-USD', 'mm-eth/ETH-USD', 'mm-sol/SOL-USD']);
      for (const r of rows) expect(r.ordersPlaced).toBeGreaterThan(0);
      expect(after.orderEvents(main.publicKey, leftover).map((e) => [e.strategy, e.status])).toContainEqual([RECONCILE_OWNER, 'cancelled']);
    } finally {
      after.close();
    }

    const text = logs.join('');
    expect(text).toMatch(/"component":"execution"/);
    expect(text).toMatch(/"strategy":"mm-sol"/);
    expect(text).toMatch(/"account":"bot"/);
    for (const leak of [secret, main.keyFileText().trim()]) expect(text + out.join('\n')).not.toContain(leak);
  }, 60_000);
});
