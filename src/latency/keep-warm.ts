// Keep-warm: between bursts of market data, every part of the hot path rehearses on its last input every few ms, so the
// CPU caches and V8 keep its code and data (the first tick after a quiet spell is otherwise several times slower); a
// stage that ran for real since the last beat skips it (RecentUse), so busy stretches cost no rehearsal.
// Invariants: rehearsals send and change nothing (Rehearsal); the timer never keeps the process alive.

import type { Rehearsal } from './rehearsal.js';

export interface KeepWarm {
  stop(): void;
}

/** Throws RangeError unless `everyMs` is a usable keep-warm interval (a finite number of ms >= 1). */
export function checkKeepWarmMs(everyMs: number): void {
  if (!(everyMs >= 1 && Number.isFinite(everyMs))) throw new RangeError(`keepWarmMs must be 0 (off) or a number >= 1, got ${everyMs}`);
}

/** Runs every rehearsal, in order, each `everyMs` ms (>= 1) until stopped. Throws RangeError for another interval. */
export function keepWarm(rehearsals: readonly Rehearsal[], everyMs: number): KeepWarm {
  checkKeepWarmMs(everyMs);
  const timer = setInterval(() => {
    for (const r of rehearsals) r.rehearse();
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
