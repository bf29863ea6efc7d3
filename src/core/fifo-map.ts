// A Map bounded to `capacity` keys that forgets the key set first when a new one would exceed it.
// Invariants: at most `capacity` keys; setting a known key keeps its age; no scan of the Map to find the oldest key
// (reading a Map's first key scans every entry deleted since its last rehash: about 10 times slower a set once full).

export class FifoMap<K, V> {
  private readonly map = new Map<K, V>();
  /** The keys in the order first set, a ring once full: `oldest` is the next to forget. */
  private readonly order: K[] = [];
  private oldest = 0;

  constructor(readonly capacity: number) {
    if (!(Number.isSafeInteger(capacity) && capacity >= 1)) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  /** One hash lookup: a new key shows as a grown size (then the oldest is forgotten if that went beyond capacity). */
  set(key: K, value: V): void {
    const { map } = this;
    const size = map.size;
    map.set(key, value);
    if (map.size === size) return;
    if (size < this.capacity) this.order.push(key);
    else {
      map.delete(this.order[this.oldest]!);
      this.order[this.oldest] = key;
      this.oldest = (this.oldest + 1) % this.capacity;
    }
  }
}
