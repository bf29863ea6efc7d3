// The soak suite's arithmetic: least-squares slopes, medians, and the intervals a daemon spent not ready.
// Invariant: pure functions over the samples (times in seconds since the run started); no I/O.

/** One reading of the daemon's /metrics. */
export interface Sample {
  /** Seconds since the daemon first answered ready. */
  readonly atS: number;
  readonly rssMb: number;
  readonly heapUsedMb: number;
  /** nodejs_eventloop_lag_p99_seconds of the interval since the previous reading, ms. */
  readonly loopDelayP99Ms: number;
  /** Orders the venue acknowledged (status placed) so far, count. */
  readonly ordersPlaced: number;
  readonly fills: number;
}

/** Slope of the least-squares line through (x, y), y units per x unit; 0 for fewer than two distinct x. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  if (n !== ys.length) throw new RangeError(`slope of ${n} x and ${ys.length} y`);
  if (n < 2) return 0;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
  }
  return sxx === 0 ? 0 : sxy / sxx;
}

/** Slope of `value` over the second half of `samples` (by time), MB per hour. */
export function secondHalfSlopeMbPerHour(samples: readonly Sample[], value: (s: Sample) => number): number {
  if (samples.length === 0) return 0;
  const midS = samples[samples.length - 1]!.atS / 2;
  const half = samples.filter((s) => s.atS >= midS);
  return slope(
    half.map((s) => s.atS / 3600),
    half.map(value),
  );
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Distinct reasons kept per stretch (a reason's text may change every poll, e.g. a count of seconds). */
const MAX_REASONS = 10;

/** A stretch of time during which /readyz did not answer 200. */
export interface NotReady {
  readonly fromS: number;
  readonly toS: number;
  /** The reasons /readyz gave (distinct, in order of appearance, the first MAX_REASONS). */
  readonly reasons: readonly string[];
}

/**
 * Folds readiness polls into the stretches spent not ready. A stretch starts at the first poll that was not ready and
 * ends at the next ready poll (or at the last poll when it never recovered).
 */
export class ReadinessLog {
  readonly stretches: NotReady[] = [];
  private open: { fromS: number; reasons: string[] } | undefined;
  private lastS = 0;

  poll(atS: number, ready: boolean, reasons: readonly string[] = []): void {
    this.lastS = atS;
    if (ready) {
      if (this.open) this.stretches.push({ fromS: this.open.fromS, toS: atS, reasons: this.open.reasons });
      this.open = undefined;
      return;
    }
    this.open ??= { fromS: atS, reasons: [] };
    for (const r of reasons) if (this.open.reasons.length < MAX_REASONS && !this.open.reasons.includes(r)) this.open.reasons.push(r);
  }

  /** Every stretch, the one still open included (ending at the last poll). */
  all(): NotReady[] {
    return this.open ? [...this.stretches, { fromS: this.open.fromS, toS: this.lastS, reasons: this.open.reasons }] : [...this.stretches];
  }

  /** The longest stretch not ready, s (0 when always ready). */
  longestS(): number {
    return Math.max(0, ...this.all().map((s) => s.toS - s.fromS));
  }

  totalS(): number {
    return this.all().reduce((t, s) => t + (s.toS - s.fromS), 0);
  }
}
