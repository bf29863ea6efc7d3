// Seeded randomness of the fuzz suites: every input is a function of the printed seed, so a failure is replayed by
// running again with PERPBOT_FUZZ_SEED=<seed>. Invariant: no Math.random anywhere in the generators.

/** xorshift128+ on four 32-bit words seeded by splitmix32: fast, and good enough to pick mutations. */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next() | 1;
  }

  /** Uniform in [0, 2^32). */
  u32(): number {
    let t = this.a ^ (this.a << 11);
    this.a = this.b;
    this.b = this.c;
    this.c = this.d;
    this.d = (this.d ^ (this.d >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
    t = this.d;
    return t >>> 0;
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
