import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sample } from '../../../bench/support/daemon-process.js';
import { checkDaemonConfig } from '../../../src/app/config/index.js';
import { startDaemon, type Daemon } from '../../../src/app/daemon/daemon.js';
import { base58Encode } from '../../../src/protocol/base58.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { createLogger } from '../../../src/telemetry/index.js';
import { startVenue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';

const cleanup = cleanups();

const FAILING = resolve(import.meta.dirname, 'fixtures/fails-on-first-book.ts');

interface StrategyStatus {
  name: string;
  state: string;
  reason: string | null;
  failures: number;
  denials: { total: number; byReason: Record<string, number>; allDeniedSinceMs: number | null; lastDetail: Record<string, string> };
}

describe('daemon signals when it cannot trade (fresh venue account, no collateral)', () => {
  it('warns with reason counts (rate-limited), shows denials and strategy states on the status line and /status, degrades readiness, exports strategy metrics', async () => {
    const venue = await startVenue({ seed: 5 });
    cleanup.push(() => venue.close());
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-signals-'));
    const key = Keypair.fromBytes(randomBytes(32));
    const secret = base58Encode(Uint8Array.from(JSON.parse(key.keyFileText()) as number[]));
    const path = join(dir, 'daemon.yaml');
    writeFileSync(
      path,
      [
        'venue: {mode: remote, url: ' + venue.url + ', wsUrl: ' + venue.wsUrl + '}',
        'accounts:',
        '  - name: main',
        '    secretKey: ${MAIN_SECRET}',
        'strategies:',
        '  - name: mm',
        '    module: market-maker',
        '    params: {symbol: BTC-USD, size: 0.001, maxPosition: 0.01, minIntervalMs: 50}',
        '  - name: broken',
        `    module: ${FAILING}`,
        '    params: {symbol: ETH-USD}',
        'journal: {path: journal.sqlite}',
        'telemetry: {port: 0, statusIntervalMs: 300, deniedNotReadyMs: 1000, denialLogIntervalMs: 60000}',
        'shutdown: {deadlineMs: 2000}',
        '',
      ].join('\n'),
    );
    const { config, strategies } = await checkDaemonConfig(path, { MAIN_SECRET: secret });
    const logs: string[] = [];
    const out: string[] = [];
    let daemon: Daemon | undefined = await startDaemon({
      config,
      strategies,
      logger: createLogger({ level: 'info', destination: { write: (l: string) => void logs.push(l) } }),
      out: (l) => out.push(l),
    });
    cleanup.push(() => daemon?.stop('test cleanup'));
    const base = daemon.metricsUrl.replace(/\/metrics$/, '');
    const status = async () => (await (await fetch(`${base}/status`)).json()) as { accounts: { name: string; strategies: StrategyStatus[] }[] };
    const strategy = async (name: string) => (await status()).accounts[0]!.strategies.find((s) => s.name === name)!;

    // Readiness: every order of mm denied for deniedNotReadyMs.
    await until(async () => (await fetch(`${base}/readyz`)).status === 503, 'readiness degraded by denials', 20_000, 50);
    const readyz = (await (await fetch(`${base}/readyz`)).json()) as { ready: boolean; reasons: string[] };
    expect(readyz.reasons).toContainEqual(expect.stringMatching(/^main: strategy mm: every order denied for \d+ s \(LEVERAGE \d+\)$/));

    await until(async () => (await strategy('mm')).denials.total >= 10, 'ten denials of mm', 20_000, 50);
    const mm = await strategy('mm');
    expect(mm).toMatchObject({ state: 'running', failures: 0 });
    expect(mm.denials.byReason.LEVERAGE).toBeGreaterThanOrEqual(10);
    expect(mm.denials.lastDetail.LEVERAGE).toMatch(/equity unknown or not positive/);
    expect(mm.denials.allDeniedSinceMs).toBeGreaterThan(0);
    expect(await strategy('broken')).toMatchObject({ state: 'failed', failures: 1, reason: expect.stringContaining('boom on the first book') });

    // One warning per strategy and reason per denialLogIntervalMs (60 s), not one per order.
    const warnings = logs
      .map((l) => JSON.parse(l) as { level: string; msg: string; strategy?: string; reason?: string; denied?: number })
      .filter((l) => l.level === 'warn' && l.reason === 'LEVERAGE');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ strategy: 'mm', denied: 1 });
    expect(warnings[0]!.msg).toMatch(/risk denied 1 operation of strategy mm: LEVERAGE \(equity unknown/);

    // The status line names each strategy's state and the denials since the last line.
    await until(() => out.some((l) => /denied \+\d+ \(LEVERAGE \d+\)/.test(l)), 'a status line with denials', 20_000, 50);
    const line = out.filter((l) => l.startsWith('status main:')).at(-1)!;
    expect(line).toMatch(
      /\| mm running, every order denied for \d+ s(, denied \+\d+ \(LEVERAGE \d+\))? \| broken FAILED \(error: boom on the first book\) \| ACTIVE$/,
    );

    const text = await (await fetch(`${base}/metrics`)).text();
    expect(sample(text, 'perpbot_strategy_failures_total', { account: 'main', strategy: 'broken' })).toBe(1);
    expect(sample(text, 'perpbot_strategy_failures_total', { account: 'main', strategy: 'mm' })).toBe(0);
    expect(sample(text, 'perpbot_strategy_all_denied_seconds', { account: 'main', strategy: 'mm' })).toBeGreaterThan(0);
    expect(sample(text, 'perpbot_strategy_quote_sets_total', { account: 'main', strategy: 'mm' })).toBeGreaterThan(0);
    expect(sample(text, 'perpbot_strategy_books_seen_total', { account: 'main', strategy: 'broken', side: 'both' })).toBe(1);
    expect(sample(text, 'perpbot_open_orders', { account: 'main' })).toBe(0);
    expect(sample(text, 'perpbot_equity_usd', { account: 'main' })).toBe(0);

    await daemon.stop('test');
    daemon = undefined;
  }, 60_000);
});
