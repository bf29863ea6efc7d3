// Client order ids (`cloid`, where the codec has clientOrderIds): a 32-byte hash of the strategy's tag, salted per use.
// Invariant: one (account, session, strategy, tag, sequence) gives one id; a new session never repeats an old id.

import { sha256Base58 } from '../protocol/hash.js';

const encoder = new TextEncoder();

/**
 * The cloid function for one account and session: base58(sha256("perpbot.cloid" ‖ account ‖ session ns ‖ strategy ‖
 * tag ‖ sequence)), fields NUL-separated. The session (e.g. the engine's start time in ns) keeps ids of a restarted bot
 * away from those the venue still remembers (it refuses a reused cloid as rejectedDuplicate).
 */
export function cloidFactory(account: string, sessionNs: bigint): (strategy: string, tag: string, sequence: number) => string {
  const prefix = `perpbot.cloid\u0000${account}\u0000${sessionNs}\u0000`;
  return (strategy, tag, sequence) => sha256Base58(encoder.encode(`${prefix}${strategy}\u0000${tag}\u0000${sequence}`));
}
