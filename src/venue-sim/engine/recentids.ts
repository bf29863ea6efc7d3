// The hashes of one account's newest `window` terminal order ids: an open-addressing multiset of 16-bit
// fingerprints (2 bytes a slot, so it stays small and cache-resident) plus a ring of the full hashes in push order.
// Invariant: the set holds exactly the fingerprints of the ring's hashes; a slot's home is its own value & mask, so
// slots with equal values are interchangeable; 0 marks a free slot, and hashes are odd, so 0 never names one.

/** Non-zero 16-bit fingerprint of hash `h`. */
function fingerprint(h: number): number {
  return h >>> 16 || 1;
}

export class RecentIds {
  private readonly table: Uint16Array;
  private readonly mask: number;
  /** the last `window` hashes added (0 where none yet); the oldest sits at `oldest` once the ring is full */
  private readonly ring: Int32Array;
  private oldest = 0;
  private full = false;

  constructor(readonly window: number) {
    let slots = 16;
    while (slots < window * 2) slots *= 2;
    this.table = new Uint16Array(slots);
    this.mask = slots - 1;
    this.ring = new Int32Array(window);
  }

  /** True when one of the newest `window` hashes is `h` (the caller confirms the id itself). */
  has(h: number): boolean {
    const v = fingerprint(h);
    const table = this.table;
    const mask = this.mask;
    for (let i = v & mask; ; i = (i + 1) & mask) {
      const slot = table[i]!;
      if (slot === 0) return false;
      if (slot === v) return this.ring.includes(h);
    }
  }

  /** Adds (odd) hash `h`, forgetting the oldest once `window` are kept. */
  add(h: number): void {
    const at = this.oldest;
    if (this.full) this.remove(fingerprint(this.ring[at]!));
    this.ring[at] = h;
    if (at + 1 === this.window) {
      this.oldest = 0;
      this.full = true;
    } else this.oldest = at + 1;
    const v = fingerprint(h);
    const table = this.table;
    const mask = this.mask;
    let i = v & mask;
    while (table[i] !== 0) i = (i + 1) & mask;
    table[i] = v;
  }

  /** Removes one slot holding `v` (backward-shift deletion). */
  private remove(v: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = v & mask;
    while (table[i] !== v) i = (i + 1) & mask;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const slot = table[j]!;
      if (slot === 0) break;
      const home = slot & mask;
      if (i <= j ? home <= i || home > j : home <= i && home > j) {
        table[i] = slot;
        i = j;
      }
    }
    table[i] = 0;
  }
}
