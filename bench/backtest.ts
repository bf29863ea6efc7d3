// Backtest speed (wall and CPU time: the machine may be shared): market events replayed per second with the built-in market maker of config/default.yaml attached (one
// thread, data read from a synthetic recording file), and the wall time and peak RSS of replaying a 24-hour synthetic
// recording (in a child process, so its RSS is the replay's alone). Invariant: seeded data and models; the events/s
// figure is the median of BENCH_RUNS runs; the recordings are made first and not timed here.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkDaemonConfig } from '../src/app/config/index.js';
import { backtestOptions } from '../src/app/commands/backtest.js';
import { readRecording } from '../src/backtest/recording/reader.js';
import { writeSyntheticRecording } from '../src/backtest/recording/synthetic.js';
import { runBacktest } from '../src/backtest/replay.js';
import { median, report } from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MINUTES = Number(process.env.BENCH_MINUTES ?? 10);
const DAY_HOURS = Number(process.env.BENCH_DAY_HOURS ?? 24);
const CONFIG = resolve(fileURLToPath(import.meta.url), '../../../config/default.yaml');

async function record(path: string, durationMs: number): Promise<void> {
  await writeSyntheticRecording(path, { seed: 3, durationMs, symbols: ['BTC-USD'] });
}

/** Replays `path` with the default config's strategies and risk; returns events and wall seconds. */
async function replay(path: string): Promise<{ events: number; wallS: number; cpuS: number }> {
  const { config, strategies } = await checkDaemonConfig(CONFIG);
  const reader = readRecording(path);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const result = await runBacktest({
    ...backtestOptions(config, strategies),
    events: reader.events(),
    markets: reader.header.markets,
    collateralUsd: 100_000,
    seed: 1,
    sink: { order: () => {}, fill: () => {}, equity: () => {} },
  });
  const cpu = process.cpuUsage(cpu0);
  return { events: result.events, wallS: (performance.now() - t0) / 1000, cpuS: (cpu.user + cpu.system) / 1e6 };
}

if (process.argv[2] === '--replay') {
  const r = await replay(process.argv[3]!);
  process.stdout.write(`${JSON.stringify({ ...r, maxRssKb: process.resourceUsage().maxRSS })}\n`);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-bench-backtest-'));
  try {
    const sample = join(dir, 'sample.rec');
    await record(sample, MINUTES * 60_000);
    const rates: number[] = [];
    const cpuRates: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await replay(sample);
      rates.push(r.events / r.wallS);
      cpuRates.push(r.events / r.cpuS);
    }
    report('backtest', 'events_per_s', median(rates), 'events/s');
    report('backtest', 'events_per_cpu_s', median(cpuRates), 'events/s');
    if (DAY_HOURS > 0) {
      const day = join(dir, 'day.rec');
      await record(day, DAY_HOURS * 3_600_000);
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--replay', day], { encoding: 'utf8', maxBuffer: 1 << 20 });
      if (child.status !== 0) throw new Error(`day replay failed: ${child.stderr}`);
      const r = JSON.parse(child.stdout) as { events: number; wallS: number; cpuS: number; maxRssKb: number };
      report('backtest', DAY_HOURS === 24 ? 'day_wall_s' : `replay_${DAY_HOURS}h_wall_s`, r.wallS, 's');
      report('backtest', DAY_HOURS === 24 ? 'day_cpu_s' : `replay_${DAY_HOURS}h_cpu_s`, r.cpuS, 's');
      report('backtest', DAY_HOURS === 24 ? 'day_events' : `replay_${DAY_HOURS}h_events`, r.events, 'events');
      report('backtest', 'peak_rss_mb', r.maxRssKb / 1024, 'MB');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
