// Fills: one RowLog of 160-byte rows for all accounts, each fill written once and chained into both parties' newest rows.
// Invariant: a row stays while the maker or the taker still keeps it; recording allocates nothing; query rows are built on demand.

import type { IdBytes } from './idbytes.js';
import type { Account, Market, Order } from './model.js';
import { RowChain, RowLog } from './rowlog.js';
import type { FillRow } from './types.js';

// row of 160 bytes: f64 lots, ticks, maker fee, taker fee, slot | i64 timestamp | i32 flags, maker's previous row,
// taker's previous row | bytes 60..107, 108..155 order ids; meta: maker account, push number, taker account, push number
const STRIDE_BYTES = 160;
const F64_PER_ROW = STRIDE_BYTES / 8;
const I32_PER_ROW = STRIDE_BYTES / 4;
const LOTS = 0;
const TICKS = 1;
const MAKER_FEE = 2;
const TAKER_FEE = 3;
const SLOT = 4;
const TS = 5;
const FLAGS_I32 = 12;
const MAKER_PREV_I32 = 13;
const TAKER_PREV_I32 = 14;
const MAKER_ID_BYTE = 60;
const TAKER_ID_BYTE = 108;
const META_MAKER = 0;
const META_MAKER_PUSH = 1;
const META_TAKER = 2;
const META_TAKER_PUSH = 3;

/** The fills every account still keeps. */
export class FillLog extends RowLog {
  constructor(
    private readonly accounts: readonly Account[],
    private readonly limit: number,
    private readonly ids: IdBytes,
  ) {
    super(STRIDE_BYTES, 4);
  }

  protected held(p: number): boolean {
    const meta = this.meta;
    const accounts = this.accounts;
    const m = 4 * p;
    return (
      accounts[meta[m + META_MAKER]!]!.fills!.holds(meta[m + META_MAKER_PUSH]!) || accounts[meta[m + META_TAKER]!]!.fills!.holds(meta[m + META_TAKER_PUSH]!)
    );
  }

  /**
   * Records one fill (fees in quote units) in both parties' histories. The maker side names its order by
   * `makerOrder`, or only by `makerOid` when it has none (auto-deleveraging).
   */
  add(
    maker: Account,
    makerOrder: Order | null,
    makerOid: string,
    takerOrder: Order,
    lots: number,
    ticks: number,
    makerFee: number,
    takerFee: number,
    slot: number,
    tsNs: bigint,
  ): void {
    const taker = takerOrder.account;
    const makerFills = (maker.fills ??= new RowChain(this.limit));
    const takerFills = (taker.fills ??= new RowChain(this.limit));
    const p = this.take();
    const f = this.f64;
    const b = p * F64_PER_ROW;
    f[b + LOTS] = lots;
    f[b + TICKS] = ticks;
    f[b + MAKER_FEE] = makerFee;
    f[b + TAKER_FEE] = takerFee;
    f[b + SLOT] = slot;
    this.i64[b + TS] = tsNs;
    const i = p * I32_PER_ROW;
    const i32 = this.i32;
    const meta = this.meta;
    const m = 4 * p;
    i32[i + MAKER_PREV_I32] = makerFills.last;
    meta[m + META_MAKER] = maker.index;
    meta[m + META_MAKER_PUSH] = makerFills.push(p);
    i32[i + TAKER_PREV_I32] = takerFills.last;
    meta[m + META_TAKER] = taker.index;
    meta[m + META_TAKER_PUSH] = takerFills.push(p);
    i32[i + FLAGS_I32] = (takerOrder.isBuy ? 1 : 0) | (takerOrder.market.index << 1);
    const at = p * STRIDE_BYTES;
    if (makerOrder !== null) this.copyId(at + MAKER_ID_BYTE, makerOrder, this.ids, true);
    else this.writeId(at + MAKER_ID_BYTE, makerOid);
    this.copyId(at + TAKER_ID_BYTE, takerOrder, this.ids, true);
  }

  /** The fills `a` keeps, newest first (maker and taker of a fill always differ). */
  list(a: Account, markets: readonly Market[], quoteScale: number): FillRow[] {
    const chain = a.fills;
    if (chain === null) return [];
    const out = new Array<FillRow>(chain.size);
    for (let j = 0, p = chain.last; j < out.length; j++) {
      out[j] = this.row(p, markets, quoteScale);
      const i = p * I32_PER_ROW;
      p = this.i32[i + (this.meta[4 * p + META_MAKER] === a.index ? MAKER_PREV_I32 : TAKER_PREV_I32)]!;
    }
    return out;
  }

  private row(p: number, markets: readonly Market[], quoteScale: number): FillRow {
    const f = this.f64;
    const b = p * F64_PER_ROW;
    const i = p * I32_PER_ROW;
    const flags = this.i32[i + FLAGS_I32]!;
    const m = markets[flags >>> 1]!;
    const at = p * STRIDE_BYTES;
    return {
      maker: this.accounts[this.meta[4 * p + META_MAKER]!]!.key,
      taker: this.accounts[this.meta[4 * p + META_TAKER]!]!.key,
      orderIdMaker: this.readId(at + MAKER_ID_BYTE),
      orderIdTaker: this.readId(at + TAKER_ID_BYTE),
      isBuy: (flags & 1) !== 0,
      symbol: m.symbol,
      amount: m.size(f[b + LOTS]!),
      price: m.price(f[b + TICKS]!),
      makerFee: f[b + MAKER_FEE]! / quoteScale || 0,
      takerFee: f[b + TAKER_FEE]! / quoteScale || 0,
      slot: f[b + SLOT]!,
      timestamp: this.i64[b + TS]!,
    };
  }
}
