// Mutable engine state and the primitive state changes every module composes: rest, cancel, trade, fill, flush.
// Invariant: every status change of an order emits exactly one orderUpdate, in the order applied; ended orders' objects are reused.

import { roundDiv, unitsToUsd } from '../decimals.js';
import { Account, computeRisk, newRisk, type Risk } from './accounts.js';
import { conditionalInfo, KIND_TEXT, Order, TIF_TEXT } from './book.js';
import { Prng } from './ids.js';
import { FillLog } from './fills.js';
import { OrderHistory, OrderLog } from './history.js';
import { IdBytes } from './idbytes.js';
import type { BookSide, Level, Market, Position } from './model.js';
import { OrderIndex } from './orderindex.js';
import { RecentIdFilter } from './recentids.js';
import { RecentSet, Ring } from './ring.js';
import type { ActivityRow, CloseReason, ClosedPositionRow, EngineEvent, FillRecord, OrderStatus, PositionUpdateEvent, RiskRow } from './types.js';

const ORDER_POOL_MAX = 1024;

/** The fee of `lots` at `ticks` at fee fraction `rate`, in whole quote units (negative: a rebate). */
export function feeUnits(m: Market, ticks: number, lots: number, rate: number): number {
  return Math.round(ticks * lots * m.unitsPerTickLot * rate) || 0;
}

export interface StateLimits {
  historyLimit: number;
  dedupeWindow: number;
  maxOpenOrders: number;
}

export class State {
  readonly bySymbol = new Map<string, Market>();
  private lastSymbol = '';
  private lastMarket: Market | undefined = undefined;
  readonly accounts = new Map<string, Account>();
  /** accounts by index (fill rows name the parties by index) */
  readonly accountList: Account[] = [];
  /** live orders (resting or parked triggers) by id */
  readonly orders = new OrderIndex();
  readonly quoteScale: number;
  readonly prng: Prng;
  readonly historyLimit: number;
  readonly dedupeWindow: number;
  /** live orders one account may hold */
  readonly maxOpenOrders: number;
  events: EngineEvent[] = [];
  nowNs = 0n;
  slot = 0;
  depositsUnits = 0n;
  feesCollectedUnits = 0n;
  fundingNetUnits = 0n;
  /**
   * accounts whose positions or balance changed since the last flush: the first `dirtyCount` entries (kept as a
   * count, since truncating the array would free its backing store only for the next push to allocate it again)
   */
  private readonly dirty: Account[] = [];
  dirtyCount = 0;
  /** accounts found below maintenance margin by the last flushes */
  readonly underwater: Account[] = [];
  readonly risk: Risk = newRisk();
  /** byte copies of order ids, one entry per Order object */
  readonly ids = new IdBytes();
  readonly orderLog = new OrderLog(this.accountList, this.ids);
  /** duplicate detection over each account's newest ended order ids */
  private readonly recentIds = new RecentIdFilter();
  readonly fillLog: FillLog;
  /** ended orders, ready for reuse (at most ORDER_POOL_MAX) */
  private readonly orderPool: Order[] = [];

  constructor(
    readonly markets: readonly Market[],
    readonly quoteDecimals: number,
    seed: number,
    limits: StateLimits,
  ) {
    for (const m of markets) this.bySymbol.set(m.symbol, m);
    this.quoteScale = 10 ** quoteDecimals;
    this.prng = new Prng(seed);
    this.historyLimit = limits.historyLimit;
    this.dedupeWindow = Math.min(limits.dedupeWindow, limits.historyLimit);
    this.maxOpenOrders = limits.maxOpenOrders;
    this.fillLog = new FillLog(this.accountList, this.historyLimit, this.ids);
  }

  account(key: string): Account {
    let a = this.accounts.get(key);
    if (a === undefined) {
      a = new Account(key, this.accountList.length, this.markets);
      this.accounts.set(key, a);
      this.accountList.push(a);
    }
    return a;
  }

  /** The market listed as `symbol`; the last one found is remembered (order flow sticks to few symbols). */
  market(symbol: string): Market | undefined {
    if (symbol === this.lastSymbol) return this.lastMarket;
    const m = this.bySymbol.get(symbol);
    if (m !== undefined) {
      this.lastSymbol = symbol;
      this.lastMarket = m;
    }
    return m;
  }

  /** A fresh order (recycled from the pool when one is free), created now, in status placed. */
  newOrder(
    id: string,
    cloid: string | null,
    a: Account,
    m: Market,
    isBuy: boolean,
    kind: number,
    tif: number,
    priceTicks: number,
    lots: number,
    reduceOnly: boolean,
    idHash: number,
  ): Order {
    const o = this.orderPool.pop() ?? new Order(a, m, this.ids.alloc());
    return o.init(id, cloid, a, m, isBuy, kind, tif, priceTicks, lots, reduceOnly, this.nowNs, this.slot, idHash);
  }

  // ---- events ----

  emitOrder(o: Order): void {
    const m = o.market;
    this.events.push({
      type: 'orderUpdate',
      account: o.account.key,
      symbol: o.rawSymbol ?? m.symbol,
      orderId: o.id,
      status: o.status,
      price: o.rawInput ? o.rawPx : m.price(o.priceTicks),
      originalSize: o.rawInput ? o.rawSz : m.size(o.origLots),
      size: m.size(o.remLots),
      filledSize: m.size(o.filledLots),
      vwap: m.avgPrice(o.filledValue, o.filledLots),
      isBuy: o.isBuy,
      maker: o.maker,
      reduceOnly: o.reduceOnly,
      tif: TIF_TEXT[o.tif]!,
      orderType: KIND_TEXT[o.kind]!,
      conditional: conditionalInfo(o),
      reason: o.reason,
      timestamp: this.nowNs,
      slot: this.slot,
    });
  }

  emitLevel(m: Market, isBid: boolean, level: Level): void {
    this.events.push({
      type: 'bookLevel',
      symbol: m.symbol,
      isBid,
      px: m.price(level.priceTicks),
      sz: m.size(level.totalLots),
      n: level.count,
      timestamp: this.nowNs,
    });
  }

  // ---- order lifecycle ----

  side(o: Order): BookSide {
    return o.isBuy ? o.market.bids : o.market.asks;
  }

  /** Registers `o` as a live order of its account (resting or parked). */
  makeLive(o: Order): void {
    if (o.live) return;
    o.live = true;
    this.orders.add(o);
    o.account.linkOrder(o);
    if (o.cloid !== null) (o.account.liveCloids ??= new Map()).set(o.cloid, o);
  }

  /** Puts `o` on the book (caller emits its orderUpdate, then the returned level). */
  rest(o: Order): Level {
    this.makeLive(o);
    o.maker = true;
    const level = this.side(o).add(o);
    const p = o.account.positions[o.market.index]!;
    if (o.isBuy) p.buyOpenLots += o.remLots;
    else p.sellOpenLots += o.remLots;
    if (o.reduceOnly) p.reduceOnlyOrders++;
    return level;
  }

  /** Takes a live order off the book (or out of the trigger set) and ends it with `status`. */
  cancel(o: Order, status: OrderStatus, reason: string | null, emitLevel = true): void {
    const level = o.level;
    if (level !== null) {
      const p = o.account.positions[o.market.index]!;
      if (o.isBuy) p.buyOpenLots -= o.remLots;
      else p.sellOpenLots -= o.remLots;
      if (o.reduceOnly) p.reduceOnlyOrders--;
      this.side(o).remove(o);
      this.terminal(o, status, reason);
      if (emitLevel) this.emitLevel(o.market, o.isBuy, level);
    } else {
      o.market.triggers.delete(o);
      this.terminal(o, status, reason);
    }
  }

  /**
   * Ends `o` with a terminal status: drops it from the live sets, records it, emits its orderUpdate and returns
   * the object to the pool (callers may still read it, but only until the next newOrder).
   */
  terminal(o: Order, status: OrderStatus, reason: string | null): void {
    o.status = status;
    o.reason = reason;
    o.updatedNs = this.nowNs;
    o.slot = this.slot;
    const a = o.account;
    if (o.live) {
      o.live = false;
      this.orders.delete(o);
      a.unlinkOrder(o);
      if (o.cloid !== null) a.liveCloids!.delete(o.cloid);
    }
    if (o.cloid !== null && !status.startsWith('rejected')) (a.endedCloids ??= new RecentSet(this.historyLimit)).add(o.cloid);
    (a.history ??= new OrderHistory(this.orderLog, this.historyLimit, this.dedupeWindow, this.recentIds, a.index)).record(o);
    this.emitOrder(o);
    if (this.orderPool.length < ORDER_POOL_MAX) this.orderPool.push(o);
    else this.ids.release(o.idEntry);
  }

  // ---- trades and positions ----

  /**
   * Executes `lots` between the incoming `taker` and the resting `maker` at `ticks`; updates both
   * orders, the level, positions, balances and fees, and emits the fill and the maker's orderUpdate.
   */
  trade(taker: Order, maker: Order, lots: number, ticks: number, takerReason: CloseReason): void {
    const m = taker.market;
    const value = ticks * lots;
    const makerFee = feeUnits(m, ticks, lots, m.makerFeeRate);
    const takerFee = feeUnits(m, ticks, lots, m.takerFeeRate);
    maker.remLots -= lots;
    maker.filledLots += lots;
    maker.filledValue += value;
    maker.level!.totalLots -= lots;
    const mp = maker.account.positions[m.index]!;
    if (maker.isBuy) mp.buyOpenLots -= lots;
    else mp.sellOpenLots -= lots;
    taker.remLots -= lots;
    taker.filledLots += lots;
    taker.filledValue += value;
    this.applyFill(maker.account, m, maker.isBuy, lots, ticks, makerFee, 'normal');
    this.applyFill(taker.account, m, taker.isBuy, lots, ticks, takerFee, takerReason);
    this.feesCollectedUnits += BigInt(makerFee) + BigInt(takerFee);
    this.recordFill(maker.account, maker, maker.id, taker, lots, ticks, makerFee, takerFee, takerReason);
    maker.updatedNs = this.nowNs;
    if (maker.remLots === 0) {
      if (maker.reduceOnly) mp.reduceOnlyOrders--;
      this.side(maker).remove(maker);
      this.terminal(maker, 'filled', null);
    } else {
      maker.status = 'working';
      this.emitOrder(maker);
    }
  }

  /**
   * Records and emits one execution of `lots` at `ticks` between the maker side (`maker`, whose order is
   * `makerOrder`, or null with a generated `makerOid` for auto-deleveraging) and the incoming order `taker`.
   */
  recordFill(
    maker: Account,
    makerOrder: Order | null,
    makerOid: string,
    taker: Order,
    lots: number,
    ticks: number,
    makerFee: number,
    takerFee: number,
    reason: CloseReason,
  ): void {
    const m = taker.market;
    const fill: FillRecord = {
      maker: maker.key,
      taker: taker.account.key,
      orderIdMaker: makerOid,
      orderIdTaker: taker.id,
      isBuy: taker.isBuy,
      symbol: m.symbol,
      amount: m.size(lots),
      price: m.price(ticks),
      makerFee: makerFee / this.quoteScale,
      takerFee: takerFee / this.quoteScale,
      slot: this.slot,
      timestamp: this.nowNs,
      reason,
    };
    this.fillLog.add(maker, makerOrder, makerOid, taker, lots, ticks, makerFee, takerFee, this.slot, this.nowNs);
    m.lastTradeTicks = ticks;
    m.volumeLots += lots;
    this.events.push({ type: 'fill', fill });
  }

  /** Books one side of a trade on the account: position, entry cost, realized PnL, fee (an integer of quote units). */
  applyFill(a: Account, m: Market, isBuy: boolean, lots: number, ticks: number, fee: number, reason: CloseReason): void {
    const p = a.positions[m.index]!;
    const k = m.unitsPerTickLotBig;
    const before = p.lots;
    let open = lots;
    const feeUnits = BigInt(fee);
    let openFee = feeUnits;
    a.balance -= feeUnits;
    a.fees += feeUnits;
    if (before !== 0 && before > 0 !== isBuy) {
      const abs = before > 0 ? before : -before;
      const q = lots < abs ? lots : abs;
      const removed = q === abs ? p.cost : roundDiv(p.cost * BigInt(q), BigInt(abs));
      const exit = BigInt(ticks) * BigInt(q) * k;
      const pnl = before > 0 ? exit - removed : removed - exit;
      p.cost -= removed;
      p.realized += pnl;
      a.realized += pnl;
      a.balance += pnl;
      p.closeValue += ticks * q;
      p.closeLots += q;
      p.volumeLots += q;
      const closeFee = q === lots ? feeUnits : roundDiv(feeUnits * BigInt(q), BigInt(lots));
      p.fees += closeFee;
      openFee = feeUnits - closeFee;
      p.lots = isBuy ? before + q : before - q;
      open = lots - q;
      if (p.lots === 0) {
        this.closePosition(a, p, reason);
        m.holders.delete(a);
      }
    }
    if (open > 0) {
      if (p.lots === 0) {
        p.resetLifecycle(this.nowNs);
        m.holders.add(a);
      }
      p.cost += BigInt(ticks) * BigInt(open) * k;
      p.lots += isBuy ? open : -open;
      p.openValue += ticks * open;
      p.openLots += open;
      p.volumeLots += open;
      p.fees += openFee;
      const abs = p.lots > 0 ? p.lots : -p.lots;
      if (abs > p.maxLots) p.maxLots = abs;
    }
    m.openInterestLots += (p.lots > 0 ? p.lots : 0) - (before > 0 ? before : 0);
    this.touch(a, p);
  }

  /** Adds a deposit or transfer of `units` to the activity history of each account it moved (`from`: null for a deposit). */
  recordActivity(activityType: ActivityRow['activityType'], from: Account | null, to: Account, units: bigint): void {
    const row: ActivityRow = {
      activityType,
      from: from?.key ?? null,
      to: to.key,
      amount: unitsToUsd(units, this.quoteScale),
      slot: this.slot,
      timestamp: this.nowNs,
    };
    for (const a of from === null ? [to] : [from, to]) (a.activity ??= new Ring(this.historyLimit)).push(row);
  }

  /** Adds a liquidation or auto-deleveraging of `a` to its risk history. */
  recordRisk(a: Account, row: Omit<RiskRow, 'owner' | 'slot' | 'timestamp'>): void {
    (a.risk ??= new Ring(this.historyLimit)).push({ owner: a.key, ...row, slot: this.slot, timestamp: this.nowNs });
  }

  touch(a: Account, p: Position | null): void {
    if (p !== null) p.dirty = true;
    if (!a.dirty) {
      a.dirty = true;
      this.dirty[this.dirtyCount++] = a;
    }
  }

  private closePosition(a: Account, p: Position, reason: CloseReason): void {
    const m = p.market;
    const qs = this.quoteScale;
    const row: ClosedPositionRow = {
      owner: a.key,
      symbol: m.symbol,
      maxQuantity: m.size(p.maxLots),
      totalVolume: m.size(p.volumeLots),
      avgOpenPrice: m.avgPrice(p.openValue, p.openLots),
      avgClosePrice: m.avgPrice(p.closeValue, p.closeLots),
      realizedPnl: unitsToUsd(p.realized, qs),
      fees: unitsToUsd(p.fees, qs),
      funding: unitsToUsd(p.funding, qs),
      openTime: p.openNs,
      closeTime: this.nowNs,
      closeReason: reason,
    };
    (a.closed ??= new Ring(this.historyLimit)).push(row);
    this.events.push({ type: 'positionClosed', position: row });
  }

  entryPrice(p: Position): number {
    const m = p.market;
    const abs = p.lots > 0 ? p.lots : -p.lots;
    return abs === 0 ? 0 : (Number(p.cost) * m.tick.mantissa) / (abs * m.unitsPerTickLot * m.tick.scale);
  }

  /**
   * Settles the consequences of the changes since the last flush: cancels resting reduce-only orders
   * that would now increase a position, emits positionUpdate / marginUpdate, and queues accounts
   * below maintenance margin in `underwater`.
   */
  flush(): void {
    const dirty = this.dirty;
    for (let i = 0; i < this.dirtyCount; i++) {
      const a = dirty[i]!;
      for (const p of a.positions) if (p.dirty && p.reduceOnlyOrders > 0) this.sweepReduceOnly(a, p);
    }
    const qs = this.quoteScale;
    for (let i = 0; i < this.dirtyCount; i++) {
      const a = dirty[i]!;
      a.dirty = false;
      const r = computeRisk(a, qs, this.risk);
      for (const p of a.positions) {
        if (!p.dirty) continue;
        p.dirty = false;
        this.events.push(this.positionDetail(a, p));
      }
      this.events.push({
        type: 'marginUpdate',
        account: a.key,
        totalBalance: unitsToUsd(a.balance, qs),
        availableBalance: r.equity - r.initialMargin,
        marginUsed: r.initialMargin,
        maintenanceMargin: r.maintenanceMargin,
        notional: r.notional,
        realizedPnl: unitsToUsd(a.realized, qs),
        unrealizedPnl: r.unrealized,
        fees: unitsToUsd(a.fees, qs),
        funding: unitsToUsd(a.funding, qs),
        timestamp: this.nowNs,
      });
      if (r.hasPosition && r.equity < r.maintenanceMargin) this.underwater.push(a);
    }
    this.dirtyCount = 0;
  }

  /** The position's figures at the current mark price, as its positionUpdate event carries them. */
  positionDetail(a: Account, p: Position): PositionUpdateEvent {
    const qs = this.quoteScale;
    const m = p.market;
    const mark = m.markPrice();
    const size = m.size(p.lots);
    return {
      type: 'positionUpdate',
      account: a.key,
      symbol: m.symbol,
      size,
      price: this.entryPrice(p),
      realizedPnl: unitsToUsd(p.realized, qs),
      unrealizedPnl: p.lots === 0 ? 0 : size * mark - unitsToUsd(p.signedCost(), qs),
      leverage: a.leverage[m.index]!,
      markPrice: mark,
      notional: Math.abs(size) * mark,
      fees: unitsToUsd(p.fees, qs),
      funding: unitsToUsd(p.funding, qs),
      timestamp: this.nowNs,
    };
  }

  private sweepReduceOnly(a: Account, p: Position): void {
    let o = a.ordersHead;
    while (o !== null) {
      const next = o.aNext;
      if (o.market === p.market && o.reduceOnly && o.level !== null && (p.lots === 0 || p.lots > 0 === o.isBuy)) {
        this.cancel(o, 'cancelledReduceOnly', 'would increase the position');
      }
      o = next;
    }
  }
}
