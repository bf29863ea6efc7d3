// Price-time priority limit book: per side a sorted array of price levels (best last), each a FIFO of orders.
// Invariant: a level in the array holds at least one order; totalLots and count always equal the sum over its queue.

import { ID_UNLOADED } from './idbytes.js';
import type { Account, BookSide as BookSideShape, Level as LevelShape, Market, Order as OrderShape } from './model.js';
import type { ConditionalInfo, ConditionalType, OrderKind, OrderStatus } from './types.js';

export const TIF_GTC = 0;
export const TIF_IOC = 1;
export const TIF_ALO = 2;
export const TIF_TEXT = ['gtc', 'ioc', 'alo'] as const;

export const KIND_LIMIT = 0;
export const KIND_MARKET = 1;
/** parked trigger that becomes a market order */
export const KIND_TRIGGER_MARKET = 2;
/** parked trigger that becomes a GTC limit order at its price (stop-limit) */
export const KIND_TRIGGER_LIMIT = 3;
export const KIND_TEXT: readonly OrderKind[] = ['limit', 'market', 'trigger', 'trigger'];
/** Order.condType: 0 for an order that is not a trigger, else the index + 1 of its type here. */
export const CONDITIONAL_TEXT: readonly ConditionalType[] = ['stop', 'takeProfit', 'range', 'trailing'];

/**
 * Live and terminal orders. Prices in ticks, sizes in lots; `filledValue` is Σ ticks × lots of its fills.
 * Objects are pooled: `init` gives a recycled order a new identity, so every field is reset there.
 */
export class Order implements OrderShape {
  id = '';
  cloid: string | null = null;
  isBuy = false;
  kind = KIND_LIMIT;
  tif = TIF_GTC;
  priceTicks = 0;
  origLots = 0;
  reduceOnly = false;
  createdNs = 0n;
  /** hashId(id), computed once (duplicate detection) */
  idHash = 0;
  /** whether the IdBytes entry `idEntry` (owned by this object for life) holds the id yet: ID_UNLOADED etc. */
  idState = ID_UNLOADED;
  status: OrderStatus = 'placed';
  reason: string | null = null;
  remLots = 0;
  filledLots = 0;
  filledValue = 0;
  /** true once the order rested on the book */
  maker = false;
  updatedNs = 0n;
  slot = 0;
  triggerTicks = 0;
  triggerAbove = false;
  /** a range's upper trigger (it fires at or below triggerTicks or at or above this); 0 for any other order */
  triggerHiTicks = 0;
  /** a trailing stop's distance from the extreme mark, basis points; 0 for any other order */
  trailBps = 0;
  /** least move of the extreme, basis points, that moves a trailing stop's trigger */
  stepBps = 0;
  /** the extreme mark a trailing stop's trigger follows, USD */
  anchorPx = 0;
  /** 0, or 1 + the index of the trigger order's type in CONDITIONAL_TEXT */
  condType = 0;
  /** matching bound in ticks: the limit price, Infinity for a market buy, 0 for a market sell */
  limitTicks = 0;
  /** true for an order rejected as invalid: rawPx / rawSz hold the submitted price and size (maybe off the steps) */
  rawInput = false;
  rawPx = 0;
  rawSz = 0;
  /** the submitted symbol when the venue lists no such market (the order is rejected at once; `market` only stands in) */
  rawSymbol: string | null = null;
  level: Level | null = null;
  prev: Order | null = null;
  next: Order | null = null;
  /** links in the owner's list of open orders */
  aPrev: Order | null = null;
  aNext: Order | null = null;
  live = false;

  constructor(
    public account: Account,
    public market: Market,
    readonly idEntry: number,
  ) {}

  init(
    id: string,
    cloid: string | null,
    account: Account,
    market: Market,
    isBuy: boolean,
    kind: number,
    tif: number,
    priceTicks: number,
    origLots: number,
    reduceOnly: boolean,
    nowNs: bigint,
    slot: number,
    idHash: number,
  ): this {
    this.id = id;
    this.cloid = cloid;
    this.account = account;
    this.market = market;
    this.isBuy = isBuy;
    this.kind = kind;
    this.tif = tif;
    this.priceTicks = priceTicks;
    this.origLots = origLots;
    this.reduceOnly = reduceOnly;
    this.createdNs = nowNs;
    this.idHash = idHash;
    this.idState = ID_UNLOADED;
    this.status = 'placed';
    this.reason = null;
    this.remLots = origLots;
    this.filledLots = 0;
    this.filledValue = 0;
    this.maker = false;
    this.updatedNs = nowNs;
    this.slot = slot;
    this.triggerTicks = 0;
    this.triggerAbove = false;
    this.triggerHiTicks = 0;
    this.trailBps = 0;
    this.stepBps = 0;
    this.anchorPx = 0;
    this.condType = 0;
    this.limitTicks = 0;
    this.rawInput = false;
    this.rawPx = 0;
    this.rawSz = 0;
    this.rawSymbol = null;
    this.level = null;
    this.prev = null;
    this.next = null;
    this.aPrev = null;
    this.aNext = null;
    this.live = false;
    return this;
  }
}

/** A trigger order's conditional terms as they are now; null for an order that is not one. */
export function conditionalInfo(o: OrderShape): ConditionalInfo | null {
  if (o.condType === 0) return null;
  const m = o.market;
  const trailing = o.trailBps > 0;
  return {
    type: CONDITIONAL_TEXT[o.condType - 1]!,
    isAbove: o.triggerAbove,
    px: m.price(o.triggerTicks),
    pxHi: o.triggerHiTicks > 0 ? m.price(o.triggerHiTicks) : null,
    lim: o.kind === KIND_TRIGGER_LIMIT ? m.price(o.priceTicks) : null,
    trb: trailing ? o.trailBps : null,
    stb: trailing ? o.stepBps : null,
  };
}

export class Level implements LevelShape {
  totalLots = 0;
  count = 0;
  head: Order | null = null;
  tail: Order | null = null;

  constructor(
    readonly priceTicks: number,
    /** sort key: price for bids, −price for asks (so the best level has the largest key) */
    readonly key: number,
  ) {}
}

export class BookSide implements BookSideShape {
  /** ascending by key; the best level is last */
  readonly levels: Level[] = [];
  /** the levels' keys, kept alongside so that a search reads one array instead of every level it passes */
  private readonly keys: number[] = [];

  constructor(readonly isBid: boolean) {}

  /** (Never reads index -1: on an empty array that is a slow lookup of a property named "-1".) */
  best(): Level | undefined {
    const n = this.levels.length;
    return n === 0 ? undefined : this.levels[n - 1];
  }

  /** Appends `o` to the queue at its price, creating the level if needed. */
  add(o: Order): Level {
    const ticks = o.priceTicks;
    const key = this.isBid ? ticks : -ticks;
    const levels = this.levels;
    const keys = this.keys;
    const n = keys.length;
    let level: Level;
    if (n === 0 || key > keys[n - 1]!) {
      level = new Level(ticks, key);
      levels.push(level);
      keys.push(key);
    } else {
      const i = this.search(key);
      if (keys[i] === key) level = levels[i]!;
      else {
        level = new Level(ticks, key);
        levels.splice(i, 0, level);
        keys.splice(i, 0, key);
      }
    }
    o.level = level;
    o.prev = level.tail;
    o.next = null;
    if (level.tail) level.tail.next = o;
    else level.head = o;
    level.tail = o;
    level.totalLots += o.remLots;
    level.count++;
    return level;
  }

  /** Unlinks `o` from its level; drops the level when it empties. Returns the level. */
  remove(o: Order): Level {
    const level = o.level!;
    if (o.prev) o.prev.next = o.next;
    else level.head = o.next;
    if (o.next) o.next.prev = o.prev;
    else level.tail = o.prev;
    o.prev = o.next = null;
    o.level = null;
    level.totalLots -= o.remLots;
    level.count--;
    if (level.count === 0) this.dropLevel(level);
    return level;
  }

  private dropLevel(level: Level): void {
    const levels = this.levels;
    const n = levels.length;
    if (levels[n - 1] === level) {
      levels.pop();
      this.keys.pop();
      return;
    }
    const i = this.search(level.key);
    if (levels[i] === level) {
      levels.splice(i, 1);
      this.keys.splice(i, 1);
    }
  }

  /** Index of the first level whose key is at least `key` (keys.length when none). */
  private search(key: number): number {
    const keys = this.keys;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
