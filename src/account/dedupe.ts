// Bounded memory of event keys with multiplicity, for deduplicating order updates and fills.
// Invariant: holds at most `capacity` distinct keys; the oldest inserted keys are forgotten first.

export class KeyCounts {
  private readonly counts = new Map<string, number>();
  /**
   * The distinct keys in the order they were first added, a ring once full: `oldest` is the next to forget. (Reading the
   * Map's first key instead costs a scan over every entry deleted since its last rehash: about 10 times slower an add
   * once full, `npm run bench -- account`.)
   */
  private readonly order: string[] = [];
  private oldest = 0;

  /**
   * The default covers every replay the venue can cause: history queries return the last 5000 terminal orders and
   * the last 5000 fills (spec), and an order leaves at most a few keys (placed, working, terminal).
   */
  constructor(private readonly capacity = 20_000) {}

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  add(key: string): void {
    const n = this.counts.get(key);
    if (n !== undefined) {
      this.counts.set(key, n + 1);
      return;
    }
    if (this.counts.size < this.capacity) this.order.push(key);
    else {
      this.counts.delete(this.order[this.oldest]!);
      this.order[this.oldest] = key;
      this.oldest = (this.oldest + 1) % this.capacity;
    }
    this.counts.set(key, 1);
  }
}
