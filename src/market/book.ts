// A fast L2 order book: price levels per side kept sorted in one interleaved typed array, best level last (O(1)).
// Invariants: no level with size 0 is stored; keys strictly increase within a side; `version` grows by one per change.

/** One price level as the wire writes it: price, size (0 deletes), order count. */
export interface Level {
  readonly px: number;
  readonly sz: number;
  readonly n: number;
}

export type BookSide = 'bid' | 'ask';

/** The two sides best first, as `/l2book` and `l2snapshot` carry them. */
export type Levels = readonly [readonly Level[], readonly Level[]];

/** A read-only view of a book (what book$ emits). */
export interface BookView {
  readonly symbol: string;
  /** Increments on every applied snapshot or delta. */
  readonly version: number;
  /** Venue timestamp of the last applied message, epoch ms. */
  readonly timestamp: number;
  bestBid(): Level | undefined;
  bestAsk(): Level | undefined;
  /** Levels on a side. */
  depth(side: BookSide): number;
  /** Up to `n` levels of a side, best first (a copy). */
  levels(side: BookSide, n?: number): Level[];
  /** True when both sides exist and the best bid is at or above the best ask. */
  isCrossed(): boolean;
  /** Both sides best first, up to `n` levels each (a copy that later changes do not touch). */
  snapshot(n?: number): { bids: Level[]; asks: Level[] };
}

const INITIAL_CAPACITY = 64;
/** Slots per level in the interleaved array: key, size, count (one copyWithin moves a whole level). */
const STRIDE = 3;

/** One side: keys are `sign · px` in ascending order, so the best price is always last. */
class Side {
  data = new Float64Array(INITIAL_CAPACITY * STRIDE);
  length = 0;
  /** Deletes of a level that was not there (a hint of a gap). */
  missingDeletes = 0;

  constructor(readonly sign: 1 | -1) {}

  clear(): void {
    this.length = 0;
  }

  set(px: number, sz: number, n: number): void {
    const k = this.sign * px;
    const data = this.data;
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (data[mid * STRIDE]! < k) lo = mid + 1;
      else hi = mid;
    }
    const at = lo * STRIDE;
    if (lo < this.length && data[at] === k) {
      if (sz === 0) this.remove(at);
      else {
        data[at + 1] = sz;
        data[at + 2] = n;
      }
    } else if (sz !== 0) this.insert(at, k, sz, n);
    else this.missingDeletes++;
  }

  level(i: number): Level {
    const at = i * STRIDE;
    return { px: this.sign * this.data[at]!, sz: this.data[at + 1]!, n: this.data[at + 2]! };
  }

  bestKey(): number {
    return this.data[(this.length - 1) * STRIDE]!;
  }

  /** Up to `n` levels, best first. */
  top(n: number): Level[] {
    const out: Level[] = [];
    for (let i = this.length - 1; i >= 0 && out.length < n; i--) out.push(this.level(i));
    return out;
  }

  /** True when the side equals `wire` (best first): all of it if shorter than `depth`, else its first `depth` levels. */
  matches(wire: readonly Level[], depth: number): boolean {
    if (wire.length < depth ? this.length !== wire.length : this.length < wire.length) return false;
    for (let j = 0; j < wire.length; j++) {
      const at = (this.length - 1 - j) * STRIDE;
      const w = wire[j]!;
      if (this.data[at] !== this.sign * w.px || this.data[at + 1] !== w.sz) return false;
    }
    return true;
  }

  private insert(at: number, k: number, sz: number, n: number): void {
    const end = this.length * STRIDE;
    if (end === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    if (at < end) this.data.copyWithin(at + STRIDE, at, end);
    this.data[at] = k;
    this.data[at + 1] = sz;
    this.data[at + 2] = n;
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
  timestamp = 0;

  constructor(readonly symbol: string) {}

  /** Replaces the whole book with `levels` (each side best first; any order is accepted). */
  applySnapshot(levels: Levels, timestamp: number): void {
    this.bids.clear();
    this.asks.clear();
    const [bids, asks] = levels;
    for (let i = bids.length - 1; i >= 0; i--) this.bids.set(bids[i]!.px, bids[i]!.sz, bids[i]!.n);
    for (let i = asks.length - 1; i >= 0; i--) this.asks.set(asks[i]!.px, asks[i]!.sz, asks[i]!.n);
    this.timestamp = timestamp;
    this.version++;
  }

  /** Applies changed levels (size 0 deletes the level). */
  applyDelta(levels: Levels, timestamp: number): void {
    const [bids, asks] = levels;
    for (let i = 0; i < bids.length; i++) this.bids.set(bids[i]!.px, bids[i]!.sz, bids[i]!.n);
    for (let i = 0; i < asks.length; i++) this.asks.set(asks[i]!.px, asks[i]!.sz, asks[i]!.n);
    this.timestamp = timestamp;
    this.version++;
  }

  /** Sets one level (size 0 deletes it). */
  setLevel(side: BookSide, px: number, sz: number, n = 0): void {
    (side === 'bid' ? this.bids : this.asks).set(px, sz, n);
    this.version++;
  }

  /** Deletes that named no existing level, since creation. */
  get missingDeletes(): number {
    return this.bids.missingDeletes + this.asks.missingDeletes;
  }

  bestBid(): Level | undefined {
    return this.bids.length ? this.bids.level(this.bids.length - 1) : undefined;
  }

  bestAsk(): Level | undefined {
    return this.asks.length ? this.asks.level(this.asks.length - 1) : undefined;
  }

  depth(side: BookSide): number {
    return (side === 'bid' ? this.bids : this.asks).length;
  }

  levels(side: BookSide, n = Infinity): Level[] {
    return (side === 'bid' ? this.bids : this.asks).top(n);
  }

  isCrossed(): boolean {
    return this.bids.length > 0 && this.asks.length > 0 && this.bids.bestKey() >= -this.asks.bestKey();
  }

  snapshot(n = Infinity): { bids: Level[]; asks: Level[] } {
    return { bids: this.bids.top(n), asks: this.asks.top(n) };
  }

  /**
   * True when the book equals a venue snapshot taken with `depth` levels per side: a side shorter than
   * `depth` must match entirely, a full one on its first `depth` levels. Prices and sizes compare exactly.
   */
  matches(levels: Levels, depth = Infinity): boolean {
    return this.bids.matches(levels[0], depth) && this.asks.matches(levels[1], depth);
  }
}
