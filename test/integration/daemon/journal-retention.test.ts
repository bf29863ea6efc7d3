import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDaemonConfig, parseDaemonConfig } from '../../../src/app/config/index.js';
import { startDaemon } from '../../../src/app/daemon/daemon.js';
import { Journal } from '../../../src/store/index.js';
import { createLogger } from '../../../src/telemetry/index.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';
import { quietVenue } from '../venue/harness.js';

const cleanup = cleanups();

const ACCOUNT_LINES = [
  'accounts:',
  '  - name: main',
  '    keyFile: keys/main.json',
  '    createKey: true',
  '    faucetUsd: 10000',
  'strategies:',
  '  - name: mm',
  '    module: market-maker',
  '    account: main',
  '    params: {symbol: BTC-USD, size: 0.001, maxPosition: 0.01}',
];

describe('journal retention in the daemon', () => {
  it('defaults to 7 days and 1024 MiB; a bad value names its key and line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-retention-'));
    expect(parseDaemonConfig(ACCOUNT_LINES.join('\n'), 'a.yaml', { baseDir: dir, env: {} }).journal.retention).toEqual({
      maxAgeDays: 7,
      maxMegabytes: 1024,
      pruneIntervalMs: 1000,
    });
    const bad = [...ACCOUNT_LINES, 'journal:', '  retention:', '    maxAgeDays: -1'].join('\n');
    expect(() => parseDaemonConfig(bad, 'b.yaml', { baseDir: dir, env: {} })).toThrow(
      /journal\.retention\.maxAgeDays.*line 13|line 13.*journal\.retention\.maxAgeDays/s,
    );
  });

  it('prunes rows past the configured age while running and serves perpbot_journal_bytes', async () => {
    const venue = await quietVenue({ seed: 4 });
    cleanup.push(() => venue.close());
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-retention-'));
    const journalPath = join(dir, 'journal.sqlite');
    const old = Journal.open(journalPath);
    const longAgoNs = BigInt(Date.now() - 3 * 86_400_000) * 1_000_000n;
    old.recordFunding({ account: 'someone', symbol: 'BTC-USD', amountUsd: 1, rate: 0, timeNs: longAgoNs });
    old.close();
    const path = join(dir, 'daemon.yaml');
    writeFileSync(
      path,
      [
        'venue:',
        '  mode: remote',
        `  url: ${venue.url}`,
        `  wsUrl: ${venue.wsUrl}`,
        ...ACCOUNT_LINES,
        `journal: {path: journal.sqlite, retention: {maxAgeDays: 1, pruneIntervalMs: 10}}`,
        'telemetry: {port: 0, statusIntervalMs: 0}',
        '',
      ].join('\n'),
    );
    const { config, strategies } = await checkDaemonConfig(path, {});
    const daemon = await startDaemon({ config, strategies, logger: createLogger({ level: 'silent' }), out: () => {} });
    cleanup.push(() => daemon.stop('test cleanup'));
    const reader = Journal.open(journalPath, { mustExist: true });
    cleanup.push(() => reader.close());
    await until(() => reader.funding().length === 0, 'the old funding row pruned', 10_000);
    const metrics = await (await fetch(daemon.metricsUrl)).text();
    expect(Number(/^perpbot_journal_bytes (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
  });
});
