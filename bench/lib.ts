// Shared benchmark helpers: timing loops, medians over several runs, heap allocation, one JSON line per metric.
// Invariant: every reported value is a median of `runs` independent measurements.

import { GCProfiler, getHeapStatistics } from 'node:v8';

// A reader that stops early (e.g. `| head`) closes the pipe: stop quietly instead of crashing on EPIPE.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

export interface Metric {
  bench: string;
  metric: string;
  value: number;
  unit: string;
}

/** Prints one metric as a JSON line (the format `npm run bench` promises). */
export function report(bench: string, metric: string, value: number, unit: string): void {
  const m: Metric = { bench, metric, value: Number(value.toPrecision(6)), unit };
  process.stdout.write(`${JSON.stringify(m)}\n`);
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Runs `fn` repeatedly for about `ms` milliseconds; returns calls per second. */
export function rate(fn: () => void, ms = 300): number {
  let calls = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(ms) * 1_000_000n;
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let i = 0; i < 256; i++) fn();
    calls += 256;
    elapsed = process.hrtime.bigint() - start;
  }
  return calls / (Number(elapsed) / 1e9);
}

/**
 * Measures several competitors in interleaved rounds (so machine noise hits all alike) and
 * returns the median rate of each, in calls per second.
 */
export function compareRates(fns: Record<string, () => void>, rounds = 7, ms = 200): Record<string, number> {
  const samples: Record<string, number[]> = {};
  for (const name of Object.keys(fns)) {
    samples[name] = [];
    rate(fns[name]!, 50);
  }
  for (let r = 0; r < rounds; r++) for (const [name, fn] of Object.entries(fns)) samples[name]!.push(rate(fn, ms));
  const out: Record<string, number> = {};
  for (const [name, values] of Object.entries(samples)) out[name] = median(values);
  return out;
}

/** Bytes allocated on the JS heap and garbage collections between `start()` and `stop()`. */
export interface Allocation {
  bytes: number;
  collections: number;
  /** Time spent in those collections, ms. */
  gcMs: number;
}

/**
 * Measures heap allocation over a window: the growth of the used heap plus what every collection in the window freed
 * (promotion moves bytes between spaces without changing the total). Independent of machine load.
 */
export function allocationMeter(): { stop(): Allocation } {
  const profiler = new GCProfiler();
  profiler.start();
  const before = getHeapStatistics().used_heap_size;
  return {
    stop() {
      const after = getHeapStatistics().used_heap_size;
      const { statistics } = profiler.stop();
      let freed = 0;
      let costUs = 0;
      for (const gc of statistics) {
        freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
        costUs += gc.cost;
      }
      return { bytes: after - before + freed, collections: statistics.length, gcMs: costUs / 1000 };
    },
  };
}
