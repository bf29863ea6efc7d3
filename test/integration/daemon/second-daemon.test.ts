// A second `npm start` beside a running one (the default config, the same data/): it says in one line what to change
// (the metrics port, then the journal it cannot share), before it acts; the first keeps running and its journal stays
// whole. With its own port and data folder the second one runs.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, startDaemonProcess, waitForStatus, type DaemonProcess } from '../../../bench/support/daemon-process.js';
import { freePort } from '../../support/free-port.js';

const DEFAULT_CONFIG = join(ROOT, 'config/default.yaml');
const running: DaemonProcess[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.kill();
});

function npmStart(env: NodeJS.ProcessEnv): DaemonProcess {
  const d = startDaemonProcess(['--config', DEFAULT_CONFIG], env);
  running.push(d);
  return d;
}

/** The refusal: exit 1, one error line matching `line`, nothing started, funded or written. */
async function refused(d: DaemonProcess, line: RegExp): Promise<void> {
  const code = await Promise.race([d.exited, new Promise((r) => setTimeout(() => r('still running after 30 s'), 30_000))]);
  expect(code, d.stdout.join('\n')).toBe(1);
  const err = d.stderr.join('\n');
  expect(err).toMatch(line);
  expect(d.stderr.filter((l) => l.startsWith('CONFIG: '))).toHaveLength(1);
  expect(err).not.toMatch(/uncaught|\n\s+at |account prepared/);
  expect(d.stdout.join('\n')).not.toMatch(/daemon running/);
}

describe('a second npm start beside the first', () => {
  it('says what to change in one line (the port, then the shared journal); the first runs on, its journal whole', async () => {
    const port = await freePort();
    const data = mkdtempSync(join(tmpdir(), 'perpbot-second-'));
    const first = npmStart({ PERPBOT_DATA_DIR: data, PERPBOT_METRICS_PORT: String(port) });
    await first.line(/perpbot daemon running/);
    await waitForStatus(`http://127.0.0.1:${port}/readyz`, 200);

    await refused(
      npmStart({ PERPBOT_DATA_DIR: data, PERPBOT_METRICS_PORT: String(port) }),
      new RegExp(`^CONFIG: telemetry\\.port: port ${port} on 127\\.0\\.0\\.1 is in use`, 'm'),
    );
    const journal = join(data, 'perpbot.sqlite');
    await refused(
      npmStart({ PERPBOT_DATA_DIR: data, PERPBOT_METRICS_PORT: '0' }),
      new RegExp(
        `^CONFIG: journal\\.path: journal ${journal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is in use by another perpbot \\(pid ${first.child.pid}\\).*PERPBOT_DATA_DIR`,
        'm',
      ),
    );

    const own = npmStart({ PERPBOT_DATA_DIR: mkdtempSync(join(tmpdir(), 'perpbot-second-')), PERPBOT_METRICS_PORT: '0' });
    await own.line(/perpbot daemon running/);
    own.kill();

    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(existsSync(`${journal}.lock`)).toBe(false);
    const db = new Database(journal, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  }, 120_000);
});
