// The simulated exchange of a backtest: the recorded book of each market with the bot's own orders overlaid, queue
// position per own order, fills only on market evidence, the venue's statuses and rules, fees, funding, margin and
// liquidation with the local venue engine's arithmetic (its Market, Account, State.applyFill, feeUnits, fundingUnits,
// passesInitialMargin, isUnderwater). Invariants: nothing here reads a clock or draws a random number (time is passed
// in, so a replay is deterministic); the recorded book is never changed by own fills (no market impact); every own
// order ends in exactly one terminal status, reported once.

import type { AccountUpdate, Fill, FillCause, ItemResult, Margin, Position, VenueOrder } from '../core/account-data.js';
import type { Side } from '../core/intent.js';
import type { BookLevel, BookUpdate, Ticker, Trade } from '../core/market-data.js';
import type { OrderStatus } from '../core/intent.js';
import type { TimeInForce } from '../core/types.js';
import type { OrderItem, PlaceOrder } from '../protocol/v1/actions.js';
import { unitsToUsd } from '../venue-sim/decimals.js';
import { computeRisk, newRisk, passesInitialMargin } from '../venue-sim/engine/accounts.js';
import { fundingUnits } from '../venue-sim/engine/funding.js';
import { isUnderwater } from '../venue-sim/engine/liquidation.js';
import { Market } from '../venue-sim/engine/markets.js';
import type { Account } from '../venue-sim/engine/model.js';
import { feeUnits, State } from '../venue-sim/engine/state.js';
import type { MarketConfig } from '../venue-sim/engine/types.js';
import type { QueueModel } from './models.js';

/** What the exchange tells the bot; the venue delivers it with the response (account) or feed (book) latency. */
export interface ExchangeSink {
  account(update: AccountUpdate): void;
  /** The bot's view of a book changed: a recorded update or an own order's level, own sizes included. */
  book(update: BookUpdate): void;
  /** An order ended (its final state) or, at the end of the replay, is still open. */
  orderDone?(order: SimOrder): void;
  /** `queueAheadBase`: the recorded size ahead of the order in its queue when it filled (0 for a taker fill). */
  fill?(fill: Fill, queueAheadBase: number): void;
  /** A funding payment of the account: USD received (negative: paid), the rate applied, exchange time (epoch ns). */
  funding?(symbol: string, amountUsd: number, rate: number, timeNs: bigint): void;
}

export interface ExchangeOptions {
  /** The listed markets (the engine's MarketConfig: steps, fees, margin fractions, funding interval). */
  markets: readonly MarketConfig[];
  /** The traded account (base58 public key). */
  account: string;
  collateralUsd: number;
  queue: QueueModel;
  /** Farthest from the mark a liquidation closes, a fraction. Default 0.05 (the local venue's). */
  liquidationMaxSlippage?: number;
}

type OrderKind = 'limit' | 'market' | 'trigger';

/** One own order at the simulated exchange. */
export class SimOrder {
  status: OrderStatus = 'placed';
  reason: string | undefined = undefined;
  remLots: number;
  filledLots = 0;
  /** Σ ticks × lots of the fills */
  filledValue = 0;
  maker = false;
  /** Base units of the recorded level ahead of this order in its queue. */
  ahead = 0;
  /** `ahead` when it came to rest (undefined: it never rested). */
  aheadAtRest: number | undefined = undefined;
  endedNs = 0n;
  triggerAbove = false;

  constructor(
    readonly id: string,
    readonly m: Market,
    readonly isBuy: boolean,
    readonly kind: OrderKind,
    readonly tif: TimeInForce,
    readonly priceTicks: number,
    readonly triggerTicks: number,
    readonly origLots: number,
    readonly reduceOnly: boolean,
    readonly createdNs: bigint,
    readonly rawPrice: number,
    readonly rawSize: number,
  ) {
    this.remLots = origLots;
  }

  get side(): Side {
    return this.isBuy ? 'buy' : 'sell';
  }

  get price(): number {
    return this.kind === 'market' ? 0 : this.priceTicks > 0 ? this.m.price(this.priceTicks) : this.rawPrice;
  }

  get size(): number {
    return this.origLots > 0 ? this.m.size(this.origLots) : this.rawSize;
  }

  get avgFillPrice(): number {
    return this.m.avgPrice(this.filledValue, this.filledLots);
  }
}

/** The own orders resting at one price: one queue, oldest first; `traded` is what printed there since the last depth update. */
interface OwnLevel {
  readonly ticks: number;
  readonly orders: SimOrder[];
  traded: number;
  lots: number;
}

/**
 * One side of a recorded book in two typed arrays (no allocation per change): keys (the tick count, negated on the ask
 * side) ascending, so the best level is the last and a change near the top moves few levels; sizes alongside.
 */
class RecordedSide {
  private keys = new Float64Array(64);
  private sizes = new Float64Array(64);
  private readonly sign: 1 | -1;
  /** Levels on the side. */
  length = 0;

  constructor(readonly isBid: boolean) {
    this.sign = isBid ? 1 : -1;
  }

  best(): number | undefined {
    return this.length > 0 ? this.sign * this.keys[this.length - 1]! : undefined;
  }

  /** The tick count of level `i`, best first. */
  ticks(i: number): number {
    return this.sign * this.keys[this.length - 1 - i]!;
  }

  /** The size of level `i`, best first. */
  size(i: number): number {
    return this.sizes[this.length - 1 - i]!;
  }

  get(ticks: number): number {
    const k = this.sign * ticks;
    const j = this.find(k);
    return j < this.length && this.keys[j] === k ? this.sizes[j]! : 0;
  }

  /** Sets a level (size 0 deletes it); returns the size it had. */
  set(ticks: number, size: number): number {
    const k = this.sign * ticks;
    const j = this.find(k);
    const found = j < this.length && this.keys[j] === k;
    const prev = found ? this.sizes[j]! : 0;
    if (size > 0) {
      if (!found) this.insert(j, k);
      this.sizes[j] = size;
    } else if (found) this.remove(j);
    return prev;
  }

  clear(): void {
    this.length = 0;
  }

  /** Index of key `k`, or where it would go. */
  private find(k: number): number {
    const a = this.keys;
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a[mid]! < k) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private insert(j: number, k: number): void {
    if (this.length === this.keys.length) {
      const keys = new Float64Array(this.length * 2);
      const sizes = new Float64Array(this.length * 2);
      keys.set(this.keys);
      sizes.set(this.sizes);
      this.keys = keys;
      this.sizes = sizes;
    }
    const keys = this.keys;
    const sizes = this.sizes;
    for (let i = this.length; i > j; i--) {
      keys[i] = keys[i - 1]!;
      sizes[i] = sizes[i - 1]!;
    }
    keys[j] = k;
    this.length++;
  }

  private remove(j: number): void {
    const keys = this.keys;
    const sizes = this.sizes;
    const n = --this.length;
    for (let i = j; i < n; i++) {
      keys[i] = keys[i + 1]!;
      sizes[i] = sizes[i + 1]!;
    }
  }
}

class SimMarket {
  readonly bids = new RecordedSide(true);
  readonly asks = new RecordedSide(false);
  readonly ownBids = new Map<number, OwnLevel>();
  readonly ownAsks = new Map<number, OwnLevel>();
  readonly triggers: SimOrder[] = [];
  /** The best own bid and ask tick counts (-Infinity, Infinity: none), kept with ownBids and ownAsks. */
  ownBidTop = Number.NEGATIVE_INFINITY;
  ownAskTop = Number.POSITIVE_INFINITY;
  /** The deepest own bid and ask tick counts (Infinity, -Infinity: none): a recorded level outside [deepest, top] holds no own order. */
  ownBidDeepest = Number.POSITIVE_INFINITY;
  ownAskDeepest = Number.NEGATIVE_INFINITY;
  /** Latest recorded funding rate (fraction per interval); funding is paid at each interval boundary of venue time. */
  fundingRate = 0;
  nextFundingNs = -1n;

  /** The market's tick step (scale, mantissa), read once for ticks(). */
  private readonly tickScale: number;
  private readonly tickMantissa: number;

  constructor(readonly m: Market) {
    this.tickScale = m.tick.scale;
    this.tickMantissa = m.tick.mantissa;
  }

  ticks(price: number): number {
    return Math.round((price * this.tickScale) / this.tickMantissa);
  }

  /** True when the market has an own resting order. */
  hasOwn(): boolean {
    return this.ownBids.size + this.ownAsks.size > 0;
  }

  lots(size: number): number {
    return Math.floor((size * this.m.lot.scale) / this.m.lot.mantissa + 1e-9);
  }

  /** Call when an own level was added or removed. */
  ownLevelsChanged(): void {
    this.ownBidTop = Number.NEGATIVE_INFINITY;
    this.ownAskTop = Number.POSITIVE_INFINITY;
    this.ownBidDeepest = Number.POSITIVE_INFINITY;
    this.ownAskDeepest = Number.NEGATIVE_INFINITY;
    for (const t of this.ownBids.keys()) {
      this.ownBidTop = Math.max(this.ownBidTop, t);
      this.ownBidDeepest = Math.min(this.ownBidDeepest, t);
    }
    for (const t of this.ownAsks.keys()) {
      this.ownAskTop = Math.min(this.ownAskTop, t);
      this.ownAskDeepest = Math.max(this.ownAskDeepest, t);
    }
  }
}

/** The exchange: call the apply* methods in time order with the exchange time, and `submit` when an action arrives. */
export class SimExchange {
  readonly st: State;
  readonly account: Account;
  private readonly markets = new Map<string, SimMarket>();
  /** The market of the last recorded event (consecutive events are mostly of one market). */
  private lastMarket: SimMarket | undefined;
  private readonly live = new Map<string, SimOrder>();
  private readonly queue: QueueModel;
  private readonly maxSlippage: number;
  private readonly risk = newRisk();
  /** Exchange time of the call being applied, epoch ns. */
  private nowNs = 0n;
  /** Totals for the results, quote units. */
  feesUnits = 0n;
  fundingUnits = 0n;
  tradedNotionalUsd = 0;
  fills = 0;
  liquidations = 0;

  constructor(
    opts: ExchangeOptions,
    private readonly sink: ExchangeSink,
  ) {
    let decimals = 6;
    for (const c of opts.markets) decimals = Math.max(decimals, Market.quoteDecimalsNeeded(c));
    const markets = opts.markets.map((c, i) => new Market(c, i, 10 ** decimals));
    this.st = new State(markets, decimals, 1, { historyLimit: 1, dedupeWindow: 0, maxOpenOrders: 1_000_000 });
    for (const m of markets) this.markets.set(m.symbol, new SimMarket(m));
    this.account = this.st.account(opts.account);
    const units = BigInt(Math.round(opts.collateralUsd * this.st.quoteScale));
    this.account.balance += units;
    this.account.deposits += units;
    this.st.depositsUnits += units;
    this.queue = opts.queue;
    this.maxSlippage = opts.liquidationMaxSlippage ?? 0.05;
  }

  // ------------------------------------------------------------------ views

  /** Equity at the current marks, USD. */
  equityUsd(): number {
    return computeRisk(this.account, this.st.quoteScale, this.risk).equity;
  }

  /** The recorded book's mid price, USD (the mark while a side is empty); undefined for an unknown symbol. */
  midPrice(symbol: string): number | undefined {
    const sm = this.markets.get(symbol);
    if (sm === undefined) return undefined;
    const bid = sm.bids.best();
    const ask = sm.asks.best();
    return bid !== undefined && ask !== undefined ? sm.m.price(bid + ask) / 2 : sm.m.markPrice();
  }

  positionSize(symbol: string): number {
    const sm = this.markets.get(symbol);
    return sm === undefined ? 0 : sm.m.size(this.account.positions[sm.m.index]!.lots);
  }

  openOrders(): VenueOrder[] {
    return [...this.live.values()].map((o) => this.report(o));
  }

  /** The account as a snapshot (what the account stream sends first). */
  snapshot(): AccountUpdate {
    const positions: Position[] = [];
    for (const sm of this.markets.values()) {
      const p = this.account.positions[sm.m.index]!;
      if (p.lots !== 0) positions.push(this.position(sm.m));
    }
    return {
      kind: 'snapshot',
      snapshot: {
        openOrders: this.openOrders(),
        positions,
        collateral: [{ coin: 'USDC', amount: unitsToUsd(this.account.balance, this.st.quoteScale) }],
        leverage: [...this.markets.values()].map((sm) => ({ symbol: sm.m.symbol, leverage: this.account.leverage[sm.m.index]! })),
      },
    };
  }

  /** The book as the bot sees it now (recorded levels plus own sizes), `levels` a side. */
  bookView(symbol: string, levels: number, venueTimeMs: number): BookUpdate | undefined {
    const sm = this.markets.get(symbol);
    if (sm === undefined) return undefined;
    const side = (rec: RecordedSide, own: Map<number, OwnLevel>): BookLevel[] => {
      const ticks = new Set(own.keys());
      for (let i = 0; i < rec.length; i++) ticks.add(rec.ticks(i));
      const sorted = [...ticks].sort((a, b) => (rec.isBid ? b - a : a - b)).slice(0, levels);
      return sorted.map((t) => ({ price: sm.m.price(t), size: rec.get(t) + sm.m.size(own.get(t)?.lots ?? 0), orders: 0 }));
    };
    return { kind: 'snapshot', symbol, bids: side(sm.bids, sm.ownBids), asks: side(sm.asks, sm.ownAsks), venueTimeMs, arrivalNs: 0n };
  }

  /** Sets the account's leverage of `symbol` as the venue does (clamped to 1..min(50, the market's maximum)); returns it, or undefined for a market not listed. */
  setLeverage(symbol: string, leverage: number): number | undefined {
    const sm = this.markets.get(symbol);
    return sm === undefined ? undefined : this.account.setLeverage(sm.m.index, sm.m, leverage);
  }

  /** Reports every order still live to `orderDone` (the end of a replay). */
  finish(): void {
    for (const o of this.live.values()) this.sink.orderDone?.(o);
  }

  // ------------------------------------------------------------------ market data

  /** A recorded book update; before the first ticker the mark price is the recorded mid (the engine's last-trade fallback). */
  applyBook(u: BookUpdate, nowNs: bigint): void {
    const sm = this.recordedMarket(u.symbol);
    if (sm === undefined) return;
    this.nowNs = nowNs;
    /** An own level is at a level of the update (fills can only take own levels away before the overlay). */
    let own = false;
    if (u.kind === 'snapshot') {
      this.replaceSide(sm, sm.bids, sm.ownBids, u.bids);
      this.replaceSide(sm, sm.asks, sm.ownAsks, u.asks);
      own = sm.hasOwn();
    } else {
      const { bids, asks } = u;
      for (let i = 0; i < bids.length; i++) {
        const ticks = sm.ticks(bids[i]!.price);
        const prev = sm.bids.set(ticks, bids[i]!.size);
        if (ticks >= sm.ownBidDeepest && ticks <= sm.ownBidTop) own = this.ownDepthChanged(sm.ownBids, ticks, prev, bids[i]!.size) || own;
      }
      for (let i = 0; i < asks.length; i++) {
        const ticks = sm.ticks(asks[i]!.price);
        const prev = sm.asks.set(ticks, asks[i]!.size);
        if (ticks >= sm.ownAskTop && ticks <= sm.ownAskDeepest) own = this.ownDepthChanged(sm.ownAsks, ticks, prev, asks[i]!.size) || own;
      }
    }
    const m = sm.m;
    if (m.oraclePx === 0) {
      const bid = sm.bids.best();
      const ask = sm.asks.best();
      if (bid !== undefined && ask !== undefined) m.lastTradeTicks = Math.round((bid + ask) / 2);
    }
    if (sm.hasOwn()) this.fillCrossed(sm);
    else this.settle();
    this.sink.book(own ? this.overlay(sm, u) : u);
  }

  /** The listed market of `symbol` (undefined: not listed). */
  private recordedMarket(symbol: string): SimMarket | undefined {
    const last = this.lastMarket;
    if (last !== undefined && last.m.symbol === symbol) return last;
    const sm = this.markets.get(symbol);
    if (sm !== undefined) this.lastMarket = sm;
    return sm;
  }

  applyTrade(t: Trade, nowNs: bigint): void {
    const sm = this.recordedMarket(t.symbol);
    if (sm === undefined) return;
    this.nowNs = nowNs;
    sm.m.lastTradeTicks = sm.ticks(t.price);
    const own = t.takerSide === 'sell' ? sm.ownBids : sm.ownAsks;
    if (own.size === 0) return;
    const ticks = sm.ticks(t.price);
    const isBid = t.takerSide === 'sell';
    if (isBid ? sm.ownBidTop > ticks : sm.ownAskTop < ticks) {
      const through = [...own.values()]
        .filter((l) => (isBid ? l.ticks > ticks : l.ticks < ticks))
        .sort((a, b) => (isBid ? b.ticks - a.ticks : a.ticks - b.ticks));
      for (const level of through) for (const o of [...level.orders]) this.fillResting(sm, o, o.remLots, o.priceTicks);
    }
    const level = own.get(ticks);
    if (level !== undefined) this.consumeQueue(sm, level, t.size);
    this.settle();
  }

  applyTicker(t: Ticker, nowNs: bigint): void {
    const sm = this.markets.get(t.symbol);
    if (sm === undefined) return;
    this.nowNs = nowNs;
    const m = sm.m;
    if (t.markPrice > 0) m.oraclePx = t.markPrice;
    sm.fundingRate = t.fundingRate;
    const interval = m.fundingIntervalNs;
    if (sm.nextFundingNs < 0n) sm.nextFundingNs = (nowNs / interval + 1n) * interval;
    while (sm.nextFundingNs <= nowNs) {
      this.payFunding(sm);
      sm.nextFundingNs += interval;
    }
    this.fireTriggers(sm);
    this.settle();
    if (this.account.positions[m.index]!.lots !== 0 && isUnderwater(this.st, this.account)) this.liquidate();
  }

  // ------------------------------------------------------------------ actions

  /** Applies one v1 order action's items in order (`ids`: the predicted order id of each place item). */
  submit(items: readonly OrderItem[], ids: readonly (string | null)[], nowNs: bigint): ItemResult[] {
    this.nowNs = nowNs;
    const out: ItemResult[] = [];
    items.forEach((item, i) => {
      if ('order' in item) out.push(this.place(item.order, ids[i] ?? `order-${nowNs}-${i}`));
      else if ('cancel' in item) out.push(this.cancelItem(item.cancel.c, item.cancel.oid));
      else {
        const only = item.cancelAll.c.length === 0 ? undefined : new Set(item.cancelAll.c);
        for (const o of [...this.live.values()]) if (only === undefined || only.has(o.m.symbol)) this.cancel(o, 'cancelled', undefined);
        out.push({ kind: 'done' });
      }
      this.settle();
    });
    return out;
  }

  private cancelItem(symbol: string, id: string): ItemResult {
    const o = this.live.get(id);
    if (o === undefined || o.m.symbol !== symbol) return { kind: 'error', message: 'order not found' };
    this.cancel(o, 'cancelled', undefined);
    return { kind: 'order', fact: { orderId: id, status: 'cancelled' } };
  }

  private place(p: PlaceOrder, id: string): ItemResult {
    const sm = this.markets.get(p.c);
    const fallback = sm ?? this.markets.values().next().value!;
    const m = fallback.m;
    let kind: OrderKind = 'limit';
    let tif: TimeInForce = 'GTC';
    let problem: string | undefined = sm === undefined ? 'unknown symbol' : undefined;
    let priceTicks = 0;
    let triggerTicks = 0;
    const lots = m.lot.count(p.sz);
    if (lots <= 0) problem ??= 'size is not a multiple of the lot size';
    if ('limit' in p.t) {
      tif = p.t.limit.tif;
      priceTicks = m.tick.count(p.px);
      if (priceTicks <= 0) problem ??= 'price is not a multiple of the tick size';
    } else {
      tif = 'IOC';
      kind = p.t.trigger.is_market && p.t.trigger.triggerPx === 0 ? 'market' : 'trigger';
      if (kind === 'trigger') {
        triggerTicks = m.tick.count(p.t.trigger.triggerPx);
        if (triggerTicks <= 0) problem ??= 'trigger price is not a multiple of the tick size';
        if (!p.t.trigger.is_market) {
          tif = 'GTC';
          priceTicks = m.tick.count(p.px);
          if (priceTicks <= 0) problem ??= 'price is not a multiple of the tick size';
        }
      }
    }
    const o = new SimOrder(id, m, p.b, kind, tif, priceTicks, triggerTicks, problem === undefined ? lots : 0, p.r, this.nowNs, p.px, p.sz);
    if (problem !== undefined) return this.refuse(o, 'rejectedInvalid', problem);
    if (this.live.has(id)) return this.refuse(o, 'rejectedDuplicate', 'duplicate order id');
    const pos = this.account.positions[m.index]!;
    if (o.reduceOnly && (pos.lots === 0 || pos.lots > 0 === o.isBuy)) return this.refuse(o, 'cancelledReduceOnly', 'would increase the position');
    const book = fallback;
    const refPx = this.referencePrice(book, o);
    if (!o.reduceOnly) {
      if (refPx > 0 && refPx * m.size(lots) < m.minNotionalUsd) return this.refuse(o, 'rejectedInvalid', 'below minimum notional');
      if (!passesInitialMargin(this.account, m, o.isBuy ? lots : 0, o.isBuy ? 0 : lots, refPx, this.st.quoteScale)) {
        return this.refuse(o, 'rejectedRiskLimit', 'insufficient margin');
      }
    }
    if (kind === 'trigger') {
      const mark = m.markPrice();
      o.triggerAbove = mark > 0 ? m.price(triggerTicks) >= mark : o.isBuy;
      book.triggers.push(o);
      this.live.set(id, o);
      this.sink.account({ kind: 'order', order: this.report(o) });
      return { kind: 'order', fact: { orderId: id, status: 'placed' } };
    }
    if (tif === 'ALO') {
      const best = (o.isBuy ? book.asks : book.bids).best();
      if (best !== undefined && (o.isBuy ? best <= priceTicks : best >= priceTicks)) return this.refuse(o, 'rejectedCrossing', 'post-only order would cross');
    }
    this.take(book, o);
    return this.afterTake(book, o);
  }

  private referencePrice(sm: SimMarket, o: SimOrder): number {
    const m = sm.m;
    if (o.kind === 'limit' || (o.kind === 'trigger' && o.priceTicks > 0)) return m.price(o.priceTicks);
    if (o.kind === 'trigger') return m.price(o.triggerTicks);
    const best = (o.isBuy ? sm.asks : sm.bids).best();
    return best !== undefined ? m.price(best) : m.markPrice();
  }

  /** The incoming order takes the recorded opposite levels, best first, up to its limit (taker fee); the book is not depleted. */
  private take(sm: SimMarket, o: SimOrder, cause: FillCause = 'trade', maxTicks?: number): void {
    const side = o.isBuy ? sm.asks : sm.bids;
    const limit = maxTicks ?? (o.kind === 'market' || (o.kind === 'trigger' && o.priceTicks === 0) ? undefined : o.priceTicks);
    const pos = this.account.positions[sm.m.index]!;
    for (let i = 0; i < side.length; i++) {
      const ticks = side.ticks(i);
      if (o.remLots === 0) break;
      if (limit !== undefined && (o.isBuy ? ticks > limit : ticks < limit)) break;
      let q = Math.min(o.remLots, sm.lots(side.size(i)));
      if (o.reduceOnly) q = Math.min(q, Math.max(0, o.isBuy ? -pos.lots : pos.lots));
      if (q <= 0) break;
      this.execute(sm, o, q, ticks, false, cause);
    }
  }

  /** After the taking step: a final status, or the order rests at the back of its level's queue. */
  private afterTake(sm: SimMarket, o: SimOrder): ItemResult {
    const m = sm.m;
    const filled = m.size(o.filledLots);
    if (o.remLots === 0) return this.end(o, 'filled', undefined, { filledSize: filled });
    if (o.kind !== 'limit' && o.priceTicks === 0)
      return this.end(o, 'partiallyFilled', o.filledLots === 0 ? 'no liquidity' : 'book exhausted', { filledSize: filled });
    if (o.tif === 'IOC') return this.end(o, 'cancelledIOC', undefined, { filledSize: filled });
    if (o.reduceOnly && o.filledLots > 0 && this.wouldIncrease(o))
      return this.end(o, 'cancelledReduceOnly', 'would increase the position', { filledSize: filled });
    this.rest(sm, o);
    o.status = o.filledLots > 0 ? 'working' : 'placed';
    this.sink.account({ kind: 'order', order: this.report(o) });
    return { kind: 'order', fact: { orderId: o.id, status: o.status, filledSize: filled } };
  }

  private wouldIncrease(o: SimOrder): boolean {
    const lots = this.account.positions[o.m.index]!.lots;
    return lots === 0 || lots > 0 === o.isBuy;
  }

  private rest(sm: SimMarket, o: SimOrder): void {
    o.maker = true;
    const own = o.isBuy ? sm.ownBids : sm.ownAsks;
    let level = own.get(o.priceTicks);
    if (level === undefined) {
      level = { ticks: o.priceTicks, orders: [], traded: 0, lots: 0 };
      own.set(o.priceTicks, level);
      sm.ownLevelsChanged();
    }
    o.ahead = (o.isBuy ? sm.bids : sm.asks).get(o.priceTicks);
    o.aheadAtRest = o.ahead;
    level.orders.push(o);
    level.lots += o.remLots;
    const p = this.account.positions[sm.m.index]!;
    if (o.isBuy) p.buyOpenLots += o.remLots;
    else p.sellOpenLots += o.remLots;
    this.live.set(o.id, o);
    this.ownLevelChanged(sm, o.isBuy, o.priceTicks);
  }

  /** Takes a resting order off its level (or a parked trigger off the list). */
  private unrest(o: SimOrder): void {
    const sm = this.markets.get(o.m.symbol)!;
    this.live.delete(o.id);
    if (o.kind === 'trigger' && !o.maker) {
      sm.triggers.splice(sm.triggers.indexOf(o), 1);
      return;
    }
    const own = o.isBuy ? sm.ownBids : sm.ownAsks;
    const level = own.get(o.priceTicks)!;
    level.orders.splice(level.orders.indexOf(o), 1);
    level.lots -= o.remLots;
    const p = this.account.positions[sm.m.index]!;
    if (o.isBuy) p.buyOpenLots -= o.remLots;
    else p.sellOpenLots -= o.remLots;
    if (level.orders.length === 0) {
      own.delete(o.priceTicks);
      sm.ownLevelsChanged();
    }
    this.ownLevelChanged(sm, o.isBuy, o.priceTicks);
  }

  private cancel(o: SimOrder, status: OrderStatus, reason: string | undefined): void {
    this.unrest(o);
    this.end(o, status, reason, {});
  }

  private refuse(o: SimOrder, status: OrderStatus, reason: string): ItemResult {
    return this.end(o, status, reason, {});
  }

  /** Ends `o` in `status`: reports it on the account stream and to the results, and answers its item. */
  private end(o: SimOrder, status: OrderStatus, reason: string | undefined, extra: { filledSize?: number }): ItemResult {
    o.status = status;
    o.reason = reason;
    o.endedNs = this.nowNs;
    this.sink.account({ kind: 'order', order: this.report(o) });
    this.sink.orderDone?.(o);
    return { kind: 'order', fact: { orderId: o.id, status, ...extra, ...(reason !== undefined && { reason }) } };
  }

  // ------------------------------------------------------------------ fills

  /** Fills `lots` of resting order `o` at `ticks` as maker (a reduce-only order only as far as it reduces). */
  private fillResting(sm: SimMarket, o: SimOrder, lots: number, ticks: number): void {
    if (lots <= 0 || !this.live.has(o.id)) return;
    if (o.reduceOnly) {
      const pos = this.account.positions[sm.m.index]!.lots;
      const allowed = o.isBuy ? -pos : pos;
      if (allowed <= 0) {
        this.cancel(o, 'cancelledReduceOnly', 'would increase the position');
        return;
      }
      lots = Math.min(lots, allowed);
    }
    const level = (o.isBuy ? sm.ownBids : sm.ownAsks).get(o.priceTicks)!;
    level.lots -= lots;
    const p = this.account.positions[sm.m.index]!;
    if (o.isBuy) p.buyOpenLots -= lots;
    else p.sellOpenLots -= lots;
    this.execute(sm, o, lots, ticks, true, 'trade');
    if (o.remLots === 0) {
      level.orders.splice(level.orders.indexOf(o), 1);
      if (level.orders.length === 0) {
        (o.isBuy ? sm.ownBids : sm.ownAsks).delete(o.priceTicks);
        sm.ownLevelsChanged();
      }
      this.live.delete(o.id);
      this.end(o, 'filled', undefined, {});
    } else {
      o.status = 'working';
      this.sink.account({ kind: 'order', order: this.report(o) });
    }
    this.ownLevelChanged(sm, o.isBuy, o.priceTicks);
  }

  /** Books one fill of `o`: order totals, the engine's position and fee arithmetic, the fill report. */
  private execute(sm: SimMarket, o: SimOrder, lots: number, ticks: number, maker: boolean, cause: FillCause): void {
    const m = sm.m;
    const fee = feeUnits(m, ticks, lots, maker ? m.makerFeeRate : m.takerFeeRate);
    o.remLots -= lots;
    o.filledLots += lots;
    o.filledValue += ticks * lots;
    this.st.nowNs = this.nowNs;
    this.st.applyFill(this.account, m, o.isBuy, lots, ticks, fee, cause === 'liquidation' ? 'liquidation' : 'normal');
    this.feesUnits += BigInt(fee);
    const price = m.price(ticks);
    const size = m.size(lots);
    this.tradedNotionalUsd += price * size;
    this.fills++;
    const fill: Fill = { symbol: m.symbol, orderId: o.id, side: o.side, price, size, feeUsd: fee / this.st.quoteScale, maker, cause, venueTimeNs: this.nowNs };
    this.sink.account({ kind: 'fill', fill });
    this.sink.fill?.(fill, maker ? o.ahead : 0);
  }

  /**
   * A trade of `size` printed at `level`'s price against its side: it takes the recorded size ahead of the first own
   * order, then that order, then what was between it and the next, and so on (one queue); what it took of the recorded
   * size is off every own order's `ahead` and counted in `traded` (so the next depth update does not count it again).
   */
  private consumeQueue(sm: SimMarket, level: OwnLevel, size: number): void {
    level.traded += size;
    let left = size;
    let taken = 0;
    for (const o of [...level.orders]) {
      const gap = Math.max(0, o.ahead - taken);
      const t = Math.min(left, gap);
      left -= t;
      taken += t;
      if (left <= 0) break;
      const q = Math.min(o.remLots, sm.lots(left));
      if (q <= 0) break;
      left -= sm.m.size(q);
      this.fillResting(sm, o, q, level.ticks);
    }
    for (const o of level.orders) o.ahead = Math.max(0, o.ahead - taken);
  }

  private replaceSide(sm: SimMarket, side: RecordedSide, own: Map<number, OwnLevel>, levels: readonly BookLevel[]): void {
    const before = own.size === 0 ? undefined : new Map([...own.keys()].map((t) => [t, side.get(t)]));
    side.clear();
    for (const l of levels) side.set(sm.ticks(l.price), l.size);
    if (before !== undefined) for (const [t, prev] of before) this.depthChanged(own.get(t)!, prev, side.get(t));
  }

  /** A recorded level changed from `prev` to `size`; true when an own level is at its price. */
  private ownDepthChanged(own: Map<number, OwnLevel>, ticks: number, prev: number, size: number): boolean {
    const level = own.get(ticks);
    if (level === undefined) return false;
    this.depthChanged(level, prev, size);
    return true;
  }

  private depthChanged(level: OwnLevel, prev: number, next: number): void {
    for (const o of level.orders) o.ahead = this.queue(o.ahead, prev, next, level.traded);
    level.traded = 0;
  }

  /** Own resting orders the recorded opposite side now reaches are filled at their own price (the book crossed them). */
  private fillCrossed(sm: SimMarket): void {
    const ask = sm.asks.best();
    if (ask !== undefined && sm.ownBidTop >= ask) this.fillCrossedSide(sm, sm.ownBids, sm.asks, true);
    const bid = sm.bids.best();
    if (bid !== undefined && sm.ownAskTop <= bid) this.fillCrossedSide(sm, sm.ownAsks, sm.bids, false);
    this.settle();
  }

  /** Own levels of one side, best first, that the recorded opposite side reaches (its best is `best`) share the size that reaches them. */
  private fillCrossedSide(sm: SimMarket, own: Map<number, OwnLevel>, opposite: RecordedSide, isBid: boolean): void {
    const best = opposite.best()!;
    let used = 0;
    for (const level of [...own.values()].sort((a, b) => (isBid ? b.ticks - a.ticks : a.ticks - b.ticks))) {
      if (isBid ? level.ticks < best : level.ticks > best) break;
      for (const o of [...level.orders]) {
        const q = Math.min(o.remLots, sm.lots(this.sizeThrough(opposite, level.ticks, isBid)) - used);
        if (q <= 0) return;
        used += q;
        this.fillResting(sm, o, q, o.priceTicks);
      }
    }
  }

  /** Recorded size on `side` at prices reaching `ticks` (asks at or below a bid, bids at or above an ask). */
  private sizeThrough(side: RecordedSide, ticks: number, asks: boolean): number {
    let total = 0;
    for (let i = 0; i < side.length; i++) {
      const t = side.ticks(i);
      if (asks ? t > ticks : t < ticks) break;
      total += side.size(i);
    }
    return total;
  }

  // ------------------------------------------------------------------ funding, triggers, liquidation

  /** One interval's funding at the latest recorded rate: longs pay shorts when it is positive (round(|size| × mark × |rate|)). */
  private payFunding(sm: SimMarket): void {
    const m = sm.m;
    const p = this.account.positions[m.index]!;
    const rate = sm.fundingRate;
    const mark = m.markPrice();
    if (p.lots === 0 || rate === 0 || mark <= 0) return;
    const units = fundingUnits(m, p.lots, mark, Math.abs(rate), this.st.quoteScale);
    const signed = p.lots > 0 === rate > 0 ? -units : units;
    const a = this.account;
    a.balance += signed;
    a.funding += signed;
    p.funding += signed;
    this.fundingUnits += signed;
    this.st.touch(a, p);
    this.sink.funding?.(m.symbol, Number(signed) / this.st.quoteScale, rate, this.nowNs);
  }

  private fireTriggers(sm: SimMarket): void {
    if (sm.triggers.length === 0) return;
    const mark = sm.m.markPrice();
    if (mark <= 0) return;
    for (const o of [...sm.triggers]) {
      const px = sm.m.price(o.triggerTicks);
      if (!(o.triggerAbove ? mark >= px : mark <= px)) continue;
      sm.triggers.splice(sm.triggers.indexOf(o), 1);
      this.live.delete(o.id);
      if (o.reduceOnly && this.wouldIncrease(o)) {
        this.end(o, 'cancelledReduceOnly', 'would increase the position', {});
        continue;
      }
      this.take(sm, o);
      this.afterTake(sm, o);
    }
  }

  /** Pending position and margin reports, then liquidation when the account fell below maintenance margin. */
  private settle(): void {
    const st = this.st;
    if (st.dirtyCount === 0) return;
    this.sweepReduceOnly();
    st.flush();
    this.reportAccount();
    if (st.underwater.length > 0) {
      st.underwater.length = 0;
      if (isUnderwater(st, this.account)) this.liquidate();
    }
  }

  private sweepReduceOnly(): void {
    for (const o of [...this.live.values()])
      if (o.reduceOnly && o.maker && this.wouldIncrease(o)) this.cancel(o, 'cancelledReduceOnly', 'would increase the position');
  }

  /**
   * Liquidation: every own order is cancelled (cancelledRiskLimit), then each position closes against the recorded book
   * no further than maxSlippage from the mark; what the book cannot take closes at the mark (the venue's auto-deleveraging price).
   */
  private liquidate(): void {
    const st = this.st;
    const marginBeforeUsd = computeRisk(this.account, st.quoteScale, this.risk).equity;
    for (const o of [...this.live.values()]) this.cancel(o, 'cancelledRiskLimit', 'liquidation');
    this.liquidations++;
    const closed: { m: Market; price: number; size: number; side: Side }[] = [];
    for (const sm of this.markets.values()) {
      const m = sm.m;
      const p = this.account.positions[m.index]!;
      if (p.lots === 0) continue;
      const isBuy = p.lots < 0;
      const mark = m.markPrice();
      const perTick = m.tick.scale / m.tick.mantissa;
      const limit = isBuy ? Math.floor(mark * (1 + this.maxSlippage) * perTick) : Math.ceil(mark * (1 - this.maxSlippage) * perTick);
      const o = new SimOrder(`liquidation-${this.nowNs}-${m.symbol}`, m, isBuy, 'market', 'IOC', 0, 0, Math.abs(p.lots), true, this.nowNs, 0, 0);
      this.take(sm, o, 'liquidation', limit);
      if (o.remLots > 0) this.execute(sm, o, o.remLots, Math.max(1, Math.round(mark * perTick)), false, 'liquidation');
      closed.push({ m, price: o.avgFillPrice, size: m.size(o.filledLots), side: o.side });
    }
    st.flush();
    this.reportAccount();
    st.underwater.length = 0;
    const marginAfterUsd = computeRisk(this.account, st.quoteScale, this.risk).equity;
    for (const c of closed) {
      this.sink.account({
        kind: 'liquidation',
        liquidation: {
          symbol: c.m.symbol,
          price: c.price,
          size: c.size,
          side: c.side,
          marginBeforeUsd,
          marginAfterUsd,
          reason: 'below maintenance margin',
          venueTimeNs: this.nowNs,
        },
      });
    }
  }

  /** Turns the engine's position and margin events into account updates. */
  private reportAccount(): void {
    const events = this.st.events;
    this.st.events = [];
    for (const e of events) {
      if (e.type === 'positionUpdate') {
        const position: Position = {
          symbol: e.symbol,
          size: e.size,
          entryPrice: e.price,
          realizedPnlUsd: e.realizedPnl,
          leverage: e.leverage,
          unrealizedPnlUsd: e.unrealizedPnl,
          liquidationPrice: undefined,
        };
        this.sink.account({ kind: 'position', position });
      } else if (e.type === 'marginUpdate') {
        const margin: Margin = {
          totalBalanceUsd: e.totalBalance,
          availableBalanceUsd: e.availableBalance,
          marginUsedUsd: e.marginUsed,
          notionalUsd: e.notional,
          realizedPnlUsd: e.realizedPnl,
          unrealizedPnlUsd: e.unrealizedPnl,
          feesUsd: e.fees,
          fundingUsd: e.funding,
        };
        this.sink.account({ kind: 'margin', margin });
      }
    }
  }

  private position(m: Market): Position {
    const p = this.account.positions[m.index]!;
    const size = m.size(p.lots);
    const mark = m.markPrice();
    return {
      symbol: m.symbol,
      size,
      entryPrice: this.st.entryPrice(p),
      realizedPnlUsd: unitsToUsd(p.realized, this.st.quoteScale),
      leverage: this.account.leverage[m.index]!,
      unrealizedPnlUsd: size * mark - unitsToUsd(p.signedCost(), this.st.quoteScale),
      liquidationPrice: undefined,
    };
  }

  // ------------------------------------------------------------------ the bot's book view

  /** A recorded update with own sizes added at their levels (a snapshot also gets the levels only own orders hold). */
  private overlay(sm: SimMarket, u: BookUpdate): BookUpdate {
    const bids = this.overlaySide(sm, u, u.bids, sm.ownBids, true);
    const asks = this.overlaySide(sm, u, u.asks, sm.ownAsks, false);
    return bids === u.bids && asks === u.asks ? u : { kind: u.kind, symbol: u.symbol, bids, asks, venueTimeMs: u.venueTimeMs, arrivalNs: u.arrivalNs };
  }

  private overlaySide(sm: SimMarket, u: BookUpdate, levels: readonly BookLevel[], own: Map<number, OwnLevel>, isBid: boolean): readonly BookLevel[] {
    if (u.kind === 'delta') {
      if (own.size === 0) return levels;
      let touched = false;
      for (let i = 0; i < levels.length && !touched; i++) touched = own.has(sm.ticks(levels[i]!.price));
      if (!touched) return levels;
    }
    const m = sm.m;
    const out = new Array<BookLevel>(levels.length);
    for (let i = 0; i < levels.length; i++) {
      const l = levels[i]!;
      const o = own.get(sm.ticks(l.price));
      out[i] = o === undefined ? l : { price: l.price, size: l.size + m.size(o.lots), orders: l.orders + o.orders.length };
    }
    if (u.kind === 'snapshot') {
      const present = new Set(levels.map((l) => sm.ticks(l.price)));
      for (const o of own.values()) if (!present.has(o.ticks)) out.push({ price: m.price(o.ticks), size: m.size(o.lots), orders: o.orders.length });
      out.sort((a, b) => (isBid ? b.price - a.price : a.price - b.price));
    }
    return out;
  }

  /** An own order's level changed: the bot's book gets the level's recorded plus own size. */
  private ownLevelChanged(sm: SimMarket, isBid: boolean, ticks: number): void {
    const own = (isBid ? sm.ownBids : sm.ownAsks).get(ticks);
    const level: BookLevel = {
      price: sm.m.price(ticks),
      size: (isBid ? sm.bids : sm.asks).get(ticks) + sm.m.size(own?.lots ?? 0),
      orders: own?.orders.length ?? 0,
    };
    this.sink.book({
      kind: 'delta',
      symbol: sm.m.symbol,
      bids: isBid ? [level] : [],
      asks: isBid ? [] : [level],
      venueTimeMs: Number(this.nowNs / 1_000_000n),
      arrivalNs: 0n,
    });
  }

  private report(o: SimOrder): VenueOrder {
    return {
      orderId: o.id,
      symbol: o.m.symbol,
      side: o.side,
      price: o.price,
      originalSize: o.size,
      remainingSize: o.m.size(o.remLots),
      filledSize: o.m.size(o.filledLots),
      avgFillPrice: o.avgFillPrice,
      maker: o.maker,
      status: o.status,
      venueTimeNs: this.nowNs,
      reason: o.reason,
      reduceOnly: o.reduceOnly,
      tif: o.tif,
    };
  }
}
