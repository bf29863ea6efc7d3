// Benchmark `record`: the time to generate a synthetic 24-hour recording (record_synthetic_day_s), the reader's decode
// rate over that file (decode_events_per_s) and its size (bytes_per_event), with the reader's memory growth; wall and
// CPU time both (on a shared machine the CPU figures are the stable ones).
// Invariant: values are medians of independent runs (BENCH_RUNS generations, DECODE_RUNS full reads of one file).

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRecording } from '../src/backtest/recording/reader.js';
import { writeSyntheticRecording } from '../src/backtest/recording/synthetic.js';
import { median, report } from './lib.js';

const BENCH = 'record';
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const DECODE_RUNS = 5;
/** Virtual hours generated per run; below 24 the day's time is extrapolated linearly (a quick look, not the figure). */
const HOURS = Number(process.env.BENCH_RECORD_HOURS ?? 24);
const SEED = 1;

const dir = mkdtempSync(join(tmpdir(), 'perpbot-bench-record-'));
try {
  const dayS: number[] = [];
  const dayCpuS: number[] = [];
  let path = '';
  let events = 0;
  for (let r = 0; r < RUNS; r++) {
    if (path) rmSync(path);
    path = join(dir, `day-${r}.rec`);
    const start = performance.now();
    const cpu = process.cpuUsage();
    events = (await writeSyntheticRecording(path, { seed: SEED, durationMs: HOURS * 3_600_000 })).events;
    dayS.push(((performance.now() - start) / 1000) * (24 / HOURS));
    const used = process.cpuUsage(cpu);
    dayCpuS.push(((used.user + used.system) / 1e6) * (24 / HOURS));
  }
  report(BENCH, 'record_synthetic_day_s', median(dayS), 's');
  // CPU time of the process (compression threads included): what the day costs whatever else the machine runs.
  report(BENCH, 'record_synthetic_day_cpu_s', median(dayCpuS), 's');
  report(BENCH, 'bytes_per_event', statSync(path).size / events, 'bytes');

  const rates: number[] = [];
  const cpuRates: number[] = [];
  const growthMb: number[] = [];
  for (let r = 0; r < DECODE_RUNS; r++) {
    const rssBefore = process.memoryUsage.rss();
    let peak = rssBefore;
    let n = 0;
    const start = performance.now();
    const cpu = process.cpuUsage();
    for (const _ of readRecording(path).events()) {
      if (++n % 1_000_000 === 0) peak = Math.max(peak, process.memoryUsage.rss());
    }
    rates.push(n / ((performance.now() - start) / 1000));
    const used = process.cpuUsage(cpu);
    cpuRates.push(n / ((used.user + used.system) / 1e6));
    growthMb.push((peak - rssBefore) / 2 ** 20);
    if (n !== events) throw new Error(`read ${n} events of ${events}`);
  }
  report(BENCH, 'decode_events_per_s', median(rates), 'events/s');
  report(BENCH, 'decode_events_per_cpu_s', median(cpuRates), 'events/s');
  report(BENCH, 'decode_rss_growth_mb', median(growthMb), 'MiB');
  report(BENCH, 'events_per_day', events * (24 / HOURS), 'events');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
