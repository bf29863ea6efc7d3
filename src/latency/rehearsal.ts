// The one interface of latency tuning: a part of the hot path that can run its code once more on its last real input.
// Invariants: a rehearsal sends nothing, changes no state, draws no nonce and counts nothing; it only keeps code and data
// warm. A stage that ran for real since the last rehearsal is skipped by the next one (that run warmed the same code).

/** Runs the hot-path code of one part again on the last real input it saw (a no-op before it saw any). */
export interface Rehearsal {
  rehearse(): void;
}

/**
 * Whether one stage of a part ran for real since its last rehearsal: if it did, that run warmed the same code and
 * data, so the next rehearsal skips the stage (keep-warm spends CPU only on what went quiet).
 */
export class RecentUse {
  private used = false;

  /** The stage ran for real. */
  mark(): void {
    this.used = true;
  }

  /** Whether a rehearsal should run the stage now: false once after a real run, true otherwise. */
  due(): boolean {
    const due = !this.used;
    this.used = false;
    return due;
  }
}
