// Keep-warm: between bursts of market data, every part of the hot path rehearses on its last input every few ms, so the
// CPU caches and V8 keep its code and data (the first tick after a quiet spell is otherwise several times slower).
// Invariants: rehearsals send and change nothing (Rehearsal); the timer never keeps the process alive.

import type { Rehearsal } from './rehearsal.js';

export interface KeepWarm {
  stop(): void;
}

/** Runs every rehearsal, in order, each `everyMs` ms (>= 1) until stopped. Throws RangeError for another interval. */
export function keepWarm(rehearsals: readonly Rehearsal[], everyMs: number): KeepWarm {
  if (!(everyMs >= 1 && Number.isFinite(everyMs))) throw new RangeError(`keep-warm interval must be a number of ms >= 1, got ${everyMs}`);
  const timer = setInterval(() => {
    for (const r of rehearsals) r.rehearse();
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
