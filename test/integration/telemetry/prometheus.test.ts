import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/telemetry/metrics.js';
import { startControlServer, type ControlServer } from '../../../src/telemetry/server.js';
import { cleanups } from '../../support/cleanups.js';

/** The first executable `prometheus` on PATH, /usr/bin or /bin, or undefined. */
function findPrometheus(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter((d) => d !== ''), '/usr/bin', '/bin'];
  for (const dir of dirs) {
    const candidate = join(dir, 'prometheus');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/** A port free on 127.0.0.1 right now (the OS picks it; Prometheus needs a number up front). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

type Vector = Array<{ metric: Record<string, string>; value: [number, string] }>;

/** Polls an instant query every 250 ms until `done` accepts its result or `timeoutMs` passes. */
async function pollQuery(base: string, query: string, done: (v: Vector) => boolean, timeoutMs = 30_000): Promise<Vector> {
  const deadline = Date.now() + timeoutMs;
  let last: Vector = [];
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(query)}`);
      if (res.ok) {
        last = ((await res.json()) as { data: { result: Vector } }).data.result;
        if (done(last)) return last;
      }
    } catch {
      // Prometheus not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`query ${query} did not settle within ${timeoutMs} ms; last result ${JSON.stringify(last)}`);
}

const PROMETHEUS = findPrometheus();
const cleanup = cleanups();

describe('a real Prometheus scrapes the control server', () => {
  it.skipIf(!PROMETHEUS)(
    PROMETHEUS
      ? 'scrapes /metrics: counters, histograms and up{job="perpbot"}'
      : 'skipped: no prometheus binary on PATH, /usr/bin or /bin (apt-get install prometheus)',
    async () => {
      const metrics = createMetrics();
      metrics.submitOutcomes.inc({ outcome: 'accepted' }, 42);
      metrics.ackLatencySeconds.observe(0.003);
      metrics.ackLatencySeconds.observe(0.004);
      const server: ControlServer = await startControlServer({
        port: 0,
        metrics,
        ready: () => ({ ready: true, reasons: [] }),
        status: () => ({}),
        kill: () => undefined,
        resume: () => undefined,
      });
      cleanup.push(() => server.close());

      const dir = await mkdtemp(join(tmpdir(), 'perpbot-prometheus-'));
      cleanup.push(() => rm(dir, { recursive: true, force: true }));
      const config = join(dir, 'prometheus.yml');
      await writeFile(
        config,
        [
          'global:',
          '  scrape_interval: 1s',
          'scrape_configs:',
          '  - job_name: perpbot',
          '    static_configs:',
          `      - targets: ['127.0.0.1:${server.port}']`,
          '',
        ].join('\n'),
      );
      const port = await freePort();
      const child: ChildProcess = spawn(
        PROMETHEUS!,
        [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      cleanup.push(async () => {
        if (child.exitCode === null) child.kill('SIGTERM');
        await exited;
      });

      const base = `http://127.0.0.1:${port}`;
      const settled = (want: string) => (v: Vector) => v.length === 1 && v[0]!.value[1] === want;
      try {
        expect((await pollQuery(base, 'up{job="perpbot"}', settled('1')))[0]!.metric).toMatchObject({ job: 'perpbot', instance: `127.0.0.1:${server.port}` });
        expect((await pollQuery(base, 'perpbot_submits_total{outcome="accepted"}', settled('42')))[0]!.metric.job).toBe('perpbot');
        await pollQuery(base, 'perpbot_order_ack_seconds_count', settled('2'));
        await pollQuery(base, 'perpbot_order_ack_seconds_bucket{le="0.005"}', settled('2'));
        await pollQuery(base, 'process_resident_memory_bytes{job="perpbot"}', (v) => v.length === 1 && Number(v[0]!.value[1]) > 0);
      } catch (e) {
        throw new Error(`${(e as Error).message}\nprometheus stderr:\n${stderr}`);
      }
    },
    45_000,
  );
});
