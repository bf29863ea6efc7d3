// Pre-trade risk engine: decides each planned operation against the limits and the trading state.
// Invariants: never throws for a denial; cancels are only ever denied by the cancel rate limit; only
// approved operations consume rate tokens; a NaN anywhere in the inputs denies rather than approves.

import { BehaviorSubject } from 'rxjs';
import { systemClock, type Clock } from '../core/clock.js';
import { triggersAbove, type OrderSpec } from '../core/intent.js';
import type { RateConfig, RiskConfig } from './config.js';
import type { PlannedOp, RiskDecision, RiskGate, RiskReason, RiskView, TradingState, TradingStateChange } from './types.js';

type OpenSizes = ReturnType<RiskView['openOrderSizes']>;

/** A RiskView that can also list the symbols with positions or orders, each once (then all of them count in the totals). */
export type RiskViewWithSymbols = RiskView & { symbols?(): Iterable<string> };

/** The gate plus what the app needs to run it. */
export interface RiskEngine extends RiskGate {
  readonly config: RiskConfig;
  /**
   * Re-evaluates the time- and PnL-based rules (disconnection grace, daily loss) at `nowMs` (epoch ms).
   * Every `check`, `onVenueReject` and `onConnection` does this too; the app calls it on a timer (about
   * once a second) so state$ shows a rule firing while no operation arrives.
   */
  evaluate(nowMs: number): void;
}

const OK: RiskDecision = Object.freeze({ ok: true });
const DAY_MS = 86_400_000;
const SEVERITY: Record<TradingState, number> = { ACTIVE: 0, REDUCING: 1, HALTED: 2 };

function deny(reason: RiskReason, detail: string): RiskDecision {
  return { ok: false, reason, detail };
}

/** Short decimal text for details. */
function fmt(x: number): string {
  return Number.isFinite(x) ? String(Number(x.toPrecision(10))) : String(x);
}

/** Token bucket on caller-supplied time; starts full; time going backwards refills nothing. */
class Bucket {
  private tokens: number;
  private atMs: number | undefined;

  constructor(private readonly rate: RateConfig) {
    this.tokens = rate.burst;
  }

  /** True when a token is available at `nowMs` (does not take it). */
  available(nowMs: number): boolean {
    this.refill(nowMs);
    return this.tokens >= 1;
  }

  take(): void {
    this.tokens -= 1;
  }

  private refill(nowMs: number): void {
    if (this.atMs !== undefined && nowMs > this.atMs) {
      this.tokens = Math.min(this.rate.burst, this.tokens + ((nowMs - this.atMs) / 1000) * this.rate.perSecond);
    }
    if (this.atMs === undefined || nowMs > this.atMs) this.atMs = nowMs;
  }
}

/** Why the gate is not ACTIVE: one slot per source; the most severe (then the most recent) one rules. */
interface Condition {
  readonly state: Exclude<TradingState, 'ACTIVE'>;
  readonly reason: string;
  readonly seq: number;
}
type Source = 'manual' | 'rejects' | 'disconnect' | 'dailyLoss';

/**
 * Creates the gate. `clock` gives the time of `halt`, `reduceOnly` and `resume` (which take none);
 * every other method uses its `nowMs` argument. Places in a market whose stream data the view reports stale are
 * denied STREAM_STALE. Rules:
 * - daily loss beyond the limit → REDUCING; once it has lasted `dailyLossConfirmMs`, until the next UTC day (or resume,
 *   re-applied while still breached); a reading that recovers sooner (a momentary equity of 0) lifts it;
 * - `repeatedRejects.count` venue rejections within the window → HALTED until resume;
 * - connection lost longer than `disconnectGraceMs` → HALTED until the connection is restored;
 * - halt / reduceOnly (kill switch) → HALTED / REDUCING until resume. `resume` clears the manual, reject
 *   and loss conditions; a lost connection stays in force.
 */
export function createRiskGate(config: RiskConfig, view: RiskViewWithSymbols, clock: Clock = systemClock()): RiskEngine {
  const orders = new Bucket(config.orderRate);
  const cancels = new Bucket(config.cancelRate);
  const conditions = new Map<Source, Condition>();
  let seq = 0;
  const state$ = new BehaviorSubject<TradingStateChange>({ state: 'ACTIVE', reason: 'started', atMs: clock.nowMs() });
  let ruling: Condition | undefined;

  const rejectTimesMs: number[] = [];
  const ignoredRejects = new Set(config.repeatedRejects.ignoreStatuses);
  let disconnectedSinceMs: number | undefined;
  /** Since when the loss has been beyond the limit (unconfirmed), and the UTC day of a confirmed (latched) breach. */
  let lossSinceMs: number | undefined;
  let lossLatchDay: number | undefined;
  const seen = new Set<string>([...Object.keys(config.maxPositionNotionalUsdBySymbol), ...Object.keys(config.maxOrderSizeBaseBySymbol)]);

  /** The reason given to a return to ACTIVE: the last condition lifted (or resume's reason). */
  let liftReason = 'started';

  /** Emits the ruling (state, reason) when it changed; called once at the end of every public method. */
  function publish(atMs: number): void {
    let top: Condition | undefined;
    for (const c of conditions.values()) {
      if (!top || SEVERITY[c.state] > SEVERITY[top.state] || (c.state === top.state && c.seq > top.seq)) top = c;
    }
    const state: TradingState = top?.state ?? 'ACTIVE';
    if (state === state$.getValue().state && top === ruling) return;
    ruling = top;
    state$.next({ state, reason: top?.reason ?? liftReason, atMs });
  }

  function set(source: Source, state: Condition['state'], reason: string): void {
    const old = conditions.get(source);
    if (old && old.state === state && old.reason === reason) return;
    conditions.set(source, { state, reason, seq: ++seq });
  }

  function clear(source: Source, reason: string): void {
    if (conditions.delete(source)) liftReason = reason;
  }

  /** Applies the time- and PnL-based rules at `nowMs` (publishing is left to the caller). */
  function applyRules(nowMs: number): void {
    if (disconnectedSinceMs !== undefined && nowMs - disconnectedSinceMs >= config.disconnectGraceMs && !conditions.has('disconnect')) {
      set('disconnect', 'HALTED', `venue connection lost for ${fmt(nowMs - disconnectedSinceMs)} ms (grace ${config.disconnectGraceMs} ms)`);
    }
    const day = Math.floor(nowMs / DAY_MS);
    const pnlUsd = view.pnlTodayUsd();
    if (pnlUsd < -config.dailyLossLimitUsd) {
      lossSinceMs ??= nowMs;
      if (lossLatchDay !== undefined || nowMs - lossSinceMs >= config.dailyLossConfirmMs) lossLatchDay = Math.max(lossLatchDay ?? day, day);
      if (!conditions.has('dailyLoss')) set('dailyLoss', 'REDUCING', `daily loss ${fmt(-pnlUsd)} USD beyond the limit of ${config.dailyLossLimitUsd} USD`);
    } else if (lossLatchDay !== undefined) {
      if (day > lossLatchDay) {
        lossLatchDay = undefined;
        lossSinceMs = undefined;
        clear('dailyLoss', 'daily loss limit reset at the start of the UTC day');
      }
    } else if (lossSinceMs !== undefined) {
      clear(
        'dailyLoss',
        `daily loss reading recovered to ${fmt(-pnlUsd)} USD within ${fmt(nowMs - lossSinceMs)} ms (confirmation ${config.dailyLossConfirmMs} ms)`,
      );
      lossSinceMs = undefined;
    }
  }

  function evaluate(nowMs: number): void {
    applyRules(nowMs);
    publish(nowMs);
  }

  /** Worst-case position if every open order filled, base units, ≥ 0: max(long side, short side). */
  function worstCase(pos: number, open: OpenSizes): number {
    return Math.max(pos + Math.abs(open.buy), Math.abs(open.sell) - pos, 0);
  }

  /** True when filling `order` (with the same side's open orders) only moves the position `pos` toward zero. */
  function reduces(order: OrderSpec, pos: number, open: OpenSizes): boolean {
    if (order.reduceOnly) return true;
    if (order.side === 'sell') return pos > 0 && Math.abs(open.sell) + order.size <= pos;
    return pos < 0 && Math.abs(open.buy) + order.size <= -pos;
  }

  /** The decision on a place; `take` (false for a dry run, which changes nothing): note the market, take the rate token. */
  function checkPlace(op: Extract<PlannedOp, { kind: 'place' }>, nowMs: number, take: boolean): RiskDecision {
    const { order, stamp } = op;
    const { symbol } = order;
    const current = state$.getValue();
    if (current.state === 'HALTED') return deny('HALTED', `trading halted: ${current.reason}`);
    const market = view.market(symbol);
    if (!market) return deny('UNKNOWN_MARKET', `unknown market ${symbol}`);
    if (take) seen.add(symbol);
    const stale = view.staleData?.(symbol);
    if (stale !== undefined) return deny('STREAM_STALE', `${symbol} market data is stale (${stale}); places resume once data flows again`);
    if (!(stamp.dataTimeMs >= nowMs - config.staleInputBudgetMs)) {
      return deny('STALE_INPUT', `computed from data ${fmt(nowMs - stamp.dataTimeMs)} ms old (budget ${config.staleInputBudgetMs} ms)`);
    }
    const pos = view.position(symbol);
    const open = view.openOrderSizes(symbol);
    const reducing = reduces(order, pos, open);
    const pnlUsd = view.pnlTodayUsd();
    if (!reducing && !(pnlUsd >= -config.dailyLossLimitUsd)) {
      return deny('DAILY_LOSS', `daily PnL ${fmt(pnlUsd)} USD is beyond the loss limit of ${config.dailyLossLimitUsd} USD; only reducing orders`);
    }
    if (!reducing && current.state === 'REDUCING') return deny('REDUCING', `only position-reducing orders: ${current.reason}`);

    const mark = view.markPrice(symbol);
    if (mark === undefined || !(mark > 0) || !Number.isFinite(mark)) return deny('NO_MARK_PRICE', `no mark price for ${symbol}`);

    const maxSize = config.maxOrderSizeBaseBySymbol[symbol] ?? config.maxOrderSizeBase;
    if (!(order.size > 0 && Number.isFinite(order.size))) return deny('MAX_ORDER_SIZE', `size ${fmt(order.size)} is not a positive number`);
    if (maxSize !== undefined && !(order.size <= maxSize))
      return deny('MAX_ORDER_SIZE', `size ${fmt(order.size)} exceeds ${fmt(maxSize)} (base units, ${symbol})`);

    const trigger = order.trigger;
    if (trigger?.kind === 'stop' || trigger?.kind === 'takeProfit') {
      const px = trigger.triggerPrice;
      const above = triggersAbove(order.side, trigger.kind);
      if (!(above ? px > mark : px < mark)) {
        return deny(
          'TRIGGER_PRICE',
          `a ${order.side} ${trigger.kind} fires at or ${above ? 'above' : 'below'} its trigger: ${fmt(px)} must be ${above ? 'above' : 'below'} mark ${fmt(mark)}`,
        );
      }
    }
    if (trigger?.kind === 'range' && !(trigger.low < mark && mark < trigger.high))
      return deny('TRIGGER_PRICE', `a range fires at once unless mark ${fmt(mark)} lies strictly between ${fmt(trigger.low)} and ${fmt(trigger.high)}`);
    // A stop or take-profit is valued where it fires (as the venue does for its margin); its limit, if any, is banded there.
    const referenceUsd = trigger?.kind === 'stop' || trigger?.kind === 'takeProfit' ? trigger.triggerPrice : mark;
    const price = order.price ?? referenceUsd;
    if (!(price > 0 && Number.isFinite(price))) return deny('PRICE_BAND', `price ${fmt(price)} is not a positive number`);
    const notionalUsd = order.size * price;
    if (!(notionalUsd <= config.maxOrderNotionalUsd))
      return deny('MAX_ORDER_NOTIONAL', `notional ${fmt(notionalUsd)} USD exceeds ${config.maxOrderNotionalUsd} USD`);

    if (order.price !== undefined) {
      const distanceBps = (Math.abs(order.price - referenceUsd) / referenceUsd) * 10_000;
      if (!(distanceBps <= config.priceBandBps)) {
        const from = trigger === undefined ? `mark ${fmt(mark)}` : `trigger ${fmt(referenceUsd)}`;
        return deny('PRICE_BAND', `price ${fmt(order.price)} is ${fmt(distanceBps)} bps from ${from} (band ${config.priceBandBps} bps)`);
      }
    }

    const openOrders = view.openOrderCount();
    if (!(openOrders + 1 <= config.maxOpenOrders)) return deny('MAX_OPEN_ORDERS', `${openOrders} open orders; limit ${config.maxOpenOrders}`);

    const exposure = checkExposure(order, mark, pos, open);
    if (exposure !== OK) return exposure;

    if (!orders.available(nowMs)) return deny('ORDER_RATE', `order rate limit ${config.orderRate.perSecond}/s (burst ${config.orderRate.burst}) reached`);
    if (take) orders.take();
    return OK;
  }

  /** Every market but `symbol` once: those seen, then the view's others (both lists are free of repeats). */
  function* otherMarkets(symbol: string): Generator<string> {
    for (const s of seen) if (s !== symbol) yield s;
    if (view.symbols) for (const s of view.symbols()) if (s !== symbol && !seen.has(s)) yield s;
  }

  /** Worst-case exposure of another market, USD (0 without any); a denial when it has exposure but no mark price. */
  function otherExposureUsd(s: string): number | RiskDecision {
    const base = worstCase(view.position(s), view.openOrderSizes(s));
    if (base === 0) return 0;
    const m = view.markPrice(s);
    if (m === undefined || !(m > 0) || !Number.isFinite(m)) return deny('NO_MARK_PRICE', `no mark price for ${s} (needed for the total position)`);
    return base * m;
  }

  /** Position, total position and leverage limits, for orders that grow the worst-case exposure (`pos`, `open`: the order's market). */
  function checkExposure(order: OrderSpec, mark: number, pos: number, open: OpenSizes): RiskDecision {
    if (order.reduceOnly) return OK;
    const { symbol } = order;
    const sideBase = order.side === 'buy' ? pos + Math.abs(open.buy) + order.size : Math.abs(open.sell) + order.size - pos;
    if (sideBase <= worstCase(pos, open)) return OK;

    const maxPositionUsd = config.maxPositionNotionalUsdBySymbol[symbol] ?? config.maxPositionNotionalUsd;
    const positionUsd = sideBase * mark;
    if (!(positionUsd <= maxPositionUsd)) {
      return deny('MAX_POSITION', `${symbol} worst-case position ${fmt(positionUsd)} USD would exceed ${maxPositionUsd} USD`);
    }

    let totalUsd = positionUsd;
    for (const s of otherMarkets(symbol)) {
      const usd = otherExposureUsd(s);
      if (typeof usd !== 'number') return usd;
      totalUsd += usd;
    }
    if (!(totalUsd <= config.maxTotalPositionNotionalUsd)) {
      return deny('MAX_TOTAL_POSITION', `total worst-case position ${fmt(totalUsd)} USD would exceed ${config.maxTotalPositionNotionalUsd} USD`);
    }

    const maxLeverage = Math.min(view.market(symbol)?.maxLeverage ?? 0, config.maxLeverage);
    const equityUsd = view.equityUsd();
    if (equityUsd === undefined || !(equityUsd > 0))
      return deny('LEVERAGE', `equity unknown or not positive (${equityUsd === undefined ? 'unknown' : fmt(equityUsd)} USD)`);
    const leverage = totalUsd / equityUsd;
    if (!(leverage <= maxLeverage)) {
      return deny('LEVERAGE', `leverage ${fmt(leverage)}x (${fmt(totalUsd)} USD / ${fmt(equityUsd)} USD equity) would exceed ${fmt(maxLeverage)}x`);
    }
    return OK;
  }

  /** check() after the rules were evaluated; `take` as in checkPlace. */
  function decide(op: PlannedOp, nowMs: number, take: boolean): RiskDecision {
    if (op.kind === 'place') return checkPlace(op, nowMs, take);
    if (take && view.market(op.symbol)) seen.add(op.symbol);
    if (!cancels.available(nowMs)) return deny('CANCEL_RATE', `cancel rate limit ${config.cancelRate.perSecond}/s (burst ${config.cancelRate.burst}) reached`);
    if (take) cancels.take();
    return OK;
  }

  const gate: RiskEngine = {
    config,
    get state() {
      return state$.getValue().state;
    },
    state$: state$.asObservable(),

    check(op, nowMs) {
      evaluate(nowMs);
      return decide(op, nowMs, true);
    },

    wouldApprove(op, nowMs) {
      return decide(op, nowMs, false);
    },

    halt(reason) {
      set('manual', 'HALTED', reason);
      publish(clock.nowMs());
    },

    reduceOnly(reason) {
      set('manual', 'REDUCING', reason);
      publish(clock.nowMs());
    },

    resume(reason) {
      liftReason = reason;
      conditions.delete('manual');
      conditions.delete('rejects');
      conditions.delete('dailyLoss');
      lossLatchDay = undefined;
      lossSinceMs = undefined;
      rejectTimesMs.length = 0;
      publish(clock.nowMs());
    },

    onVenueReject(status, nowMs) {
      applyRules(nowMs);
      if (!ignoredRejects.has(status)) {
        rejectTimesMs.push(nowMs);
        const fromMs = nowMs - config.repeatedRejects.windowMs;
        while (rejectTimesMs.length > 0 && rejectTimesMs[0]! < fromMs) rejectTimesMs.shift();
        if (rejectTimesMs.length >= config.repeatedRejects.count && !conditions.has('rejects')) {
          set('rejects', 'HALTED', `${rejectTimesMs.length} venue rejections within ${config.repeatedRejects.windowMs} ms (last: ${status})`);
        }
      }
      publish(nowMs);
    },

    onConnection(connected, nowMs) {
      if (connected) {
        disconnectedSinceMs = undefined;
        clear('disconnect', 'venue connection restored');
      } else {
        disconnectedSinceMs ??= nowMs;
      }
      evaluate(nowMs);
    },

    evaluate,
  };
  return gate;
}
