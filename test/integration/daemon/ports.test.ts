import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { ROOT, startDaemonProcess, type DaemonProcess } from '../../../bench/support/daemon-process.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';

const DEFAULT_CONFIG = join(ROOT, 'config/default.yaml');
const cleanup = cleanups();

/** A TCP port held by this test until cleanup. */
async function busyPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as { port: number }).port;
}

function launch(config: string, dataDir: string, env: NodeJS.ProcessEnv = {}): DaemonProcess {
  const d = startDaemonProcess(['--config', config], { PERPBOT_DATA_DIR: dataDir, ...env });
  cleanup.push(() => d.kill());
  return d;
}

/** default.yaml with `edit` applied, written under `dir`. */
function configWith(dir: string, edit: (doc: ReturnType<typeof parseDocument>) => void): string {
  const doc = parseDocument(readFileSync(DEFAULT_CONFIG, 'utf8'));
  edit(doc);
  const path = join(dir, 'config.yaml');
  writeFileSync(path, doc.toString());
  return path;
}

describe('ports in use', () => {
  it('the metrics port in use: exit 1 in one line naming the port and the setting, before any account action', async () => {
    const port = await busyPort();
    const venue: Venue = await startVenue({ port: 0, seed: 9 });
    cleanup.push(() => venue.close());
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-ports-'));
    const config = configWith(dir, (doc) => doc.set('venue', { mode: 'remote', url: venue.url, wsUrl: venue.wsUrl }));
    const d = launch(config, dir, { PERPBOT_METRICS_PORT: String(port) });
    expect(await d.exited).toBe(1);
    const err = d.stderr.join('\n');
    expect(err).toMatch(new RegExp(`^CONFIG: telemetry\\.port: port ${port} on 127\\.0\\.0\\.1 is in use`, 'm'));
    expect(err).toMatch(/PERPBOT_METRICS_PORT/);
    expect(err).not.toMatch(/uncaught|\n\s+at /);
    expect(d.stdout.join('\n')).not.toMatch(/daemon running/);
    expect(err).not.toMatch(/account prepared/);
  }, 60_000);

  it("the embedded venue's port in use: exit 1 in one line naming venue.local.port", async () => {
    const port = await busyPort();
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-ports-'));
    const config = configWith(dir, (doc) => doc.setIn(['venue', 'local', 'port'], port));
    const d = launch(config, dir, { PERPBOT_METRICS_PORT: '0' });
    expect(await d.exited).toBe(1);
    const err = d.stderr.join('\n');
    expect(err).toMatch(new RegExp(`^CONFIG: venue\\.local\\.port: port ${port} on 127\\.0\\.0\\.1 is in use`, 'm'));
    expect(err).not.toMatch(/uncaught|\n\s+at /);
  }, 60_000);

  it('perpbot venue on a port in use: exit 1 in one line naming --port', async () => {
    const port = await busyPort();
    const r = spawnSync(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'venue', '--port', String(port), '--no-flow'], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^CONFIG: --port: port ${port} on 127\\.0\\.0\\.1 is in use \\(another perpbot\\?\\): set --port \\(or port in the --config file\\) to a free port, or 0 to pick one`,
      ),
    );
  }, 30_000);
});
