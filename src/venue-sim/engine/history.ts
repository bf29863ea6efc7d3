// Terminal orders: one RowLog of 112-byte rows for all accounts, each account's newest `limit` rows chained through them.
// Invariant: an account keeps at most `limit` rows, newest replacing oldest; recording allocates nothing; query rows are built on demand.

import { NON_TERMINAL_ORDER_STATUSES, TERMINAL_ORDER_STATUSES } from '../../core/intent.js';
import { CONDITIONAL_TEXT, KIND_TEXT, TIF_TEXT } from './book.js';
import type { IdBytes } from './idbytes.js';
import type { Account, Market, Order, OrderHistory as OrderHistoryShape } from './model.js';
import type { RecentIdFilter, RecentIds } from './recentids.js';
import { RowChain, RowLog } from './rowlog.js';
import type { OrderHistoryRow, OrderStatus } from './types.js';

/** Statuses by the code `statusCode` stores in a row (the specification's table order). */
const STATUS_CODES: readonly OrderStatus[] = [...NON_TERMINAL_ORDER_STATUSES, ...TERMINAL_ORDER_STATUSES];

function statusCode(s: OrderStatus): number {
  switch (s) {
    case 'placed':
      return 0;
    case 'working':
      return 1;
    case 'filled':
      return 2;
    case 'partiallyFilled':
      return 3;
    case 'cancelled':
      return 4;
    case 'cancelledRiskLimit':
      return 5;
    case 'cancelledSelfCrossing':
      return 6;
    case 'cancelledReduceOnly':
      return 7;
    case 'cancelledIOC':
      return 8;
    case 'rejectedInvalid':
      return 9;
    case 'rejectedRiskLimit':
      return 10;
    case 'rejectedCrossing':
      return 11;
    case 'rejectedDuplicate':
      return 12;
  }
}

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

// row of 112 bytes: f64 price, original size, filled lots, filled value, slot | i64 timestamp |
// i32 flags, reason, the account's previous row | bytes 60..107 order id; meta: account, push number
const STRIDE_BYTES = 112;
const F64_PER_ROW = STRIDE_BYTES / 8;
const I32_PER_ROW = STRIDE_BYTES / 4;
const PRICE = 0;
const ORIG = 1;
const FILLED = 2;
const VALUE = 3;
const SLOT = 4;
const TS = 5;
const FLAGS_I32 = 12;
const REASON_I32 = 13;
const PREV_I32 = 14;
const ID_BYTE = 60;
const META_ACCOUNT = 0;
const META_PUSH = 1;

/** The terminal orders every account still keeps. */
export class OrderLog extends RowLog {
  /** submitted symbols of the rows of orders for a symbol the venue does not list (see Order.rawSymbol), by row */
  private readonly unlistedSymbols = new Map<number, string>();

  constructor(
    private readonly accounts: readonly Account[],
    private readonly ids: IdBytes,
  ) {
    super(STRIDE_BYTES, 2);
  }

  protected held(p: number): boolean {
    const meta = this.meta;
    return this.accounts[meta[2 * p + META_ACCOUNT]!]!.history!.holds(meta[2 * p + META_PUSH]!);
  }

  /** Writes terminal order `o` into a free row and adds it to the account's `chain`. */
  add(o: Order, chain: RowChain): void {
    const p = this.take();
    const f = this.f64;
    const b = p * F64_PER_ROW;
    const raw = o.rawInput;
    f[b + PRICE] = raw ? o.rawPx : o.priceTicks;
    f[b + ORIG] = raw ? o.rawSz : o.origLots;
    f[b + FILLED] = o.filledLots;
    f[b + VALUE] = o.filledValue;
    f[b + SLOT] = o.slot;
    this.i64[b + TS] = o.updatedNs;
    const i = p * I32_PER_ROW;
    const i32 = this.i32;
    i32[i + PREV_I32] = chain.last;
    this.meta[2 * p + META_ACCOUNT] = o.account.index;
    this.meta[2 * p + META_PUSH] = chain.push(p);
    i32[i + FLAGS_I32] =
      (o.isBuy ? 1 : 0) |
      (o.reduceOnly ? 2 : 0) |
      (raw ? 4 : 0) |
      (o.kind << 3) |
      (o.tif << 5) |
      (statusCode(o.status) << 7) |
      (o.condType << 11) |
      (o.market.index << 14);
    i32[i + REASON_I32] = reasonCode(o.reason);
    if (o.rawSymbol !== null) this.unlistedSymbols.set(p, o.rawSymbol);
    else if (this.unlistedSymbols.size > 0) this.unlistedSymbols.delete(p);
    this.copyId(p * STRIDE_BYTES + ID_BYTE, o, this.ids, false);
  }

  /** The account's row before row `p`. */
  prev(p: number): number {
    return this.i32[p * I32_PER_ROW + PREV_I32]!;
  }

  idEqualsAt(p: number, id: string): boolean {
    return this.idEquals(p * STRIDE_BYTES + ID_BYTE, id);
  }

  row(p: number, markets: readonly Market[]): OrderHistoryRow {
    const f = this.f64;
    const b = p * F64_PER_ROW;
    const i = p * I32_PER_ROW;
    const flags = this.i32[i + FLAGS_I32]!;
    const m = markets[flags >>> 14]!;
    const raw = (flags & 4) !== 0;
    const filled = f[b + FILLED]!;
    const condType = (flags >>> 11) & 7;
    const row: OrderHistoryRow = {
      orderId: this.readId(p * STRIDE_BYTES + ID_BYTE),
      symbol: raw ? (this.unlistedSymbols.get(p) ?? m.symbol) : m.symbol,
      side: (flags & 1) !== 0 ? 'buy' : 'sell',
      orderType: KIND_TEXT[(flags >>> 3) & 3]!,
      tif: TIF_TEXT[(flags >>> 5) & 3]!,
      price: raw ? f[b + PRICE]! : m.price(f[b + PRICE]!),
      vwap: m.avgPrice(f[b + VALUE]!, filled),
      originalSize: raw ? f[b + ORIG]! : m.size(f[b + ORIG]!),
      executedSize: m.size(filled),
      reduceOnly: (flags & 2) !== 0,
      status: STATUS_CODES[(flags >>> 7) & 15]!,
      reason: reasonTexts[this.i32[i + REASON_I32]!] ?? null,
      slot: f[b + SLOT]!,
      timestamp: this.i64[b + TS]!,
    };
    if (condType !== 0) row.conditional = CONDITIONAL_TEXT[condType - 1]!;
    return row;
  }
}

/**
 * One account's newest `limit` terminal orders (rows of the OrderLog), with duplicate detection over the ids of
 * the newest `window`.
 */
export class OrderHistory extends RowChain implements OrderHistoryShape {
  private readonly recent: RecentIds | null;

  constructor(
    private readonly log: OrderLog,
    limit: number,
    /** ended orders searched for duplicate ids (0: none) */
    private readonly window: number,
    private readonly filter: RecentIdFilter,
    /** the account's index */
    private readonly index: number,
  ) {
    super(limit);
    this.recent = window > 0 ? filter.ring(index, window) : null;
  }

  /** True when one of the newest `window` rows has order id `id` (whose hashId is `h`). */
  has(id: string, h: number): boolean {
    const recent = this.recent;
    if (recent === null || !this.filter.mayHave(this.index, h) || !recent.has(h)) return false;
    const n = Math.min(this.size, this.window);
    for (let j = 0, p = this.last; j < n; j++, p = this.log.prev(p)) if (this.log.idEqualsAt(p, id)) return true;
    return false;
  }

  record(o: Order): void {
    this.log.add(o, this);
    if (this.recent !== null) this.filter.add(this.index, this.recent, o.idHash);
  }

  list(markets: readonly Market[]): OrderHistoryRow[] {
    const out = new Array<OrderHistoryRow>(this.size);
    for (let j = 0, p = this.last; j < out.length; j++, p = this.log.prev(p)) out[j] = this.log.row(p, markets);
    return out;
  }
}
