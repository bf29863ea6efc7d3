// Live orders by id: open addressing on the order's precomputed hashId, so a lookup never hashes the whole id.
// Invariant: at most half the slots are used; a used slot holds its order's (odd) idHash, a free one 0; deletion leaves no tombstone.

import type { Order } from './model.js';

/**
 * Cheap odd 32-bit hash of an id from its length and last 8 characters (wire ids are base58 of sha256: already
 * random); odd so that 0 can mark a free slot.
 */
export function hashId(s: string): number {
  const n = s.length;
  let h = Math.imul(n, 0x9e3779b1);
  for (let i = n - 1, stop = n > 8 ? n - 8 : 0; i >= stop; i--) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 12)) | 1;
}

export class OrderIndex {
  /** hashes of the slots' orders; 0 = free slot (hashes are odd) */
  private hashes = new Int32Array(64);
  private slots: (Order | null)[] = new Array<Order | null>(64).fill(null);
  private mask = 63;
  size = 0;

  /** The live order with id `id` (whose hashId is `h`), if any. */
  get(id: string, h: number): Order | undefined {
    const hashes = this.hashes;
    const mask = this.mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const slot = hashes[i]!;
      if (slot === 0) return undefined;
      if (slot === h) {
        const o = this.slots[i]!;
        if (o.id === id) return o;
      }
    }
  }

  /** Adds `o` (its id must not be present). */
  add(o: Order): void {
    if (2 * (this.size + 1) > this.slots.length) this.resize(this.slots.length * 2);
    this.place(o);
    this.size++;
  }

  delete(o: Order): void {
    const mask = this.mask;
    const slots = this.slots;
    const hashes = this.hashes;
    let i = o.idHash & mask;
    while (slots[i] !== o) i = (i + 1) & mask;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const h = hashes[j]!;
      if (h === 0) break;
      const home = h & mask;
      if (i <= j ? home <= i || home > j : home <= i && home > j) {
        slots[i] = slots[j]!;
        hashes[i] = h;
        i = j;
      }
    }
    slots[i] = null;
    hashes[i] = 0;
    this.size--;
  }

  *values(): IterableIterator<Order> {
    for (const o of this.slots) if (o !== null) yield o;
  }

  private place(o: Order): void {
    const mask = this.mask;
    let i = o.idHash & mask;
    while (this.hashes[i] !== 0) i = (i + 1) & mask;
    this.slots[i] = o;
    this.hashes[i] = o.idHash;
  }

  private resize(n: number): void {
    const old = this.slots;
    this.slots = new Array<Order | null>(n).fill(null);
    this.hashes = new Int32Array(n);
    this.mask = n - 1;
    for (const o of old) if (o !== null) this.place(o);
  }
}
