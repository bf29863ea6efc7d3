// Bounded memory of event keys with multiplicity, for deduplicating order updates and fills.
// Invariant: holds at most `capacity` distinct keys; the oldest inserted keys are forgotten first.

import { FifoMap } from '../core/fifo-map.js';

export class KeyCounts {
  private readonly counts: FifoMap<string, number>;

  /**
   * The default covers every replay the venue can cause: history queries return the last 5000 terminal orders and
   * the last 5000 fills (spec), and an order leaves at most a few keys (placed, working, terminal).
   */
  constructor(capacity = 20_000) {
    this.counts = new FifoMap(capacity);
  }

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** Counts `key` once more; returns its count before. */
  add(key: string): number {
    const before = this.count(key);
    this.counts.set(key, before + 1);
    return before;
  }
}
