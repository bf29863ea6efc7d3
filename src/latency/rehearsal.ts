// The one interface of latency tuning: a part of the hot path that can run its code once more on its last real input.
// Invariant: a rehearsal sends nothing, changes no state, draws no nonce and counts nothing; it only keeps code and data warm.

/** Runs the hot-path code of one part again on the last real input it saw (a no-op before it saw any). */
export interface Rehearsal {
  rehearse(): void;
}
