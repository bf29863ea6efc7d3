// Duplicate ids among each account's newest `window` ended orders: per account a ring of their hashes, and one bit filter of all.
// Invariant: every ringed hash has its filter bits set (the filter errs only towards "maybe"); a rebuild drops stale bits.

/** A rebuild happens after max(MIN_ADDS, keys) adds, so its cost is spread over at least that many. */
const MIN_ADDS = 8192;
/** filter bits per key it may hold (two set per key): at most about 3 % false "maybe" just before a rebuild */
const BITS_PER_KEY = 8;

/** The hashes of one account's newest `window` terminal order ids, in push order. */
export class RecentIds {
  /** 0 where none yet (hashes are odd, so 0 never names one); the oldest sits at `oldest` once full */
  readonly ring: Int32Array;
  private oldest = 0;

  constructor(window: number) {
    this.ring = new Int32Array(window);
  }

  has(h: number): boolean {
    return this.ring.includes(h);
  }

  /** Adds (odd) hash `h` in place of the oldest; returns true when that slot already held one. */
  add(h: number): boolean {
    const ring = this.ring;
    const at = this.oldest;
    const replaced = ring[at] !== 0;
    ring[at] = h;
    this.oldest = at + 1 === ring.length ? 0 : at + 1;
    return replaced;
  }
}

/** The filter over every account's RecentIds (each account by its index). */
export class RecentIdFilter {
  private readonly rings: RecentIds[] = [];
  private words = new Int32Array(0);
  /** a key's word is its top (32 - shift) bits (at most 22, so they never overlap the 10 that pick its bits) */
  private shift = 32;
  /** hashes held by all rings */
  private keys = 0;
  private addsLeft = 0;

  constructor() {
    this.rebuild();
  }

  /** The ring of account `index`, created on first use. */
  ring(index: number, window: number): RecentIds {
    return (this.rings[index] ??= new RecentIds(window));
  }

  /** False when account `index` certainly holds no hash `h`; true when it may. */
  mayHave(index: number, h: number): boolean {
    const k = mix(index, h);
    const m = maskOf(k);
    return (this.words[k >>> this.shift]! & m) === m;
  }

  /** Adds (odd) hash `h` to the ring of account `index`. */
  add(index: number, ring: RecentIds, h: number): void {
    if (!ring.add(h)) this.keys++;
    if (--this.addsLeft <= 0) {
      this.rebuild();
      return;
    }
    this.set(mix(index, h));
  }

  private set(k: number): void {
    this.words[k >>> this.shift]! |= maskOf(k);
  }

  /** Clears the filter, sized for the keys now held plus the adds until the next rebuild, and sets them again. */
  private rebuild(): void {
    const adds = Math.max(MIN_ADDS, this.keys);
    let log2Words = 5;
    while (32 * 2 ** log2Words < BITS_PER_KEY * (this.keys + adds) && log2Words < 22) log2Words++;
    if (this.words.length === 2 ** log2Words) this.words.fill(0);
    else this.words = new Int32Array(2 ** log2Words);
    this.shift = 32 - log2Words;
    this.addsLeft = adds;
    this.rings.forEach((r, i) => {
      const ring = r.ring;
      for (let j = 0; j < ring.length; j++) if (ring[j] !== 0) this.set(mix(i, ring[j]!));
    });
  }
}

/** The two bits of key `k` within its word (from its low 10 bits). */
function maskOf(k: number): number {
  return (1 << (k & 31)) | (1 << ((k >>> 5) & 31));
}

/** 32-bit key of (account index, id hash). */
function mix(index: number, h: number): number {
  let k = Math.imul(h ^ Math.imul(index + 1, 0x9e3779b1), 0x85ebca6b);
  k ^= k >>> 13;
  return Math.imul(k, 0xc2b2ae35) ^ (k >>> 16);
}
