// Sweep throughput: grid points backtested per second with 1 and with 2 worker threads, in the same run (interleaved,
// so machine noise hits both alike), and the scaling between them. Each point is the built-in market maker of
// config/default.yaml over a small synthetic recording made first (the `perpbot record --synthetic` code path, not
// timed); the CPU seconds a point costs (all threads) tell a busy machine from poor scaling. Invariant: seeded data and
// models; each figure is the median of BENCH_RUNS runs, worker start-up included.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gridPoints, parseGrid } from '../src/app/sweep/grid.js';
import type { SweepInput } from '../src/app/sweep/point.js';
import { runPoints } from '../src/app/sweep/pool.js';
import { writeSyntheticRecording } from '../src/backtest/recording/synthetic.js';
import { median, report } from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SWEEP_SECONDS ?? 30);
const POINTS = Number(process.env.BENCH_SWEEP_POINTS ?? 4);
const CONFIG = resolve(fileURLToPath(import.meta.url), '../../../config/default.yaml');

const dir = mkdtempSync(join(tmpdir(), 'perpbot-bench-sweep-'));
try {
  const data = join(dir, 'btc.rec');
  await writeSyntheticRecording(data, { seed: 5, durationMs: SECONDS * 1000, symbols: ['BTC-USD'] });
  const spreads = Array.from({ length: POINTS }, (_, i) => 2 + 2 * i);
  const grid = parseGrid(`strategies.0.params.halfSpreadBps: [${spreads.join(', ')}]\n`, 'bench grid');
  const input: SweepInput = { configPath: CONFIG, configText: readFileSync(CONFIG, 'utf8'), grid, dataFiles: [data], seed: 1 };
  const points = gridPoints(grid);
  /** Points per wall second, and CPU seconds (every thread of the process) per point. */
  const measure = async (workers: number) => {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await runPoints(input, points, { workers, onResult: () => {} });
    const cpu = process.cpuUsage(cpu0);
    return { rate: points.length / ((performance.now() - t0) / 1000), cpuS: (cpu.user + cpu.system) / 1e6 / points.length };
  };
  const runs: Record<1 | 2, { rate: number; cpuS: number }[]> = { 1: [], 2: [] };
  for (let i = 0; i < RUNS; i++) for (const w of [1, 2] as const) runs[w].push(await measure(w));
  const rate = (w: 1 | 2) => median(runs[w].map((r) => r.rate));
  report('sweep', 'points_per_s_1', rate(1), 'points/s');
  report('sweep', 'points_per_s_2', rate(2), 'points/s');
  report('sweep', 'scaling_2', rate(2) / rate(1), 'x');
  for (const w of [1, 2] as const) report('sweep', `cpu_s_per_point_${w}`, median(runs[w].map((r) => r.cpuS)), 's');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
