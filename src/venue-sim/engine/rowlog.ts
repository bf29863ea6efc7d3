// One append stream of fixed-width history rows for all accounts (typed arrays, ids as bytes), so writes stay sequential.
// Invariant: a row is overwritten only once no account's history holds it (`held`, from the dense side array); rows never move.

import { ID_BYTES, ID_LOADED, ID_UNLOADED, ID_WORDS, type IdBytes } from './idbytes.js';

/** What copyId reads of an order: its id and the IdBytes entry it owns (`idState`: whether that entry holds the id yet). */
interface IdSource {
  readonly id: string;
  readonly idEntry: number;
  idState: number;
}

/** length byte of an id field whose id is kept in `long` */
const LONG = 255;
/** a wrap that meets more than MIN_HELD held rows, and more than this many per free one, grows the buffer instead */
const MAX_HELD_PER_FREE = 3;
const MIN_HELD = 16;

export abstract class RowLog {
  f64 = new Float64Array(0);
  i64 = new BigInt64Array(0);
  i32 = new Int32Array(0);
  u8 = new Uint8Array(0);
  /** `metaWidth` ints per row naming the accounts that hold it (apart, so checking a row reads no cold row) */
  meta = new Int32Array(0);
  private capacity = 0;
  /** rows below this were written at least once */
  private written = 0;
  /** next row to consider for writing */
  private head = 0;
  /** rows handed out and held rows stepped over since the head last wrapped or the buffer grew */
  private taken = 0;
  private skipped = 0;
  /** ids that do not fit their byte field, by byte offset */
  private long: Map<number, string> | null = null;

  constructor(
    /** bytes per row, a multiple of 8 */
    readonly stride: number,
    private readonly metaWidth: number,
  ) {
    this.grow();
  }

  /** True while some account's history still holds row `p`. */
  protected abstract held(p: number): boolean;

  /** Number of a row to write next: the first one at or after the head that nothing holds. */
  take(): number {
    for (;;) {
      if (this.head === this.capacity) {
        this.head = 0;
        this.taken = 0;
        this.skipped = 0;
      }
      const p = this.head++;
      if (p >= this.written) {
        this.written = p + 1;
        this.taken++;
        return p;
      }
      if (!this.held(p)) {
        this.taken++;
        return p;
      }
      if (++this.skipped > MIN_HELD && this.skipped > MAX_HELD_PER_FREE * this.taken) this.grow();
    }
  }

  private grow(): void {
    const cap = Math.max(1024, this.capacity * 2);
    const buf = new ArrayBuffer(cap * this.stride);
    new Uint8Array(buf).set(this.u8);
    this.f64 = new Float64Array(buf);
    this.i64 = new BigInt64Array(buf);
    this.i32 = new Int32Array(buf);
    this.u8 = new Uint8Array(buf);
    const meta = new Int32Array(cap * this.metaWidth);
    meta.set(this.meta);
    this.meta = meta;
    this.head = this.capacity;
    this.capacity = cap;
    this.taken = 0;
    this.skipped = 0;
  }

  /**
   * Copies the id of `o` into the ID_BYTES-byte field at byte offset `at` (a multiple of 4): by words from its
   * IdBytes entry, which is filled first when `reused` says the id will be copied again.
   */
  copyId(at: number, o: IdSource, ids: IdBytes, reused: boolean): void {
    if (o.idState === ID_UNLOADED && reused) o.idState = ids.load(o.idEntry, o.id);
    if (o.idState !== ID_LOADED) {
      this.writeId(at, o.id);
      return;
    }
    if (this.long !== null) this.long.delete(at);
    const src = ids.i32;
    const s = o.idEntry * ID_WORDS;
    const dst = this.i32;
    const d = at >> 2;
    dst[d] = src[s]!;
    dst[d + 1] = src[s + 1]!;
    dst[d + 2] = src[s + 2]!;
    dst[d + 3] = src[s + 3]!;
    dst[d + 4] = src[s + 4]!;
    dst[d + 5] = src[s + 5]!;
    dst[d + 6] = src[s + 6]!;
    dst[d + 7] = src[s + 7]!;
    dst[d + 8] = src[s + 8]!;
    dst[d + 9] = src[s + 9]!;
    dst[d + 10] = src[s + 10]!;
    dst[d + 11] = src[s + 11]!;
  }

  /** Copies `id` into the ID_BYTES-byte field at byte offset `at` (length byte, then characters). */
  writeId(at: number, id: string): void {
    const u8 = this.u8;
    const n = id.length;
    if (this.long !== null) this.long.delete(at);
    if (n < ID_BYTES) {
      let wide = 0;
      for (let i = 0; i < n; i++) {
        const c = id.charCodeAt(i);
        wide |= c;
        u8[at + 1 + i] = c;
      }
      if (wide <= 255) {
        u8[at] = n;
        return;
      }
    }
    u8[at] = LONG;
    (this.long ??= new Map()).set(at, id);
  }

  readId(at: number): string {
    const n = this.u8[at]!;
    if (n === LONG) return this.long!.get(at)!;
    return String.fromCharCode(...this.u8.subarray(at + 1, at + 1 + n));
  }

  idEquals(at: number, id: string): boolean {
    const u8 = this.u8;
    const n = u8[at]!;
    if (n === LONG) return this.long!.get(at) === id;
    if (n !== id.length) return false;
    for (let i = 0; i < n; i++) if (u8[at + 1 + i] !== id.charCodeAt(i)) return false;
    return true;
  }
}

/**
 * One account's newest `limit` rows in a RowLog, linked newest to oldest through the rows themselves (each row
 * stores the account's previous row), so adding a row writes nothing outside the log.
 */
export class RowChain {
  /** newest row (-1: none yet) */
  last = -1;
  /** rows ever added; the row added as number k (from 0) is held while fewer than `limit` were added after it */
  pushes = 0;

  constructor(readonly limit: number) {}

  get size(): number {
    return Math.min(this.pushes, this.limit);
  }

  /** True while the row added as number `k` (stored as k | 0) is still among the newest `limit`. */
  holds(k: number): boolean {
    const age = (this.pushes - k) | 0;
    return age > 0 && age <= this.limit;
  }

  /** Adds row `p`, whose link the caller set to the previous `last`; returns its number (| 0, as stored in the row). */
  push(p: number): number {
    this.last = p;
    return this.pushes++ | 0;
  }
}
