// Injected time: wall-clock milliseconds and epoch nanoseconds, so backtests can run virtual time.
// Invariant: `nowNs` of the system clock never goes backwards within a process.

export interface Clock {
  /** Epoch milliseconds. */
  nowMs(): number;
  /** Epoch nanoseconds as a u64 bigint. */
  nowNs(): bigint;
}

/** The machine clock: epoch anchored once, advanced by the monotonic high-resolution timer. */
export function systemClock(): Clock {
  // Epoch ns minus the high-resolution timer at the anchor: one bigint addition a reading.
  const offsetNs = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();
  return {
    nowMs: () => Date.now(),
    nowNs: () => offsetNs + process.hrtime.bigint(),
  };
}

/** A clock that only moves when told to (tests, backtests). */
export class ManualClock implements Clock {
  constructor(private ns: bigint = 0n) {}

  nowMs(): number {
    return Number(this.ns / 1_000_000n);
  }

  nowNs(): bigint {
    return this.ns;
  }

  set(ns: bigint): void {
    this.ns = ns;
  }

  advanceMs(ms: number): void {
    this.ns += BigInt(Math.round(ms * 1e6));
  }
}
