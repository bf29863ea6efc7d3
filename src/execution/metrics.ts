// Metric hooks of execution (prom-client's Counter and Histogram fit them) and a small in-memory histogram for
// benchmarks and tests. Invariants: values in base units (seconds, items); labels are bounded (status, outcome, reason).

export interface HistogramLike {
  observe(value: number): void;
}

export interface CounterLike {
  inc(labels: Record<string, string>, value?: number): void;
}

export interface ExecutionMetrics {
  /** Order events by `status`. */
  readonly orderEvents?: CounterLike;
  /** Submit outcomes by `outcome` (accepted, rejected, unknown; rate_limited: given up after rateLimitMaxWaitMs of HTTP 429). */
  readonly submitOutcomes?: CounterLike;
  /** Operations refused before signing, by risk `reason` (or `LOCAL_*` for execution's own checks). */
  readonly denials?: CounterLike;
  /** Items per signed batch. */
  readonly batchItems?: HistogramLike;
  /** Submit → answer, seconds. */
  readonly ackLatencySeconds?: HistogramLike;
  /** Arrival of the frame an intent was computed from → its signed request written to the socket, seconds. */
  readonly tickToTradeSeconds?: HistogramLike;
}

/** Keeps every observation (bounded by `capacity`, oldest overwritten) and answers quantiles. */
export class SampleHistogram implements HistogramLike {
  private readonly values: Float64Array;
  private n = 0;

  constructor(readonly capacity = 100_000) {
    this.values = new Float64Array(capacity);
  }

  observe(value: number): void {
    this.values[this.n % this.capacity] = value;
    this.n++;
  }

  /** Observations recorded (including overwritten ones). */
  get count(): number {
    return this.n;
  }

  /** The q-quantile (0..1) of the kept observations, NaN when empty. */
  quantile(q: number): number {
    const kept = this.values.slice(0, Math.min(this.n, this.capacity)).sort();
    if (kept.length === 0) return Number.NaN;
    return kept[Math.min(kept.length - 1, Math.max(0, Math.ceil(q * kept.length) - 1))]!;
  }

  reset(): void {
    this.n = 0;
  }
}

/** Counts by label values joined with `,` (tests and the bench read them). */
export class MemoryCounter implements CounterLike {
  readonly counts = new Map<string, number>();

  inc(labels: Record<string, string>, value = 1): void {
    const key = Object.values(labels).join(',');
    this.counts.set(key, (this.counts.get(key) ?? 0) + value);
  }

  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}
