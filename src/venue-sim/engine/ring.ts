// Bounded histories: a ring buffer of the newest N items and a bounded set of recently seen keys.
// Invariant: memory is O(capacity); once full, each push evicts exactly the oldest item.

export class Ring<T> {
  private readonly items: T[] = [];
  private head = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    if (this.items.length < this.capacity) this.items.push(item);
    else {
      this.items[this.head] = item;
      this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
    }
  }

  /** Up to `limit` items, newest first. */
  newestFirst(limit = this.capacity): T[] {
    const n = this.items.length;
    const k = Math.min(limit, n);
    const out = new Array<T>(k);
    let i = (this.head === 0 ? n : this.head) - 1;
    for (let j = 0; j < k; j++) {
      out[j] = this.items[i]!;
      i = i === 0 ? n - 1 : i - 1;
    }
    return out;
  }
}

/** A set that remembers only the `capacity` most recently added keys. */
export class RecentSet {
  private readonly set = new Set<string>();
  private readonly order: string[];
  private next = 0;

  constructor(readonly capacity: number) {
    this.order = new Array<string>(capacity);
  }

  has(key: string): boolean {
    return this.set.has(key);
  }

  add(key: string): void {
    if (this.capacity === 0 || this.set.has(key)) return;
    const old = this.order[this.next];
    if (old !== undefined) this.set.delete(old);
    this.order[this.next] = key;
    this.next = this.next + 1 === this.capacity ? 0 : this.next + 1;
    this.set.add(key);
  }

  get size(): number {
    return this.set.size;
  }
}
