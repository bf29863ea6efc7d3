// Backtest speed: market events replayed per second with the built-in market maker of config/default.yaml attached, on
// dense data (a busy market's book feed, DENSE_FLOW: 30 minutes, about 5.9 M events) and on the local venue's default
// flow, each replay in a fresh process (start-up excluded, the JIT's warm-up included) with V8 held to one thread
// (`node --single-threaded`: wall time is CPU time), and also with V8's default helper threads; the quote sets it sent
// and the CPU they cost; the wall time and peak RSS of replaying a 24-hour synthetic recording. Invariant: seeded data and
// models; each figure is the median of BENCH_RUNS processes; the recordings are made first and not timed here.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkDaemonConfig } from '../src/app/config/index.js';
import { backtestOptions } from '../src/app/commands/backtest.js';
import { readRecording } from '../src/backtest/recording/reader.js';
import { DENSE_FLOW, type SyntheticFlow, writeSyntheticRecording } from '../src/backtest/recording/synthetic.js';
import { runBacktest } from '../src/backtest/replay.js';
import { median, report } from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MINUTES = Number(process.env.BENCH_MINUTES ?? 10);
const DENSE_MINUTES = Number(process.env.BENCH_DENSE_MINUTES ?? 30);
const DAY_HOURS = Number(process.env.BENCH_DAY_HOURS ?? 24);
const CONFIG = resolve(fileURLToPath(import.meta.url), '../../../config/default.yaml');

async function record(path: string, durationMs: number, flow?: SyntheticFlow): Promise<void> {
  await writeSyntheticRecording(path, { seed: 3, durationMs, symbols: ['BTC-USD'], ...(flow && { flow }) });
}

interface Run {
  events: number;
  /** Order action batches the session sent: a quote set each. */
  quoteSets: number;
  wallS: number;
  cpuS: number;
  /** Peak RSS of the process (a replay in a process of its own). */
  maxRssKb: number;
}

/** Replays `path` with the default config's strategies and risk (none with `bare`: the replay alone). */
async function replay(path: string, bare = false): Promise<Omit<Run, 'maxRssKb'>> {
  const { config, strategies: all } = await checkDaemonConfig(CONFIG);
  const strategies = bare ? [] : all;
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
  return { events: result.events, quoteSets: result.requests, wallS: (performance.now() - t0) / 1000, cpuS: (cpu.user + cpu.system) / 1e6 };
}

const SCRIPT = fileURLToPath(import.meta.url);

/** Replays `path` in a fresh process: V8 held to one thread unless `threads`, no strategy with `bare`. */
function replayProcess(path: string, opts: { bare?: boolean; threads?: boolean } = {}): Run {
  const flags = opts.threads ? [] : ['--single-threaded'];
  const args = [...flags, SCRIPT, '--replay', path, ...(opts.bare ? ['--bare'] : [])];
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (child.status !== 0) throw new Error(`replay of ${path} failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as Run;
}

/**
 * Replays `path` in RUNS fresh processes of each kind (one thread with the market maker, one thread without strategies,
 * V8's default threads with the market maker); reports events per second (one thread: wall and CPU), with V8's
 * threads (wall and CPU), quote sets per second of data and the session's CPU per quote set (CPU with the market maker
 * minus the replay's alone, over the quote sets: the quote sets and the book changes the strategy read), each with `suffix`.
 */
function measure(path: string, dataS: number, suffix: string): void {
  const one: Run[] = [];
  const bare: Run[] = [];
  const threads: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    one.push(replayProcess(path));
    bare.push(replayProcess(path, { bare: true }));
    threads.push(replayProcess(path, { threads: true }));
  }
  const { events, quoteSets } = one[0]!;
  const cpuS = median(one.map((r) => r.cpuS));
  report('backtest', `events_per_s${suffix}`, median(one.map((r) => r.events / r.wallS)), 'events/s');
  report('backtest', `events_per_cpu_s${suffix}`, events / cpuS, 'events/s');
  report('backtest', `events_per_s_v8_threads${suffix}`, median(threads.map((r) => r.events / r.wallS)), 'events/s');
  report('backtest', `events_per_cpu_s_v8_threads${suffix}`, events / median(threads.map((r) => r.cpuS)), 'events/s');
  report('backtest', `data_events_per_s${suffix}`, events / dataS, 'events/s');
  report('backtest', `quote_sets_per_data_s${suffix}`, quoteSets / dataS, 'quote sets/s');
  const bareCpuS = median(bare.map((r) => r.cpuS));
  report('backtest', `replay_only_events_per_cpu_s${suffix}`, events / bareCpuS, 'events/s');
  report('backtest', `session_cpu_ms_per_quote_set${suffix}`, ((cpuS - bareCpuS) * 1000) / Math.max(1, quoteSets), 'ms');
}

if (process.argv[2] === '--replay') {
  const r = await replay(process.argv[3]!, process.argv[4] === '--bare');
  process.stdout.write(`${JSON.stringify({ ...r, maxRssKb: process.resourceUsage().maxRSS })}\n`);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-bench-backtest-'));
  try {
    if (DENSE_MINUTES > 0) {
      const dense = join(dir, 'dense.rec');
      await record(dense, DENSE_MINUTES * 60_000, DENSE_FLOW);
      measure(dense, DENSE_MINUTES * 60, '');
    }
    const sample = join(dir, 'sample.rec');
    await record(sample, MINUTES * 60_000);
    measure(sample, MINUTES * 60, '_default_flow');
    if (DAY_HOURS > 0) {
      const day = join(dir, 'day.rec');
      await record(day, DAY_HOURS * 3_600_000);
      const r = replayProcess(day, { threads: true });
      report('backtest', DAY_HOURS === 24 ? 'day_wall_s' : `replay_${DAY_HOURS}h_wall_s`, r.wallS, 's');
      report('backtest', DAY_HOURS === 24 ? 'day_cpu_s' : `replay_${DAY_HOURS}h_cpu_s`, r.cpuS, 's');
      report('backtest', DAY_HOURS === 24 ? 'day_events' : `replay_${DAY_HOURS}h_events`, r.events, 'events');
      report('backtest', 'peak_rss_mb', r.maxRssKb / 1024, 'MB');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
