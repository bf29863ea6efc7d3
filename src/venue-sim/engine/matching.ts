// Order placement, matching (price-time priority, self-trade prevention, reduce-only), cancels and triggers.
// Invariant: every place item ends its step in exactly one status (gaps §6); the book is never left crossed.

import { passesInitialMargin } from './accounts.js';
import { KIND_LIMIT, KIND_MARKET, KIND_TRIGGER_LIMIT, KIND_TRIGGER_MARKET, TIF_ALO, TIF_GTC, TIF_IOC } from './book.js';
import type { Market, Order } from './model.js';
import { hashId } from './orderindex.js';
import type { State } from './state.js';
import type { CancelItem, CloseReason, ItemStatus, ModifyItem, PlaceOrderItem } from './types.js';

const SELF_TRADE = 1;
const REDUCE_ONLY_EXHAUSTED = 2;
/** largest order notional accepted, in quote units (keeps Σ ticks × lots × units exact) */
const MAX_NOTIONAL_UNITS = 1e15;

function sizeProblem(sz: number): string {
  if (typeof sz !== 'number' || !Number.isFinite(sz)) return 'size is not a finite number';
  if (sz <= 0) return 'size must be positive';
  return 'size is not a multiple of the lot size';
}

function priceProblem(name: string, px: number): string {
  if (typeof px !== 'number' || !Number.isFinite(px)) return `${name} is not a finite number`;
  if (px <= 0) return `${name} must be positive`;
  return `${name} is not a multiple of the tick size`;
}

/** Price (USD) at which new exposure is valued for margin and minimum notional; 0 when nothing is known. */
function referencePrice(m: Market, o: Order): number {
  if (o.kind === KIND_LIMIT || o.kind === KIND_TRIGGER_LIMIT) return m.price(o.priceTicks);
  if (o.kind === KIND_TRIGGER_MARKET && !o.live) return m.price(o.triggerTicks);
  const best = o.isBuy ? m.asks.best() : m.bids.best();
  return best !== undefined ? m.price(best.priceTicks) : m.markPrice();
}

/**
 * Places one order for `key` under the order id `id` and returns its single status entry.
 * A duplicate id answers rejectedDuplicate without touching the existing order or emitting events.
 */
export function placeOrder(st: State, key: string, item: PlaceOrderItem, id: string): ItemStatus {
  const idHash = hashId(id);
  const known = st.accounts.get(key);
  if (st.orders.get(id, idHash) !== undefined || known?.history?.has(id, idHash) === true) return { rejectedDuplicate: { oid: id } };
  const listed = st.market(item.c);
  // an order for a symbol the venue does not list is rejected like any invalid order, so it is recorded too
  const m = listed ?? st.markets[0]!;
  const t = item.t;
  let kind = KIND_LIMIT;
  let tif = TIF_GTC;
  let priceTicks = 0;
  let triggerTicks = 0;
  let triggerHiTicks = 0;
  let trailBps = 0;
  let stepBps = 0;
  let reason: string | null = listed === undefined ? 'unknown symbol' : null;
  const lots = m.lot.count(item.sz);
  if (lots <= 0) reason = sizeProblem(item.sz);
  if (t !== null && typeof t === 'object' && 'limit' in t) {
    const tifText = t.limit?.tif;
    tif = tifText === 'GTC' ? TIF_GTC : tifText === 'IOC' ? TIF_IOC : tifText === 'ALO' ? TIF_ALO : -1;
    if (tif < 0) reason ??= 'unknown time in force';
    priceTicks = m.tick.count(item.px);
    if (priceTicks <= 0) reason ??= priceProblem('price', item.px);
  } else if (t !== null && typeof t === 'object' && 'trigger' in t && t.trigger !== null && typeof t.trigger === 'object') {
    const trig = t.trigger;
    tif = TIF_IOC;
    if (trig.is_market) {
      kind = trig.triggerPx === 0 ? KIND_MARKET : KIND_TRIGGER_MARKET;
      if (item.px !== 0) reason ??= 'market order price must be 0';
    } else {
      kind = KIND_TRIGGER_LIMIT;
      tif = TIF_GTC;
      priceTicks = m.tick.count(item.px);
      if (priceTicks <= 0) reason ??= priceProblem('price', item.px);
    }
    if (trig.trailBps !== undefined) {
      kind = KIND_TRIGGER_MARKET;
      trailBps = trig.trailBps;
      stepBps = trig.stepBps ?? 0;
      if (m.markPrice() <= 0) reason ??= 'no mark price to trail';
    } else if (kind !== KIND_MARKET) {
      triggerTicks = m.tick.count(trig.triggerPx);
      if (triggerTicks <= 0) reason ??= priceProblem('trigger price', trig.triggerPx);
    }
    if (trig.highPx !== undefined) {
      triggerHiTicks = m.tick.count(trig.highPx);
      if (triggerHiTicks <= 0) reason ??= priceProblem('range high price', trig.highPx);
      else if (triggerHiTicks <= triggerTicks) reason ??= 'range high price must be above its low price';
    }
  } else reason ??= 'unknown order type';
  if (tif < 0) tif = TIF_GTC;
  const a = known ?? st.account(key);
  const cloid = typeof item.cloid === 'string' ? item.cloid : null;
  const o = st.newOrder(id, cloid, a, m, item.b === true, kind, tif, reason === null ? priceTicks : 0, reason === null ? lots : 0, item.r === true, idHash);
  if (reason !== null) {
    o.rawInput = true;
    o.rawPx = item.px;
    o.rawSz = item.sz;
    if (listed === undefined) o.rawSymbol = String(item.c);
    return reject(st, o, 'rejectedInvalid', reason);
  }
  o.triggerTicks = triggerTicks;
  o.triggerHiTicks = triggerHiTicks;
  o.trailBps = trailBps;
  o.stepBps = stepBps;
  if (kind === KIND_TRIGGER_MARKET || kind === KIND_TRIGGER_LIMIT) o.condType = conditionalType(item.t);
  if (trailBps > 0) {
    o.anchorPx = m.markPrice();
    setTrailingTrigger(m, o);
  }
  o.limitTicks = kind === KIND_MARKET || kind === KIND_TRIGGER_MARKET ? (o.isBuy ? Infinity : 0) : priceTicks;
  if (cloid !== null && (a.liveCloids?.has(cloid) === true || a.endedCloids?.has(cloid) === true)) {
    st.terminal(o, 'rejectedDuplicate', 'duplicate client order id');
    return { rejectedDuplicate: { oid: id } };
  }
  const p = a.positions[m.index]!;
  if (o.reduceOnly && (p.lots === 0 || p.lots > 0 === o.isBuy)) {
    st.terminal(o, 'cancelledReduceOnly', 'would increase the position');
    return { cancelledReduceOnly: { oid: id } };
  }
  // an order that could become live (a GTC or ALO limit, or any trigger, which parks) counts against the cap
  if ((kind === KIND_TRIGGER_MARKET || tif !== TIF_IOC) && a.openOrders >= st.maxOpenOrders) {
    return reject(st, o, 'rejectedRiskLimit', `at most ${st.maxOpenOrders} open orders per account`);
  }
  const refPx = referencePrice(m, o);
  if (refPx * m.lot.value * lots * st.quoteScale > MAX_NOTIONAL_UNITS) return reject(st, o, 'rejectedInvalid', 'notional too large');
  if (!o.reduceOnly) {
    if (refPx > 0 && refPx * m.size(lots) < m.minNotionalUsd) return reject(st, o, 'rejectedInvalid', 'below minimum notional');
    if (!passesInitialMargin(a, m, o.isBuy ? lots : 0, o.isBuy ? 0 : lots, refPx, st.quoteScale)) {
      return reject(st, o, 'rejectedRiskLimit', 'insufficient margin');
    }
  }
  if (kind === KIND_TRIGGER_MARKET || kind === KIND_TRIGGER_LIMIT) {
    const mark = m.markPrice();
    o.triggerAbove = mark > 0 ? m.price(o.triggerTicks) >= mark : o.isBuy;
    st.makeLive(o);
    m.triggers.add(o);
    st.emitOrder(o);
    return { resting: { oid: id } };
  }
  if (tif === TIF_ALO) {
    const best = o.isBuy ? m.asks.best() : m.bids.best();
    if (best !== undefined && (o.isBuy ? best.priceTicks <= priceTicks : best.priceTicks >= priceTicks)) {
      st.terminal(o, 'rejectedCrossing', 'post-only order would cross');
      return { rejectedCrossing: { oid: id } };
    }
  }
  return finishTaker(st, o, match(st, o, 'normal'));
}

/** Order.condType of a trigger order's type spec: trailing, range, take-profit (as the item says) or stop. */
function conditionalType(t: PlaceOrderItem['t']): number {
  const trig = 'trigger' in t ? t.trigger : undefined;
  if (trig?.trailBps !== undefined) return 4;
  if (trig?.highPx !== undefined) return 3;
  return trig?.takeProfit === true ? 2 : 1;
}

function reject(st: State, o: Order, status: 'rejectedInvalid' | 'rejectedRiskLimit', reason: string): ItemStatus {
  st.terminal(o, status, reason);
  return status === 'rejectedInvalid' ? { rejectedInvalid: { oid: o.id, reason } } : { rejectedRiskLimit: { oid: o.id, reason } };
}

/**
 * Matches the incoming order against the opposite side while it crosses. Returns 0 when it stopped
 * on price or an empty book, SELF_TRADE when it reached its own resting order, or
 * REDUCE_ONLY_EXHAUSTED when a reduce-only order has nothing left to reduce.
 */
export function match(st: State, o: Order, reason: CloseReason): number {
  const m = o.market;
  const side = o.isBuy ? m.asks : m.bids;
  const limit = o.limitTicks;
  const p = o.account.positions[m.index]!;
  while (o.remLots > 0) {
    const level = side.best();
    if (level === undefined) return 0;
    const px = level.priceTicks;
    if (o.isBuy ? px > limit : px < limit) return 0;
    let code = 0;
    let changed = false;
    let mk = level.head;
    while (mk !== null && o.remLots > 0) {
      const next: Order | null = mk.next;
      if (mk.account === o.account) {
        code = SELF_TRADE;
        break;
      }
      let q = o.remLots < mk.remLots ? o.remLots : mk.remLots;
      if (o.reduceOnly) {
        const allowed = o.isBuy ? -p.lots : p.lots;
        if (allowed <= 0) {
          code = REDUCE_ONLY_EXHAUSTED;
          break;
        }
        if (allowed < q) q = allowed;
      }
      if (mk.reduceOnly) {
        const mp = mk.account.positions[m.index]!;
        const allowed = mk.isBuy ? -mp.lots : mp.lots;
        if (allowed <= 0) {
          st.cancel(mk, 'cancelledReduceOnly', 'would increase the position', false);
          changed = true;
          mk = next;
          continue;
        }
        if (allowed < q) q = allowed;
      }
      st.trade(o, mk, q, px, reason);
      changed = true;
      mk = next;
    }
    if (changed) st.emitLevel(m, !o.isBuy, level);
    if (code !== 0) return code;
  }
  return 0;
}

/** Ends the incoming order's first step after matching: one terminal status, or it rests (placed / working). */
export function finishTaker(st: State, o: Order, code: number): ItemStatus {
  const m = o.market;
  const oid = o.id;
  if (code === SELF_TRADE) {
    st.terminal(o, 'cancelledSelfCrossing', 'self-trade prevention');
    return { cancelledSelfCrossing: { oid } };
  }
  if (code === REDUCE_ONLY_EXHAUSTED) {
    st.terminal(o, 'cancelledReduceOnly', 'would increase the position');
    return { cancelledReduceOnly: { oid } };
  }
  if (o.remLots === 0) {
    st.terminal(o, 'filled', null);
    return { filled: { oid, totalSz: m.size(o.filledLots), avgPx: m.avgPrice(o.filledValue, o.filledLots) } };
  }
  if (o.kind === KIND_MARKET || o.kind === KIND_TRIGGER_MARKET) {
    st.terminal(o, 'partiallyFilled', o.filledLots === 0 ? 'no liquidity' : 'book exhausted');
    return { partiallyFilled: { oid, totalSz: m.size(o.filledLots), avgPx: m.avgPrice(o.filledValue, o.filledLots) } };
  }
  if (o.tif === TIF_IOC) {
    st.terminal(o, 'cancelledIOC', null);
    return { cancelledIOC: { oid, filledSz: m.size(o.filledLots) } };
  }
  const working = o.filledLots > 0;
  o.status = working ? 'working' : 'placed';
  o.updatedNs = st.nowNs;
  const level = st.rest(o);
  st.emitOrder(o);
  st.emitLevel(m, o.isBuy, level);
  if (!working) return { resting: { oid } };
  return { working: { oid, filledSz: m.size(o.filledLots), remainingSz: m.size(o.remLots), vwap: m.avgPrice(o.filledValue, o.filledLots) } };
}

/** Cancels one of `key`'s live orders; anything else is an error entry (the order is unknown to this account). */
export function cancelOrder(st: State, key: string, item: CancelItem): ItemStatus {
  const o = typeof item.oid === 'string' ? st.orders.get(item.oid, hashId(item.oid)) : undefined;
  if (o === undefined || o.account.key !== key || o.market.symbol !== item.c) return { error: { message: 'order not found' } };
  st.cancel(o, 'cancelled', null);
  return { cancelled: { oid: o.id } };
}

/**
 * Sets the total size of `key`'s resting order to `item.sz` (above what already filled). A smaller order keeps its
 * place in the queue; a larger one goes to the back of its level and must pass the initial-margin check.
 */
export function modifyOrder(st: State, key: string, item: ModifyItem): ItemStatus {
  const o = typeof item.oid === 'string' ? st.orders.get(item.oid, hashId(item.oid)) : undefined;
  if (o === undefined || o.account.key !== key || o.market.symbol !== item.c || o.level === null) return { error: { message: 'order not found' } };
  const m = o.market;
  const lots = m.lot.count(item.sz);
  if (lots <= 0) return { error: { message: sizeProblem(item.sz) } };
  if (lots <= o.filledLots) return { error: { message: 'new size must be above the size already filled' } };
  const delta = lots - o.origLots;
  if (delta === 0) return { resting: { oid: o.id } };
  const a = o.account;
  if (delta > 0 && !o.reduceOnly && !passesInitialMargin(a, m, o.isBuy ? delta : 0, o.isBuy ? 0 : delta, m.price(o.priceTicks), st.quoteScale)) {
    return { error: { message: 'insufficient margin' } };
  }
  const p = a.positions[m.index]!;
  const side = st.side(o);
  if (delta > 0) side.remove(o);
  else o.level.totalLots += delta;
  o.origLots = lots;
  o.remLots += delta;
  if (o.isBuy) p.buyOpenLots += delta;
  else p.sellOpenLots += delta;
  const level = delta > 0 ? side.add(o) : o.level;
  o.updatedNs = st.nowNs;
  st.emitOrder(o);
  st.emitLevel(m, o.isBuy, level);
  return { resting: { oid: o.id } };
}

/** Cancels `key`'s live orders in `symbols` (all symbols when empty), appending one `cancelled` per order. */
export function cancelAll(st: State, key: string, symbols: readonly string[], out: ItemStatus[]): void {
  const a = st.accounts.get(key);
  if (a === undefined) return;
  const only = symbols.length === 0 ? null : new Set(symbols);
  let o = a.ordersHead;
  while (o !== null) {
    const next: Order | null = o.aNext;
    if (only === null || only.has(o.market.symbol)) {
      st.cancel(o, 'cancelled', null);
      out.push({ cancelled: { oid: o.id } });
    }
    o = next;
  }
}

/** A trailing stop's trigger `trailBps` from its anchor: below it for a sell (fires when the mark falls), above for a buy. */
function setTrailingTrigger(m: Market, o: Order): void {
  const distance = o.trailBps / 10_000;
  const ticks = (o.anchorPx * (o.isBuy ? 1 + distance : 1 - distance)) / m.tick.value;
  o.triggerTicks = Math.max(1, o.isBuy ? Math.ceil(ticks - 1e-9) : Math.floor(ticks + 1e-9));
  o.triggerAbove = o.isBuy;
}

/** Moves a trailing stop's anchor to a new extreme `mark` (beyond it by at least stepBps) and its trigger with it. */
function trail(m: Market, o: Order, mark: number): void {
  const step = o.stepBps / 10_000;
  const moved = o.isBuy ? mark < o.anchorPx * (1 - step) : mark > o.anchorPx * (1 + step);
  if (!moved) return;
  o.anchorPx = mark;
  setTrailingTrigger(m, o);
}

function reached(m: Market, o: Order, mark: number): boolean {
  const px = m.price(o.triggerTicks);
  if (o.triggerHiTicks > 0) return mark <= px || mark >= m.price(o.triggerHiTicks);
  return o.triggerAbove ? mark >= px : mark <= px;
}

/** Fires the market's parked triggers whose price the mark has reached (trailing stops follow it first), in placement order. */
export function fireTriggers(st: State, m: Market): void {
  if (m.triggers.size === 0) return;
  const mark = m.markPrice();
  if (mark <= 0) return;
  let fired: Order[] | null = null;
  for (const o of m.triggers) {
    if (o.trailBps > 0) trail(m, o, mark);
    if (reached(m, o, mark)) (fired ??= []).push(o);
  }
  if (fired === null) return;
  for (const o of fired) {
    if (!m.triggers.delete(o)) continue;
    activate(st, o);
    if (st.dirtyCount > 0) st.flush();
  }
}

function activate(st: State, o: Order): void {
  const m = o.market;
  const p = o.account.positions[m.index]!;
  if (o.reduceOnly && (p.lots === 0 || p.lots > 0 === o.isBuy)) {
    st.terminal(o, 'cancelledReduceOnly', 'would increase the position');
    return;
  }
  if (!o.reduceOnly) {
    const refPx = referencePrice(m, o);
    if (!passesInitialMargin(o.account, m, o.isBuy ? o.remLots : 0, o.isBuy ? 0 : o.remLots, refPx, st.quoteScale)) {
      st.terminal(o, 'cancelledRiskLimit', 'insufficient margin');
      return;
    }
  }
  finishTaker(st, o, match(st, o, 'normal'));
}
