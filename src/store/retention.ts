// Journal retention: a timer that prunes rows past an age and beyond a size, one small transaction per tick.
// Invariants: one tick deletes at most ROWS_PER_STEP rows per table (the event loop is never held for long); nonce marks,
// epochs and unresolved batches are never pruned (Journal.prune); a failing step is reported and the timer goes on.

import type { Clock } from '../core/clock.js';
import type { Journal } from './journal.js';

const MS_PER_DAY = 86_400_000;
/** Rows per table deleted by one step (one short transaction). */
const ROWS_PER_STEP = 1000;

export interface RetentionOptions {
  /** Rows older than this many days are pruned; 0 keeps rows of any age. */
  readonly maxAgeDays: number;
  /** While the journal's pages in use exceed this many megabytes (2^20 bytes), the oldest rows are pruned; 0: no bound. */
  readonly maxMegabytes: number;
  /** Interval of the prune steps, ms. */
  readonly pruneIntervalMs: number;
  readonly clock: Pick<Clock, 'nowMs'>;
  /** A step's deleted rows (called only when some were). */
  onPruned?(rows: number): void;
  onError(e: Error): void;
}

/** Prunes `journal` every `pruneIntervalMs` (an unref'd timer) until the returned stop is called. */
export function startRetention(journal: Journal, opts: RetentionOptions): () => void {
  if (opts.maxAgeDays === 0 && opts.maxMegabytes === 0) return () => {};
  const step = () => {
    try {
      const rows = journal.prune({
        ...(opts.maxAgeDays > 0 && { beforeMs: opts.clock.nowMs() - opts.maxAgeDays * MS_PER_DAY }),
        ...(opts.maxMegabytes > 0 && { maxBytes: opts.maxMegabytes * 2 ** 20 }),
        rows: ROWS_PER_STEP,
      });
      if (rows > 0) opts.onPruned?.(rows);
    } catch (e) {
      opts.onError(e as Error);
    }
  };
  const timer = setInterval(step, opts.pruneIntervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
