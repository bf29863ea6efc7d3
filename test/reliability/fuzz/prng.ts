// Seeded randomness of the fuzz suites: every input is a function of the printed seed, so a failure is replayed by
// running again with PERPBOT_FUZZ_SEED=<seed>. Invariant: no Math.random anywhere in the generators.

import { Prng as EnginePrng } from '../../../src/venue-sim/engine/ids.js';

/** The engine's seeded generator (xoshiro128** seeded by splitmix32) with what the generators draw. */
export class Prng extends EnginePrng {
  /** Uniform in [0, 2^32). */
  u32(): number {
    return this.nextU32();
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 2 ** 32;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  bytes(n: number): Buffer {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = this.u32() & 0xff;
    return b;
  }

  /** `n` characters drawn from `alphabet`. */
  text(n: number, alphabet: string): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
}

/** The seed of this run: PERPBOT_FUZZ_SEED when set, else derived from the clock (printed by the suite). */
export function runSeed(): number {
  const fixed = process.env.PERPBOT_FUZZ_SEED;
  if (fixed !== undefined && fixed !== '') {
    const n = Number(fixed);
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`PERPBOT_FUZZ_SEED must be an integer from 0 to 2^32-1, got ${fixed}`);
    return n;
  }
  return (Date.now() % 0xffffffff) >>> 0;
}
