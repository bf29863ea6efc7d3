// Event encoding inside one block (docs/recording.md): a tag byte (kind and market), the receive time as a delta, then the
// event's fields; numbers as decimal mantissas delta-coded per market and field, keys through a per-block string table.
// Invariants: decode(encode(e)) equals e for every value (NaN, ±Infinity, -0 and non-decimal doubles included); all
// state starts afresh with each block, so any block decodes alone.

import type { BookLevel, BookUpdate, Ticker, Trade } from '../../core/market-data.js';
import type { RecordedEvent } from './events.js';
import { RecordingError } from './errors.js';

const KIND_SNAPSHOT = 0;
const KIND_DELTA = 1;
const KIND_TRADE = 2;
const KIND_TICKER = 3;
/** Market indexes up to 62 share the tag byte; 63 there means "the index follows as a varint". */
const TAG_MARKET_ESCAPE = 63;

/** Per market: book (venue time, then price, size, orders of bids, then of asks), trade (price, size, time), ticker (9). */
const SLOT_BOOK_TIME = 0;
const SLOT_BIDS = 1;
const SLOT_ASKS = 4;
const SLOT_TRADE = 7;
const SLOT_TICKER = 10;
export const SLOTS_PER_MARKET = 19;

/** 10^k for the decimal scales a number may be coded at; scale 15 marks a raw float64. */
const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000];
const RAW_FLOAT = 15;
/** Largest mantissa magnitude: a zigzagged delta of two, times 16, stays below 2^53. */
const MAX_MANTISSA = 2 ** 46;
/** Receive times further than this many ns from their block's first, and ticker time offsets beyond it, are not coded inline. */
export const MAX_INLINE_NS = 2 ** 50;
const MAX_INLINE_NS_BIG = BigInt(MAX_INLINE_NS);
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

const NO_LEVELS: readonly BookLevel[] = [];

function zigzag(d: number): number {
  return d >= 0 ? d * 2 : -d * 2 - 1;
}

function unzigzag(z: number): number {
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

/** Encodes the events of one block; `reset` starts the next. */
export class BlockEncoder {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  private pos = 0;
  private readonly mantissa: Float64Array;
  private readonly scale: Uint8Array;
  private readonly strings = new Map<string, number>();
  private base = 0n;
  private prevRel = 0;
  /** Events in the block. */
  count = 0;

  constructor(private readonly marketIndex: ReadonlyMap<string, number>) {
    this.mantissa = new Float64Array(marketIndex.size * SLOTS_PER_MARKET);
    this.scale = new Uint8Array(marketIndex.size * SLOTS_PER_MARKET);
  }

  /** Bytes encoded so far in the block. */
  get bytes(): number {
    return this.pos;
  }

  /** The receive time the block's deltas start from, clock ns. */
  get baseRecvNs(): bigint {
    return this.base;
  }

  /** The block's bytes (a view, valid until the next append or reset). */
  contents(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  reset(): void {
    this.pos = 0;
    this.count = 0;
    this.mantissa.fill(0);
    this.scale.fill(0);
    this.strings.clear();
  }

  /**
   * True when `recvNs` can follow in this block (within MAX_INLINE_NS of the block's first event); false means: start a
   * new block. Throws RangeError for a time outside i64.
   */
  fits(recvNs: bigint): boolean {
    if (recvNs < I64_MIN || recvNs > I64_MAX) throw new RangeError(`recvNs ${recvNs} is outside the signed 64-bit range`);
    if (this.count === 0) return true;
    const d = recvNs - this.base;
    return d > -MAX_INLINE_NS_BIG && d < MAX_INLINE_NS_BIG;
  }

  /** Appends `e` (call `fits` first). Throws RecordingError for a symbol the header does not list. */
  append(e: RecordedEvent): void {
    if (this.count === 0) {
      this.base = e.recvNs;
      this.prevRel = 0;
    }
    const rel = Number(e.recvNs - this.base);
    switch (e.kind) {
      case 'book': {
        const b = e.book;
        const m = this.market(b.symbol);
        this.tag(b.kind === 'snapshot' ? KIND_SNAPSHOT : KIND_DELTA, m, rel);
        this.book(b, m * SLOTS_PER_MARKET);
        break;
      }
      case 'trade': {
        const t = e.trade;
        const m = this.market(t.symbol);
        this.tag(KIND_TRADE, m, rel);
        this.trade(t, m * SLOTS_PER_MARKET + SLOT_TRADE);
        break;
      }
      case 'ticker': {
        const t = e.ticker;
        const m = this.market(t.symbol);
        this.tag(KIND_TICKER, m, rel);
        this.ticker(t, m * SLOTS_PER_MARKET + SLOT_TICKER, e.recvNs);
        break;
      }
    }
    this.count++;
  }

  private market(symbol: string): number {
    const m = this.marketIndex.get(symbol);
    if (m === undefined) throw new RecordingError(`symbol ${symbol} is not among the recording's markets`);
    return m;
  }

  private tag(kind: number, market: number, rel: number): void {
    this.room(16);
    if (market < TAG_MARKET_ESCAPE) this.buf[this.pos++] = kind | (market << 2);
    else {
      this.buf[this.pos++] = kind | (TAG_MARKET_ESCAPE << 2);
      this.varint(market);
    }
    this.varint(zigzag(rel - this.prevRel));
    this.prevRel = rel;
  }

  private book(b: BookUpdate, slot: number): void {
    this.num(slot + SLOT_BOOK_TIME, b.venueTimeMs);
    this.room(20);
    this.varint(b.bids.length);
    this.varint(b.asks.length);
    this.levels(b.bids, slot + SLOT_BIDS);
    this.levels(b.asks, slot + SLOT_ASKS);
  }

  private levels(levels: readonly BookLevel[], slot: number): void {
    for (let i = 0; i < levels.length; i++) {
      const l = levels[i]!;
      this.num(slot, l.price);
      this.num(slot + 1, l.size);
      this.num(slot + 2, l.orders);
    }
  }

  private trade(t: Trade, slot: number): void {
    this.room(1);
    this.buf[this.pos++] = (t.takerSide === 'buy' ? 1 : 0) | (t.liquidation ? 2 : 0);
    this.num(slot, t.price);
    this.num(slot + 1, t.size);
    this.num(slot + 2, t.timeMs);
    this.str(t.maker);
    this.str(t.taker);
  }

  private ticker(t: Ticker, slot: number, recvNs: bigint): void {
    this.num(slot, t.lastPrice);
    this.num(slot + 1, t.markPrice);
    this.num(slot + 2, t.oraclePrice);
    this.num(slot + 3, t.fundingRate);
    this.num(slot + 4, t.openInterest);
    this.num(slot + 5, t.volume24h);
    this.num(slot + 6, t.volume24hUsd);
    this.num(slot + 7, t.high24hPrice);
    this.num(slot + 8, t.low24hPrice);
    this.room(16);
    const d = t.venueTimeNs - recvNs;
    if (d > -MAX_INLINE_NS_BIG && d < MAX_INLINE_NS_BIG) this.varint(zigzag(Number(d)) * 2);
    else {
      if (t.venueTimeNs < I64_MIN || t.venueTimeNs > I64_MAX) throw new RangeError(`ticker venueTimeNs ${t.venueTimeNs} is outside the signed 64-bit range`);
      this.varint(1);
      this.view.setBigInt64(this.pos, t.venueTimeNs, true);
      this.pos += 8;
    }
  }

  /** `x` as a decimal mantissa delta at the slot's last scale, else the smallest scale that holds it, else raw. */
  private num(slot: number, x: number): void {
    this.room(10);
    let k = this.scale[slot]!;
    let m = Math.round(x * POW10[k]!);
    if (!(m / POW10[k]! === x && Math.abs(m) <= MAX_MANTISSA)) {
      for (k = 0; k < POW10.length; k++) {
        m = Math.round(x * POW10[k]!);
        if (m / POW10[k]! === x && Math.abs(m) <= MAX_MANTISSA) break;
      }
    }
    if (k === POW10.length || Object.is(x, -0)) {
      this.buf[this.pos++] = RAW_FLOAT;
      this.view.setFloat64(this.pos, x, true);
      this.pos += 8;
      return;
    }
    this.varint(zigzag(m - this.mantissa[slot]!) * 16 + k);
    this.mantissa[slot] = m;
    this.scale[slot] = k;
  }

  private str(s: string): void {
    const known = this.strings.get(s);
    this.room(10);
    if (known !== undefined) {
      this.varint(known);
      return;
    }
    this.varint(this.strings.size);
    this.strings.set(s, this.strings.size);
    const bytes = Buffer.from(s, 'utf8');
    this.room(10 + bytes.length);
    this.varint(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** A non-negative safe integer, 7 bits a byte, low first (call `room` first). */
  private varint(n: number): void {
    while (n >= 128) {
      this.buf[this.pos++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  private room(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.pos + bytes));
    bigger.set(this.buf.subarray(0, this.pos));
    this.buf = bigger;
    this.view = new DataView(bigger.buffer);
  }
}

/**
 * Decodes the events of one block in order. Throws RecordingError when the bytes do not decode to exactly `count` events
 * (a block whose CRC matched yet is malformed: a writer bug, or a file not written by perpbot).
 */
export class BlockDecoder {
  private buf: Buffer = Buffer.alloc(0);
  private view: DataView = new DataView(new ArrayBuffer(0));
  private pos = 0;
  private end = 0;
  private left = 0;
  private base = 0n;
  private rel = 0;
  /** The previous event's receive time: events published together share one bigint. */
  private recvNs: bigint | undefined;
  private readonly mantissa: Float64Array;
  private readonly strings: string[] = [];

  constructor(private readonly symbols: readonly string[]) {
    this.mantissa = new Float64Array(symbols.length * SLOTS_PER_MARKET);
  }

  /** Starts on a block's decoded bytes. */
  start(raw: Buffer, count: number, baseRecvNs: bigint): void {
    this.buf = raw;
    this.view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    this.pos = 0;
    this.end = raw.length;
    this.left = count;
    this.base = baseRecvNs;
    this.rel = 0;
    this.recvNs = undefined;
    this.mantissa.fill(0);
    this.strings.length = 0;
  }

  /** The block's next event, or undefined after its last. */
  next(): RecordedEvent | undefined {
    if (this.left === 0) {
      if (this.pos !== this.end) throw new RecordingError(`block has ${this.end - this.pos} bytes after its last event`);
      return undefined;
    }
    this.left--;
    if (this.pos >= this.end) throw new RecordingError('block ends before its last event');
    const tag = this.buf[this.pos++]!;
    const kind = tag & 3;
    let market = tag >> 2;
    if (market === TAG_MARKET_ESCAPE) market = this.varint();
    const symbol = this.symbols[market];
    if (symbol === undefined) throw new RecordingError(`block names market ${market}; the header lists ${this.symbols.length}`);
    const d = unzigzag(this.varint());
    if (d !== 0 || this.recvNs === undefined) {
      this.rel += d;
      this.recvNs = this.base + BigInt(this.rel);
    }
    const recvNs = this.recvNs;
    const slot = market * SLOTS_PER_MARKET;
    switch (kind) {
      case KIND_SNAPSHOT:
      case KIND_DELTA:
        return { kind: 'book', recvNs, book: this.book(kind === KIND_SNAPSHOT ? 'snapshot' : 'delta', symbol, slot, recvNs) };
      case KIND_TRADE:
        return { kind: 'trade', recvNs, trade: this.trade(symbol, slot + SLOT_TRADE) };
      default:
        return { kind: 'ticker', recvNs, ticker: this.ticker(symbol, slot + SLOT_TICKER, recvNs) };
    }
  }

  private book(kind: 'snapshot' | 'delta', symbol: string, slot: number, arrivalNs: bigint): BookUpdate {
    const venueTimeMs = this.num(slot + SLOT_BOOK_TIME);
    const nb = this.varint();
    const na = this.varint();
    return { kind, symbol, bids: this.levels(nb, slot + SLOT_BIDS), asks: this.levels(na, slot + SLOT_ASKS), venueTimeMs, arrivalNs };
  }

  private levels(n: number, slot: number): readonly BookLevel[] {
    if (n === 0) return NO_LEVELS;
    if (n > this.end - this.pos) throw new RecordingError(`block claims ${n} book levels in ${this.end - this.pos} bytes`);
    const out: BookLevel[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const price = this.num(slot);
      const size = this.num(slot + 1);
      out[i] = { price, size, orders: this.num(slot + 2) };
    }
    return out;
  }

  private trade(symbol: string, slot: number): Trade {
    const flags = this.byte();
    const price = this.num(slot);
    const size = this.num(slot + 1);
    const timeMs = this.num(slot + 2);
    const maker = this.str();
    const taker = this.str();
    return { symbol, price, size, takerSide: flags & 1 ? 'buy' : 'sell', timeMs, maker, taker, liquidation: (flags & 2) !== 0 };
  }

  private ticker(symbol: string, slot: number, recvNs: bigint): Ticker {
    const lastPrice = this.num(slot);
    const markPrice = this.num(slot + 1);
    const oraclePrice = this.num(slot + 2);
    const fundingRate = this.num(slot + 3);
    const openInterest = this.num(slot + 4);
    const volume24h = this.num(slot + 5);
    const volume24hUsd = this.num(slot + 6);
    const high24hPrice = this.num(slot + 7);
    const low24hPrice = this.num(slot + 8);
    const t = this.varint();
    let venueTimeNs: bigint;
    if (t === 1) {
      this.need(8);
      venueTimeNs = this.view.getBigInt64(this.pos, true);
      this.pos += 8;
    } else venueTimeNs = t === 0 ? recvNs : recvNs + BigInt(unzigzag(t / 2));
    return {
      symbol,
      lastPrice,
      markPrice,
      oraclePrice,
      fundingRate,
      openInterest,
      volume24h,
      volume24hUsd,
      high24hPrice,
      low24hPrice,
      venueTimeNs,
    };
  }

  private num(slot: number): number {
    const code = this.varint();
    const k = code & 15;
    if (k === RAW_FLOAT) {
      this.need(8);
      const x = this.view.getFloat64(this.pos, true);
      this.pos += 8;
      return x;
    }
    if (k > 9) throw new RecordingError(`block has a number at unknown scale ${k}`);
    const scale = POW10[k]!;
    const z = (code - k) / 16;
    const m = this.mantissa[slot]! + (z & 1 ? -(z + 1) / 2 : z / 2);
    this.mantissa[slot] = m;
    return m / scale;
  }

  private str(): string {
    const i = this.varint();
    if (i < this.strings.length) return this.strings[i]!;
    if (i !== this.strings.length) throw new RecordingError(`block refers to string ${i} before it was defined`);
    const n = this.varint();
    this.need(n);
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    this.strings.push(s);
    return s;
  }

  private byte(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  /** (The block buffer is exactly the block: a read past its end is undefined.) */
  private varint(): number {
    const buf = this.buf;
    let b = buf[this.pos++];
    if (b === undefined) throw new RecordingError('block ends inside a number');
    if (b < 128) return b;
    let v = b & 127;
    let mul = 128;
    for (;;) {
      b = buf[this.pos++];
      if (b === undefined || mul > 2 ** 49) throw new RecordingError('block has a malformed number');
      v += (b & 127) * mul;
      if (b < 128) return v;
      mul *= 128;
    }
  }

  private need(bytes: number): void {
    if (this.pos + bytes > this.end) throw new RecordingError('block ends inside an event');
  }
}
