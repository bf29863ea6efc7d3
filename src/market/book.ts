// A fast L2 order book: price levels per side kept sorted in one interleaved typed array, best level last (O(1)).
// Invariants: no level with size 0 is stored; keys strictly increase within a side; `version` grows by one per change.

import type { BookLevel, BookUpdate } from '../core/market-data.js';

export type BookSide = 'bid' | 'ask';

/** The two sides of a book, each best first (any order is accepted where a whole side is applied). */
export type BookSides = Pick<BookUpdate, 'bids' | 'asks'>;

/** A read-only view of a book (what book$ emits). */
export interface BookView {
  readonly symbol: string;
  /** Increments on every applied snapshot or delta. */
  readonly version: number;
  /** The venue's time of the last applied update, epoch ms. */
  readonly venueTimeMs: number;
  /** When the bytes of the last applied update arrived, ns of the session clock (0n before any). */
  readonly arrivalNs: bigint;
  bestBid(): BookLevel | undefined;
  bestAsk(): BookLevel | undefined;
  /** Levels on a side. */
  depth(side: BookSide): number;
  /** Up to `n` levels of a side, best first (a copy). */
  levels(side: BookSide, n?: number): BookLevel[];
  /** True when both sides exist and the best bid is at or above the best ask. */
  isCrossed(): boolean;
  /** Both sides best first, up to `n` levels each (a copy that later changes do not touch). */
  snapshot(n?: number): { bids: BookLevel[]; asks: BookLevel[] };
}

const INITIAL_CAPACITY = 64;
/** Slots per level in the interleaved array: key, size, count (one copyWithin moves a whole level). */
const STRIDE = 3;

/** One side: keys are `sign · price` in ascending order, so the best price is always last. */
class Side {
  data = new Float64Array(INITIAL_CAPACITY * STRIDE);
  length = 0;
  /** Deletes of a level that was not there (a hint of a gap). */
  missingDeletes = 0;
  /** The best level as best() last returned it; dropped by any change that reaches the best index. */
  private bestLevel: BookLevel | undefined;

  constructor(readonly sign: 1 | -1) {}

  /** Replaces the side by `levels`; best first (the usual order) makes every insert an append. */
  replace(levels: readonly BookLevel[]): void {
    this.length = 0;
    for (let i = levels.length - 1; i >= 0; i--) {
      const l = levels[i]!;
      this.set(l.price, l.size, l.orders);
    }
  }

  set(price: number, size: number, orders: number): void {
    const k = this.sign * price;
    const data = this.data;
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (data[mid * STRIDE]! < k) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= this.length - 1) this.bestLevel = undefined;
    const at = lo * STRIDE;
    if (lo < this.length && data[at] === k) {
      if (size === 0) this.remove(at);
      else {
        data[at + 1] = size;
        data[at + 2] = orders;
      }
    } else if (size !== 0) this.insert(at, k, size, orders);
    else this.missingDeletes++;
  }

  /** Sets every level of `levels` in order (size 0 deletes). */
  change(levels: readonly BookLevel[]): void {
    for (let i = 0; i < levels.length; i++) {
      const l = levels[i]!;
      this.set(l.price, l.size, l.orders);
    }
  }

  level(i: number): BookLevel {
    const at = i * STRIDE;
    return { price: this.sign * this.data[at]!, size: this.data[at + 1]!, orders: this.data[at + 2]! };
  }

  /** The best level; the same object until a change reaches it (strategies read it several times per book change). */
  best(): BookLevel | undefined {
    if (this.length === 0) return undefined;
    this.bestLevel ??= this.level(this.length - 1);
    return this.bestLevel;
  }

  bestKey(): number {
    return this.data[(this.length - 1) * STRIDE]!;
  }

  /** Up to `n` levels, best first. */
  top(n: number): BookLevel[] {
    const out: BookLevel[] = [];
    for (let i = this.length - 1; i >= 0 && out.length < n; i--) out.push(this.level(i));
    return out;
  }

  /** True when the side equals `other` (best first): all of it if shorter than `depth`, else its first `depth` levels. */
  matches(other: readonly BookLevel[], depth: number): boolean {
    if (other.length < depth ? this.length !== other.length : this.length < other.length) return false;
    for (let j = 0; j < other.length; j++) {
      const at = (this.length - 1 - j) * STRIDE;
      const l = other[j]!;
      if (this.data[at] !== this.sign * l.price || this.data[at + 1] !== l.size) return false;
    }
    return true;
  }

  private insert(at: number, k: number, size: number, orders: number): void {
    const end = this.length * STRIDE;
    if (end === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    if (at < end) this.data.copyWithin(at + STRIDE, at, end);
    this.data[at] = k;
    this.data[at + 1] = size;
    this.data[at + 2] = orders;
    this.length++;
  }

  private remove(at: number): void {
    this.data.copyWithin(at, at + STRIDE, this.length * STRIDE);
    this.length--;
  }
}

export class L2Book implements BookView {
  private readonly bids = new Side(1);
  private readonly asks = new Side(-1);
  version = 0;
  venueTimeMs = 0;
  arrivalNs = 0n;

  constructor(readonly symbol: string) {}

  /** Applies `update`: a snapshot replaces the whole book (levels in any order), a delta changes the levels it names (size 0 deletes). */
  apply(update: BookUpdate): void {
    if (update.kind === 'snapshot') {
      this.bids.replace(update.bids);
      this.asks.replace(update.asks);
    } else {
      this.bids.change(update.bids);
      this.asks.change(update.asks);
    }
    this.venueTimeMs = update.venueTimeMs;
    this.arrivalNs = update.arrivalNs;
    this.version++;
  }

  /** Sets one level (size 0 deletes it). */
  setLevel(side: BookSide, price: number, size: number, orders = 0): void {
    (side === 'bid' ? this.bids : this.asks).set(price, size, orders);
    this.version++;
  }

  /** Deletes that named no existing level, since creation. */
  get missingDeletes(): number {
    return this.bids.missingDeletes + this.asks.missingDeletes;
  }

  bestBid(): BookLevel | undefined {
    return this.bids.best();
  }

  bestAsk(): BookLevel | undefined {
    return this.asks.best();
  }

  depth(side: BookSide): number {
    return (side === 'bid' ? this.bids : this.asks).length;
  }

  levels(side: BookSide, n = Infinity): BookLevel[] {
    return (side === 'bid' ? this.bids : this.asks).top(n);
  }

  isCrossed(): boolean {
    return this.bids.length > 0 && this.asks.length > 0 && this.bids.bestKey() >= -this.asks.bestKey();
  }

  snapshot(n = Infinity): { bids: BookLevel[]; asks: BookLevel[] } {
    return { bids: this.bids.top(n), asks: this.asks.top(n) };
  }

  /**
   * True when the book equals a venue snapshot taken with `depth` levels per side: a side shorter than
   * `depth` must match entirely, a full one on its first `depth` levels. Prices and sizes compare exactly.
   */
  matches(sides: BookSides, depth = Infinity): boolean {
    return this.bids.matches(sides.bids, depth) && this.asks.matches(sides.asks, depth);
  }
}
