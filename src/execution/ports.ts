// What execution needs beside the venue port: the account queries it resolves with, and timers.
// Invariant: nothing here does I/O; the venue's account source and real timers are passed in.

import type { AccountDataSource } from '../venue/port.js';

/** Venue order facts execution resolves with: resting orders and ended ones, by account (the venue's account source fits). */
export type VenueQueries = Pick<AccountDataSource, 'openOrders' | 'orderHistory'>;

/** Timers for retries and deadlines (injected so tests and backtests control time). */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
