// Exponential backoff with jitter for reconnects and retried reads.
// Invariant: the delay of attempt n lies in [cap/2, cap] with cap = min(maxMs, initialMs · factor^n).

export interface BackoffOptions {
  /** Delay cap of the first attempt, ms. Default 1 000. */
  initialMs?: number;
  /** Largest delay, ms. Default 30 000. */
  maxMs?: number;
  /** Growth per attempt. Default 2. */
  factor?: number;
}

/** "Equal jitter": half the capped delay fixed, half drawn from `random` (a [0, 1) source). */
export function backoffDelayMs(attempt: number, opts: BackoffOptions = {}, random: () => number = Math.random): number {
  const { initialMs = 1_000, maxMs = 30_000, factor = 2 } = opts;
  const cap = Math.min(maxMs, initialMs * factor ** Math.max(0, attempt));
  return cap / 2 + random() * (cap / 2);
}
