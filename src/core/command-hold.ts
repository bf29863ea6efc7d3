// Commands before data: a control connection that has just opened holds market-data routing back until its request is
// read, so the event-loop turns that accept, read and parse it carry no slice of frames (client/ws-connection.ts).
// Invariants: routing is held only while some hold is unreleased and within a window of HOLD_MAX_MS that a hold opened;
// a new window opens only HOLD_MAX_MS after the last one closed, so no stream of connections starves market data.

import { performance } from 'node:perf_hooks';

/** Longest routing is held back at a time, ms; afterwards it runs for at least as long before a hold applies again. */
export const HOLD_MAX_MS = 10;

let holds = 0;
/** End of the current (or last) window, performance.now() ms. */
let windowEndMs = -Infinity;

/** Holds market-data routing back from now (`nowMs`: performance.now()); returns its release, which may be called more than once. */
export function holdData(nowMs = performance.now()): () => void {
  holds++;
  if (nowMs >= windowEndMs + HOLD_MAX_MS) windowEndMs = nowMs + HOLD_MAX_MS;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds--;
  };
}

/** Whether market-data routing yields now: a hold is unreleased and its window is open. */
export function dataHeld(): boolean {
  return holds > 0 && performance.now() < windowEndMs;
}
