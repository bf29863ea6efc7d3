// Steady memory of the default daemon (`perpbot run`, config/default.yaml, embedded local venue): RSS and heap read
// from its own /metrics every 5 s for PERPBOT_BENCH_DAEMON_SECONDS (default 600). Invariant: the daemon is stopped.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, report } from './lib.js';
import { ROOT, sample, startDaemonProcess, waitForStatus } from './support/daemon-process.js';

const BENCH = 'daemon-memory';
const SECONDS = Number(process.env.PERPBOT_BENCH_DAEMON_SECONDS ?? 600);
const EVERY_MS = 5_000;
/** Samples of the first minute (start-up, JIT warm-up) are left out of the steady-state median. */
const WARMUP_MS = Math.min(60_000, (SECONDS * 1000) / 4);
const MB = 1024 * 1024;

const dataDir = mkdtempSync(join(tmpdir(), 'perpbot-bench-daemon-'));
const daemon = startDaemonProcess(['--config', join(ROOT, 'config/default.yaml')], { PERPBOT_METRICS_PORT: '0', PERPBOT_DATA_DIR: dataDir });
try {
  const [, base] = await daemon.line(/metrics\s+(http:\/\/127\.0\.0\.1:\d+)\/metrics/);
  await waitForStatus(`${base}/readyz`, 200);
  const started = Date.now();
  const rss: number[] = [];
  const heap: number[] = [];
  let text = '';
  while (Date.now() - started < SECONDS * 1000) {
    await new Promise((r) => setTimeout(r, EVERY_MS));
    text = await (await fetch(`${base}/metrics`)).text();
    if (Date.now() - started < WARMUP_MS) continue;
    rss.push(sample(text, 'process_resident_memory_bytes')! / MB);
    heap.push(sample(text, 'nodejs_heap_size_used_bytes')! / MB);
  }
  report(BENCH, 'duration_s', SECONDS, 's');
  report(BENCH, 'rss_median_mb', median(rss), 'MB');
  report(BENCH, 'rss_max_mb', Math.max(...rss), 'MB');
  report(BENCH, 'rss_last_mb', rss[rss.length - 1]!, 'MB');
  report(BENCH, 'heap_used_median_mb', median(heap), 'MB');
  report(BENCH, 'samples', rss.length, 'count');
  report(
    BENCH,
    'order_events',
    [...text.matchAll(/^perpbot_order_events_total\{[^}]*\} (\d+)/gm)].reduce((s, m) => s + Number(m[1]), 0),
    'count',
  );
  daemon.child.kill('SIGTERM');
  report(BENCH, 'exit_code', Number(await daemon.exited), 'code');
} finally {
  daemon.kill();
  rmSync(dataDir, { recursive: true, force: true });
}
