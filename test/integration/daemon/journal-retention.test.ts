import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDaemonConfig, parseDaemonConfig } from '../../../src/app/config/index.js';
import { startDaemon } from '../../../src/app/daemon/daemon.js';
import { Journal } from '../../../src/store/index.js';
import { createLogger } from '../../../src/telemetry/index.js';
import { cleanups } from '../../support/cleanups.js';
import { daemonYaml, writeDaemonYaml } from '../../support/daemon-yaml.js';
import { until } from '../../support/until.js';
import { quietVenue } from '../venue/harness.js';

const cleanup = cleanups();

const VENUE = { url: 'http://127.0.0.1:1/api/v1', wsUrl: 'ws://127.0.0.1:1/ws' };

describe('journal retention in the daemon', () => {
  it('defaults to 7 days and 1024 MiB; a bad value names its key and line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-retention-'));
    expect(parseDaemonConfig(daemonYaml(VENUE), 'a.yaml', { baseDir: dir, env: {} }).journal.retention).toEqual({
      maxAgeDays: 7,
      maxMegabytes: 1024,
      pruneIntervalMs: 1000,
    });
    const bad = daemonYaml(VENUE, { journal: '{path: journal.sqlite,\n  retention: {maxAgeDays: -1}}' });
    const line = bad.split('\n').findIndex((l) => l.includes('maxAgeDays')) + 1;
    expect(() => parseDaemonConfig(bad, 'b.yaml', { baseDir: dir, env: {} })).toThrow(`journal.retention.maxAgeDays (line ${line})`);
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
    const path = writeDaemonYaml(dir, venue, { journal: '{path: journal.sqlite, retention: {maxAgeDays: 1, pruneIntervalMs: 10}}' });
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
