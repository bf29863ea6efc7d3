// The strategy plugin API: defineStrategy, the context a strategy runs in, and pure quoting helpers.
// Invariants: the ONLY project file plugins import (it re-exports everything they need); helpers are pure, never read the time.

import type { Observable, SchedulerLike } from 'rxjs';
import type { AccountOrder, AccountPosition, AccountState } from '../account/state.js';
import type { Fill } from '../core/account-data.js';
import type { Clock } from '../core/clock.js';
import { StrategyError } from '../core/errors.js';
import { FifoMap } from '../core/fifo-map.js';
import { TERMINAL_STATUSES, type DataStamp, type Intent, type OrderEvent } from '../core/intent.js';
import type { BookLevel, MarketRules, Ticker, Trade } from '../core/market-data.js';
import type { Schema } from '../core/schema.js';
import type { BookSide, BookView } from '../market/book.js';

export type { DataStamp, Intent, LocalOrderStatus, OrderEvent, OrderRef, OrderSpec, OrderStatus, QuoteSpec, Side, TriggerSpec } from '../core/intent.js';
export { closingTrigger, TERMINAL_STATUSES, triggersAbove } from '../core/intent.js';
export type { TimeInForce } from '../core/types.js';
export { symbolSchema } from '../core/types.js';
export { withDefault } from '../core/schema.js';
export type { Clock } from '../core/clock.js';
export type { AccountOrder, AccountPosition, AccountState, BookLevel, BookSide, BookView, Fill, MarketRules, Ticker, Trade };
export type { FillCause, Margin } from '../core/account-data.js';
export type { Infer, Schema } from '../core/schema.js';
/** The validator library (the one the config uses) for a strategy's `params`. */
export * as schema from '../core/schema.js';

// ---------------------------------------------------------------------------------------------
// Context

/** Market data of the strategy's markets (asking for another market throws StrategyError). */
export interface StrategyMarket {
  /** The live book after changes, conflated; read it synchronously when it is emitted (it keeps changing). */
  book$(symbol: string): Observable<BookView>;
  /** Public trades, one emission per trade. */
  trades$(symbol: string): Observable<Trade>;
  ticker$(symbol: string): Observable<Ticker>;
}

export interface StrategyAccount {
  /** The account's state after every change (positions, open orders, margin); replays the current one. */
  readonly state$: Observable<AccountState>;
  /** Fills of the account in the strategy's markets (all orders of the account, not only this strategy's). */
  readonly fills$: Observable<Fill>;
  /** Changes of this strategy's own orders, as execution learned them (rejections included). */
  readonly orders$: Observable<OrderEvent>;
}

/** pino-compatible: structured fields first, then the message. */
export interface StrategyLogger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * Label values must come from a small fixed set (a side, a level index, a reason): never an order id,
 * a price or a time. Implementations drop series beyond MAX_SERIES_PER_METRIC.
 */
export type MetricLabels = Readonly<Record<string, string>>;

export interface MetricOptions {
  readonly help?: string;
  /** Every label name the metric uses (at most MAX_LABEL_NAMES); other names throw StrategyError. */
  readonly labelNames?: readonly string[];
}

export interface HistogramOptions extends MetricOptions {
  /** Upper bounds in the metric's base unit (seconds, base units ...). */
  readonly buckets?: readonly number[];
}

export interface CounterMetric {
  inc(value?: number, labels?: MetricLabels): void;
}

export interface GaugeMetric {
  set(value: number, labels?: MetricLabels): void;
  inc(value?: number, labels?: MetricLabels): void;
  dec(value?: number, labels?: MetricLabels): void;
}

export interface HistogramMetric {
  observe(value: number, labels?: MetricLabels): void;
}

/**
 * Metrics of one strategy. Names are snake_case in base units (`_seconds`, `_total`); the daemon
 * prefixes them and adds the strategy's name as a label. Asking twice for a name returns the same metric.
 */
export interface StrategyMetrics {
  counter(name: string, opts?: MetricOptions): CounterMetric;
  gauge(name: string, opts?: MetricOptions): GaugeMetric;
  histogram(name: string, opts?: HistogramOptions): HistogramMetric;
}

export const MAX_LABEL_NAMES = 4;
export const MAX_SERIES_PER_METRIC = 64;

/** Figures a strategy shows in the daemon's /status (`strategies[i].report`): finite numbers, strings, booleans or null. */
export type StrategyReport = Readonly<Record<string, number | string | boolean | null>>;

/** What a running strategy sees of the world. */
export interface StrategyContext {
  /** The strategy instance's name (unique in the daemon). */
  readonly name: string;
  /** The markets the strategy may use (empty: not restricted). */
  readonly symbols: readonly string[];
  readonly market: StrategyMarket;
  readonly account: StrategyAccount;
  readonly clock: Clock;
  /** Run every time-based operator (throttleTime, timer, ...) on this scheduler, so backtests run in virtual time. */
  readonly scheduler: SchedulerLike;
  /** Rules of `symbol`; throws StrategyError for a market the venue does not list. */
  rules(symbol: string): MarketRules;
  readonly log: StrategyLogger;
  readonly metrics: StrategyMetrics;
  /**
   * Replaces the figures shown for this strategy in /status (progress, average price ...); they stay after it stops.
   * Throws StrategyError for a value that is not a finite number, a string, a boolean or null.
   */
  report(fields: StrategyReport): void;
}

// ---------------------------------------------------------------------------------------------
// Definition

/** Flattening on stop: what a strategy asks for in `StrategySpec.closeOnStop`. */
export interface CloseOnStop {
  /**
   * Farthest the closing orders' limit price may be from the mid when the strategy stops, basis points (> 0, at most
   * 1000). The orders are reduce-only IOC: what the book does not fill within the bound stays open as a position.
   */
  readonly maxSlippageBps: number;
}

/** Largest `closeOnStop.maxSlippageBps` (10 %). */
export const MAX_CLOSE_SLIPPAGE_BPS = 1000;

/** A size a strategy's params set, declared so that it is checked against the market before anything trades. */
export interface SizeDeclaration {
  readonly symbol: string;
  /** Base units, as the params give it (before any rounding to the lot). */
  readonly size: number;
  /** Path of the value inside the params (`size`, `legs[1].qty`); problems name `strategies[i].params.<key>`. */
  readonly key: string;
}

export interface StrategySpec<P> {
  /** Lower-case words joined by dashes (`market-maker`). */
  readonly name: string;
  readonly description?: string;
  /** Validator of the params from the config (errors name `strategies[i].params.<path>`). */
  readonly params: Schema<P>;
  /** The markets the strategy trades, from its params (the daemon subscribes them; intents elsewhere are refused). */
  readonly symbols?: (params: P) => readonly string[];
  /**
   * The order sizes these params set. The daemon's start and `perpbot check-config --online` check each against the
   * venue's lot (below one lot is an error: nothing would be placed); `check-config --online` also against the
   * market's minimum notional at the current mid. Absent: the sizes are not checked.
   */
  readonly orderSizes?: (params: P) => readonly SizeDeclaration[];
  /** The largest absolute positions these params allow; `check-config --online` weighs their notional against the account's collateral. */
  readonly maxPositions?: (params: P) => readonly SizeDeclaration[];
  /**
   * Builds the strategy's intent stream. Called once per start; the host subscribes to the result and
   * unsubscribes it on stop. Throwing, erroring or emitting an invalid intent stops this strategy only.
   * Emitted intents must not be mutated afterwards.
   */
  create(ctx: StrategyContext, params: P): Observable<Intent>;
  /**
   * Close the account's position in the strategy's markets (`symbols`) when the strategy stops (after its orders are
   * cancelled), by reduce-only IOC orders within `maxSlippageBps` of the mid; the outcome is in the stop log line.
   * Absent: the position is left as it is.
   */
  readonly closeOnStop?: CloseOnStop;
}

/** Brand shared by every copy of this module (Symbol.for), checked by the loader. */
export const STRATEGY_BRAND: unique symbol = Symbol.for('perpbot.strategy-definition');

export interface StrategyDefinition<P = unknown> extends StrategySpec<P> {
  readonly [STRATEGY_BRAND]: 1;
}

const STRATEGY_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/**
 * The default export of a strategy module. Throws StrategyError when `spec` is malformed (bad name,
 * `params` not a schema, `create` not a function), so a broken plugin fails when it is loaded.
 */
export function defineStrategy<P>(spec: StrategySpec<P>): StrategyDefinition<P> {
  if (typeof spec.name !== 'string' || !STRATEGY_NAME.test(spec.name))
    throw new StrategyError(`strategy name must be lower-case words joined by dashes, got ${JSON.stringify(spec.name)}`);
  if (typeof spec.params?.run !== 'function') throw new StrategyError(`strategy ${spec.name}: params must be a schema`);
  if (typeof spec.create !== 'function') throw new StrategyError(`strategy ${spec.name}: create must be a function`);
  for (const key of ['symbols', 'orderSizes', 'maxPositions'] as const) {
    if (spec[key] !== undefined && typeof spec[key] !== 'function') throw new StrategyError(`strategy ${spec.name}: ${key} must be a function of the params`);
  }
  if (spec.closeOnStop !== undefined) {
    const bps = (spec.closeOnStop as Partial<CloseOnStop> | null)?.maxSlippageBps;
    if (!(typeof bps === 'number' && bps > 0 && bps <= MAX_CLOSE_SLIPPAGE_BPS)) {
      throw new StrategyError(
        `strategy ${spec.name}: closeOnStop.maxSlippageBps must be a number > 0 and <= ${MAX_CLOSE_SLIPPAGE_BPS}, got ${JSON.stringify(bps)}`,
      );
    }
    if (spec.symbols === undefined) throw new StrategyError(`strategy ${spec.name}: closeOnStop needs symbols (the markets whose position it closes)`);
  }
  return Object.freeze({ ...spec, [STRATEGY_BRAND]: 1 as const });
}

/** True when `value` was made by defineStrategy (of any copy of this module). */
export function isStrategyDefinition(value: unknown): value is StrategyDefinition<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<StrategyDefinition<unknown>>;
  return v[STRATEGY_BRAND] === 1 && typeof v.create === 'function' && typeof v.params?.run === 'function';
}

// ---------------------------------------------------------------------------------------------
// Helpers (pure)

export type Rounding = 'down' | 'up' | 'nearest';

/** Decimal places of a step such as 0.1, 0.0001 or 1e-7. */
function decimalsOf(step: number): number {
  const s = String(step);
  const e = s.indexOf('e-');
  const mantissa = e >= 0 ? s.slice(0, e) : s;
  const dot = mantissa.indexOf('.');
  const fraction = dot >= 0 ? mantissa.length - dot - 1 : 0;
  return Math.min(100, fraction + (e >= 0 ? Number(s.slice(e + 2)) : 0));
}

/** A step as an integer count of units of 10^-decimals (0.25 → 25 of 0.01), when 10^decimals is exact. */
interface ScaledStep {
  readonly units: number;
  readonly scale: number;
}

const scaledSteps = new FifoMap<number, ScaledStep | null>(256);

function scaledStep(step: number): ScaledStep | null {
  let scaled = scaledSteps.get(step);
  if (scaled === undefined) {
    const decimals = decimalsOf(step);
    const scale = 10 ** decimals;
    const units = Math.round(step * scale);
    scaled = decimals <= 22 && Number.isSafeInteger(units) ? { units, scale } : null;
    scaledSteps.set(step, scaled);
  }
  return scaled;
}

/** `value` rounded to a multiple of `step`, printed exactly at the step's decimals. Throws RangeError for a step that is not > 0. */
export function roundToStep(value: number, step: number, mode: Rounding = 'nearest'): number {
  if (!(step > 0) || !Number.isFinite(step)) throw new RangeError(`step must be a finite number > 0, got ${step}`);
  const n = value / step;
  // Division error grows with the quotient: 100000.3 / 0.1 is 1000002.9999999999.
  const eps = Math.max(1e-9, Math.abs(n) * 1e-12);
  const k = mode === 'down' ? Math.floor(n + eps) : mode === 'up' ? Math.ceil(n - eps) : Math.round(n);
  // k·units / 10^d divides two exact integers: the double nearest the decimal, the same as parsing its text.
  const scaled = scaledStep(step);
  if (scaled !== null && Number.isSafeInteger(k * scaled.units)) return (k * scaled.units) / scaled.scale + 0;
  return Number((k * step).toFixed(decimalsOf(step))) + 0;
}

/** A price (USD) on the tick grid: 'down' for bids, 'up' for asks so a quote is never tighter than asked. */
export function roundToTick(price: number, tickSizeUsd: number, mode: Rounding = 'nearest'): number {
  return roundToStep(price, tickSizeUsd, mode);
}

/** A size (base units) on the lot grid; 'down' by default so an order never exceeds what was asked. */
export function roundToLot(size: number, lotSizeBase: number, mode: Rounding = 'down'): number {
  return roundToStep(size, lotSizeBase, mode);
}

/** The part of a book the price helpers read. */
export type TopOfBook = Pick<BookView, 'bestBid' | 'bestAsk'>;

/** Mid price, USD; undefined unless both sides exist. */
export function mid(book: TopOfBook): number | undefined {
  const bid = book.bestBid();
  const ask = book.bestAsk();
  return bid && ask ? (bid.price + ask.price) / 2 : undefined;
}

export interface Spread {
  /** Best ask − best bid, USD (negative when crossed). */
  readonly abs: number;
  /** `abs` relative to the mid, basis points. */
  readonly bps: number;
}

/** Spread of the best levels; undefined unless both sides exist. */
export function spread(book: TopOfBook): Spread | undefined {
  const bid = book.bestBid();
  const ask = book.bestAsk();
  if (!bid || !ask) return undefined;
  const abs = ask.price - bid.price;
  return { abs, bps: (abs / ((bid.price + ask.price) / 2)) * 1e4 };
}

/** The DataStamp of an intent computed from `book`: its venue time (epoch ms), version and arrival time (ns). */
export function stamp(book: Pick<BookView, 'venueTimeMs' | 'version' | 'arrivalNs'>): DataStamp {
  return { dataTimeMs: book.venueTimeMs, dataVersion: book.version, arrivalNs: book.arrivalNs };
}

/** Signed position in `symbol` (long > 0), base units; 0 without a state or a position. */
export function positionOf(state: Pick<AccountState, 'positions'> | undefined, symbol: string): number {
  return state?.positions.get(symbol)?.size ?? 0;
}

export interface InventoryLimits {
  /** Position the strategy aims for, base units. Default 0. */
  readonly target?: number;
  /** Largest absolute position allowed, base units, > 0. */
  readonly max: number;
}

export interface Inventory {
  /** position − target, base units. */
  readonly deviation: number;
  /** deviation / max, clamped to [-1, 1]: +1 is as long as allowed relative to the target. */
  readonly ratio: number;
  /** How much more may be bought before the position reaches +max, base units (≥ 0). */
  readonly buyCapacity: number;
  /** How much more may be sold before the position reaches −max, base units (≥ 0). */
  readonly sellCapacity: number;
}

/** Where `position` stands against a target and a maximum. Throws RangeError when `max` is not > 0. */
export function inventory(position: number, limits: InventoryLimits): Inventory {
  const { target = 0, max } = limits;
  if (!(max > 0)) throw new RangeError(`max must be > 0, got ${max}`);
  const deviation = position - target;
  return {
    deviation,
    ratio: Math.max(-1, Math.min(1, deviation / max)),
    buyCapacity: Math.max(0, max - position),
    sellCapacity: Math.max(0, max + position),
  };
}

interface PendingOrder {
  readonly clientTag: string;
  readonly position: number;
  /** The position its fills lead to, once it ended. */
  expected?: number;
  endedMs?: number;
}

/**
 * One order at a time per market, each pending until the account's position shows its fills: a strategy that sizes
 * its orders from the position must not send the next one while the position still lacks the last one's fills (the
 * order's end and the account state arrive in either order).
 */
export class PendingOrders {
  private readonly orders = new Map<string, PendingOrder>();

  /** `timeoutMs`: how long after an order ended its fills may take to show in the position before it is let go. */
  constructor(private readonly timeoutMs = 5_000) {}

  /** Records the order `clientTag` just sent in `symbol`, with the position (signed, base units) it was sized from. */
  sent(symbol: string, clientTag: string, position: number): void {
    this.orders.set(symbol, { clientTag, position });
  }

  /** Reads an order event of the strategy at `nowMs` (epoch ms); true when it ended the pending order of its market. */
  update(e: OrderEvent, nowMs: number): boolean {
    const o = this.orders.get(e.symbol);
    if (!o || o.clientTag !== e.clientTag || o.expected !== undefined || !TERMINAL_STATUSES.has(e.status)) return false;
    if (e.filledSize <= 0) this.orders.delete(e.symbol);
    else {
      o.expected = o.position + (e.side === 'buy' ? e.filledSize : -e.filledSize);
      o.endedMs = nowMs;
    }
    return true;
  }

  /** True while the order of `symbol` works, or its fills are not in `position` yet and it ended less than timeoutMs ago. */
  busy(symbol: string, position: number, nowMs: number): boolean {
    const o = this.orders.get(symbol);
    if (!o) return false;
    if (o.expected === undefined) return true;
    if (Math.abs(position - o.expected) > 1e-9 * Math.max(1, Math.abs(o.expected)) && nowMs - o.endedMs! < this.timeoutMs) return true;
    this.orders.delete(symbol);
    return false;
  }
}
