// Fair ordering of one block of transactions (venue-protocol §14): a Fisher-Yates shuffle with a WyRand PRNG seeded by
// the block timestamp, then a stable priority pass: account settings, cancels, post-only makers, the rest. Invariant: pure.

const MASK64 = (1n << 64n) - 1n;
const WY_ADD = 0xa0761d6478bd642fn;
const WY_XOR = 0xe7037ed1a0b428dbn;

/** WyRand: 64-bit outputs from a 64-bit state (the seed). */
export class WyRand {
  private state: bigint;

  constructor(seed: bigint) {
    this.state = seed & MASK64;
  }

  next(): bigint {
    this.state = (this.state + WY_ADD) & MASK64;
    const t = this.state * (this.state ^ WY_XOR);
    return ((t >> 64n) ^ t) & MASK64;
  }
}

/** `items` in Fisher-Yates order under `rng` (a new array). */
export function shuffled<T>(items: readonly T[], rng: WyRand): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Number(rng.next() % BigInt(i + 1));
    const t = out[i]!;
    out[i] = out[j]!;
    out[j] = t;
  }
  return out;
}

/** Priority class of one action: 0 account settings (faucet, agents, leverage, ...), 1 cancels, 2 post-only limits, 3 the rest. */
export type Priority = 0 | 1 | 2 | 3;

/**
 * The execution order of a block: transactions shuffled with WyRand seeded by `timestampNs`, then every action stably
 * ordered by its priority. Returns [transaction index, action index] pairs.
 */
export function blockOrder(priorities: readonly (readonly Priority[])[], timestampNs: bigint): [number, number][] {
  const txs = shuffled(
    priorities.map((_, i) => i),
    new WyRand(timestampNs),
  );
  const out: [number, number][] = [];
  for (let p = 0; p <= 3; p++) for (const t of txs) priorities[t]!.forEach((q, a) => q === p && out.push([t, a]));
  return out;
}
