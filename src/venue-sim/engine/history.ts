// Bounded histories of terminal orders and fills, one pair per account, stored row-wise in typed arrays.
// Invariant: at most `limit` rows each, newest overwriting oldest; a row is one contiguous 128- or 160-byte
// record (ids copied in as bytes), so writing one touches two or three cache lines and retains no objects.

import { KIND_TEXT, TIF_TEXT, type Order } from './book.js';
import type { Market } from './markets.js';
import type { CloseReason, FillRow, OrderHistoryRow, OrderStatus } from './types.js';

export const STATUS_CODES: readonly OrderStatus[] = [
  'placed',
  'working',
  'filled',
  'partiallyFilled',
  'cancelled',
  'cancelledRiskLimit',
  'cancelledSelfCrossing',
  'cancelledReduceOnly',
  'cancelledIOC',
  'rejectedInvalid',
  'rejectedRiskLimit',
  'rejectedCrossing',
  'rejectedDuplicate',
];
const STATUS_CODE = Object.fromEntries(STATUS_CODES.map((s, i) => [s, i])) as Record<OrderStatus, number>;
const CLOSE_REASONS: readonly CloseReason[] = ['normal', 'liquidation', 'adl'];
const CLOSE_REASON_CODE = { normal: 0, liquidation: 1, adl: 2 } as const;

/** Reason texts come from a small fixed set of templates; each gets a code (0 = none). */
const reasonTexts: (string | null)[] = [null];
const reasonCodes = new Map<string, number>();
const MAX_REASONS = 4096;

function reasonCode(reason: string | null): number {
  if (reason === null) return 0;
  let code = reasonCodes.get(reason);
  if (code === undefined) {
    if (reasonTexts.length >= MAX_REASONS) return 0;
    code = reasonTexts.length;
    reasonTexts.push(reason);
    reasonCodes.set(reason, code);
  }
  return code;
}

/** Cheap 32-bit hash of an id from its length and last 8 characters (wire ids are base58 of sha256: already random). */
export function hashId(s: string): number {
  const n = s.length;
  let h = Math.imul(n, 0x9e3779b1);
  for (let i = n - 1, stop = n > 8 ? n - 8 : 0; i >= stop; i--) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 12);
}

const LONG = 255;

/** Fixed-width rows in one buffer, viewed as doubles, int64, int32 and bytes; grows by doubling to `limit`, then wraps. */
class Rows {
  f64 = new Float64Array(0);
  i64 = new BigInt64Array(0);
  i32 = new Int32Array(0);
  u8 = new Uint8Array(0);
  capacity = 0;
  size = 0;
  /** next write position once full (the oldest row) */
  head = 0;
  /** ids that do not fit their byte field, by byte offset */
  private long: Map<number, string> | null = null;

  constructor(
    readonly limit: number,
    /** bytes per row, a multiple of 8 */
    readonly stride: number,
  ) {}

  /** Position of the next row (growing the buffer when needed). */
  next(): number {
    if (this.size < this.capacity) return this.size++;
    if (this.capacity === this.limit) {
      const p = this.head;
      this.head = p + 1 === this.limit ? 0 : p + 1;
      return p;
    }
    const cap = Math.min(this.limit, Math.max(16, this.capacity * 2));
    const buf = new ArrayBuffer(cap * this.stride);
    new Uint8Array(buf).set(this.u8);
    this.f64 = new Float64Array(buf);
    this.i64 = new BigInt64Array(buf);
    this.i32 = new Int32Array(buf);
    this.u8 = new Uint8Array(buf);
    this.capacity = cap;
    return this.size++;
  }

  /** Positions, newest first. */
  newestFirst(): number[] {
    const n = this.size;
    const out = new Array<number>(n);
    let i = (this.head === 0 ? n : this.head) - 1;
    for (let j = 0; j < n; j++) {
      out[j] = i;
      i = i === 0 ? n - 1 : i - 1;
    }
    return out;
  }

  /** Copies `id` into the `width`-byte field at byte offset `at` (length byte, then characters). */
  writeId(at: number, width: number, id: string): void {
    const u8 = this.u8;
    const n = id.length;
    if (n < width) {
      let i = 0;
      for (; i < n; i++) {
        const c = id.charCodeAt(i);
        if (c > 254) break;
        u8[at + 1 + i] = c;
      }
      if (i === n) {
        u8[at] = n;
        if (this.long !== null) this.long.delete(at);
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

// order row, 128 bytes: f64 0..5 | i64 6 timestamp | i32 14 hash, 15 reason | bytes 64..127 id
const O_STRIDE = 128;
const O_PRICE = 0;
const O_ORIG = 1;
const O_FILLED = 2;
const O_VALUE = 3;
const O_SLOT = 4;
const O_FLAGS = 5;
const O_TS = 6;
const O_HASH = 14;
const O_REASON = 15;
const O_ID = 64;

/**
 * Terminal orders of one account, with a hash index over the ids of the newest `window` rows
 * (for duplicate detection).
 */
export class OrderHistory {
  private readonly rows: Rows;
  /** open-addressing table of (row position + 1, hash) pairs; position 0 = empty slot */
  private table = new Int32Array(0);
  private mask = -1;
  private pushes = 0;
  /** hashes of the last `window` pushes (ring by push count), so unindexing never touches an old row */
  private readonly recentHashes: Int32Array;

  constructor(
    limit: number,
    readonly window: number,
  ) {
    this.rows = new Rows(limit, O_STRIDE);
    this.recentHashes = new Int32Array(window);
  }

  get size(): number {
    return this.rows.size;
  }

  /** True when one of the newest `window` rows has order id `id` (whose hashId is `h`). */
  has(id: string, h: number): boolean {
    if (this.mask < 0) return false;
    const table = this.table;
    const mask = this.mask;
    const rows = this.rows;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const slot = table[2 * i]!;
      if (slot === 0) return false;
      if (table[2 * i + 1] === h && rows.idEquals((slot - 1) * O_STRIDE + O_ID, id)) return true;
    }
  }

  push(o: Order): void {
    const rows = this.rows;
    const before = rows.capacity;
    const p = rows.next();
    const window = this.window;
    if (window > 0) {
      if (rows.capacity !== before) this.rebuildTable();
      if (this.pushes >= window) {
        // the row pushed `window` pushes ago leaves the index
        let old = p - window;
        if (old < 0) old += rows.capacity;
        this.unindex(old, this.recentHashes[this.pushes % window]!);
      }
    }
    this.pushes++;
    const f = rows.f64;
    const b = p * 16;
    const raw = o.raw;
    f[b + O_PRICE] = raw === null ? o.priceTicks : raw.px;
    f[b + O_ORIG] = raw === null ? o.origLots : raw.sz;
    f[b + O_FILLED] = o.filledLots;
    f[b + O_VALUE] = o.filledValue;
    f[b + O_SLOT] = o.slot;
    f[b + O_FLAGS] =
      (o.isBuy ? 1 : 0) | (o.reduceOnly ? 2 : 0) | (raw !== null ? 4 : 0) | (o.kind << 3) | (o.tif << 5) | (STATUS_CODE[o.status] << 7) | (o.market.index << 11);
    rows.i64[b + O_TS] = o.updatedNs;
    rows.i32[p * 32 + O_REASON] = reasonCode(o.reason);
    rows.writeId(p * O_STRIDE + O_ID, O_STRIDE - O_ID, o.id);
    if (window > 0) {
      const h = o.idHash;
      rows.i32[p * 32 + O_HASH] = h;
      this.recentHashes[(this.pushes - 1) % window] = h;
      this.index(p, h);
    }
  }

  private index(p: number, h: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = h & mask;
    while (table[2 * i] !== 0) i = (i + 1) & mask;
    table[2 * i] = p + 1;
    table[2 * i + 1] = h;
  }

  /** Removes row `p` from the table (backward-shift deletion). */
  private unindex(p: number, hash: number): void {
    const table = this.table;
    const mask = this.mask;
    let i = hash & mask;
    while (table[2 * i] !== p + 1) i = (i + 1) & mask;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const slot = table[2 * j]!;
      if (slot === 0) break;
      const h = table[2 * j + 1]!;
      const home = h & mask;
      if (i <= j ? home <= i || home > j : home <= i && home > j) {
        table[2 * i] = slot;
        table[2 * i + 1] = h;
        i = j;
      }
    }
    table[2 * i] = 0;
  }

  /** After growth (rows are still in push order): index the newest `window` rows again. */
  private rebuildTable(): void {
    const rows = this.rows;
    let size = 16;
    while (size < Math.min(rows.capacity, this.window) * 2) size *= 2;
    this.table = new Int32Array(2 * size);
    this.mask = size - 1;
    const last = rows.size - 1; // the row being pushed is not written yet
    for (let p = Math.max(0, last - this.window); p < last; p++) this.index(p, rows.i32[p * 32 + O_HASH]!);
  }

  list(markets: readonly Market[]): OrderHistoryRow[] {
    const rows = this.rows;
    const f = rows.f64;
    return rows.newestFirst().map((p) => {
      const b = p * 16;
      const flags = f[b + O_FLAGS]!;
      const m = markets[flags >>> 11]!;
      const raw = (flags & 4) !== 0;
      const filled = f[b + O_FILLED]!;
      return {
        orderId: rows.readId(p * O_STRIDE + O_ID),
        symbol: m.symbol,
        side: (flags & 1) !== 0 ? 'buy' : 'sell',
        orderType: KIND_TEXT[(flags >>> 3) & 3]!,
        tif: TIF_TEXT[(flags >>> 5) & 3]!,
        price: raw ? f[b + O_PRICE]! : m.price(f[b + O_PRICE]!),
        vwap: m.avgPrice(f[b + O_VALUE]!, filled),
        originalSize: raw ? f[b + O_ORIG]! : m.size(f[b + O_ORIG]!),
        executedSize: m.size(filled),
        reduceOnly: (flags & 2) !== 0,
        status: STATUS_CODES[(flags >>> 7) & 15]!,
        reason: reasonTexts[rows.i32[p * 32 + O_REASON]!] ?? null,
        slot: f[b + O_SLOT]!,
        timestamp: rows.i64[b + O_TS]!,
      };
    });
  }
}

// fill row, 160 bytes: f64 0..5 | i64 6 timestamp | i32 14 counterparty | bytes 64..111, 112..159 ids
const F_STRIDE = 160;
const F_LOTS = 0;
const F_TICKS = 1;
const F_MAKER_FEE = 2;
const F_TAKER_FEE = 3;
const F_SLOT = 4;
const F_FLAGS = 5;
const F_TS = 6;
const F_OTHER = 14;
const F_MAKER_ID = 64;
const F_TAKER_ID = 112;
const F_ID_WIDTH = 48;

/** Fills of one account (each fill is stored once per side); the counterparty is an account index. */
export class FillHistory {
  private readonly rows: Rows;

  constructor(limit: number) {
    this.rows = new Rows(limit, F_STRIDE);
  }

  get size(): number {
    return this.rows.size;
  }

  /** Records a fill in which this account was the maker (`isMaker`) or the taker; fees in quote units. */
  push(
    isMaker: boolean,
    otherIndex: number,
    makerOid: string,
    takerOid: string,
    takerBuys: boolean,
    m: Market,
    lots: number,
    ticks: number,
    makerFee: number,
    takerFee: number,
    slot: number,
    tsNs: bigint,
    reason: CloseReason,
  ): void {
    const rows = this.rows;
    const p = rows.next();
    const f = rows.f64;
    const b = p * 20;
    f[b + F_LOTS] = lots;
    f[b + F_TICKS] = ticks;
    f[b + F_MAKER_FEE] = makerFee;
    f[b + F_TAKER_FEE] = takerFee;
    f[b + F_SLOT] = slot;
    f[b + F_FLAGS] = (isMaker ? 1 : 0) | (takerBuys ? 2 : 0) | (CLOSE_REASON_CODE[reason] << 2) | (m.index << 4);
    rows.i64[b + F_TS] = tsNs;
    rows.i32[p * 40 + F_OTHER] = otherIndex;
    rows.writeId(p * F_STRIDE + F_MAKER_ID, F_ID_WIDTH, makerOid);
    rows.writeId(p * F_STRIDE + F_TAKER_ID, F_ID_WIDTH, takerOid);
  }

  list(self: string, accountKey: (index: number) => string, markets: readonly Market[], quoteScale: number): (FillRow & { reason: CloseReason })[] {
    const rows = this.rows;
    const f = rows.f64;
    return rows.newestFirst().map((p) => {
      const b = p * 20;
      const flags = f[b + F_FLAGS]!;
      const m = markets[flags >>> 4]!;
      const isMaker = (flags & 1) !== 0;
      const other = accountKey(rows.i32[p * 40 + F_OTHER]!);
      return {
        maker: isMaker ? self : other,
        taker: isMaker ? other : self,
        orderIdMaker: rows.readId(p * F_STRIDE + F_MAKER_ID),
        orderIdTaker: rows.readId(p * F_STRIDE + F_TAKER_ID),
        isBuy: (flags & 2) !== 0,
        symbol: m.symbol,
        amount: m.size(f[b + F_LOTS]!),
        price: m.price(f[b + F_TICKS]!),
        makerFee: f[b + F_MAKER_FEE]! / quoteScale || 0,
        takerFee: f[b + F_TAKER_FEE]! / quoteScale || 0,
        slot: f[b + F_SLOT]!,
        timestamp: rows.i64[b + F_TS]!,
        reason: CLOSE_REASONS[(flags >>> 2) & 3]!,
      };
    });
  }
}
