// What strategies ask for (intents) and what they are told back (order events), in plain data.
// Invariants: prices are USD and sizes base units as JSON numbers; every intent carries the time
// and version of the market data it was computed from; ids are base58 text.

import { ValidationError } from './errors.js';
import type { TimeInForce } from './types.js';

export type Side = 'buy' | 'sell';

/** When and from what the intent was computed (risk drops intents older than its budget). */
export interface DataStamp {
  /** Epoch ms of the newest market data the intent used. */
  readonly dataTimeMs: number;
  /** Version of that data (e.g. the book's version counter). */
  readonly dataVersion: number;
  /** When the bytes of that data arrived, ns of the session clock (BookView.arrivalNs): where tick-to-trade starts. */
  readonly arrivalNs?: bigint;
}

/**
 * What makes an order conditional: the venue parks it off the book until the mark price reaches its trigger, then it
 * becomes a market order (no `price`) or, for a stop or take-profit, a GTC limit order at `price` (a stop-limit).
 */
export type TriggerSpec = PriceTrigger | TrailingTrigger | RangeTrigger;

/** A stop or a take-profit at a fixed trigger price. */
export interface PriceTrigger {
  /**
   * `stop`: fires when the mark moves against a position the order closes: a sell stop at or below `triggerPrice`, a
   * buy stop at or above. `takeProfit`: the other way: a sell at or above, a buy at or below. Risk refuses a trigger
   * price on the wrong side of the mark (it would fire at once).
   */
  readonly kind: 'stop' | 'takeProfit';
  /** Mark price that fires the order, USD, > 0. */
  readonly triggerPrice: number;
}

/**
 * A trailing stop (current dialect only): fires when the mark falls `trailBps` below the highest mark seen since it was
 * placed (a sell, protecting a long) or rises `trailBps` above the lowest (a buy); the trigger follows the mark only in
 * moves of at least `stepBps`. Always a market order when fired.
 */
export interface TrailingTrigger {
  readonly kind: 'trailing';
  /** Integer basis points, 1..10000. */
  readonly trailBps: number;
  /** Integer basis points, 0..10000 (0: the trigger follows every new extreme). */
  readonly stepBps: number;
}

/**
 * A range (one-cancels-other collar, current dialect only) closing a position: fires at or below `low` or at or above
 * `high` (whichever the mark reaches first), as a market order. A sell protects a long, a buy a short.
 */
export interface RangeTrigger {
  readonly kind: 'range';
  /** USD, > 0, below `high`. */
  readonly low: number;
  /** USD */
  readonly high: number;
}

const isPositive = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x > 0;
const isBps = (x: unknown, min: number): boolean => Number.isInteger(x) && (x as number) >= min && (x as number) <= 10_000;

/** Why `trigger` is malformed (`hasPrice`: the order carries a limit price), naming the field; undefined when it is sound. */
export function triggerProblem(trigger: TriggerSpec, hasPrice: boolean): string | undefined {
  switch (trigger.kind) {
    case 'stop':
    case 'takeProfit':
      return isPositive(trigger.triggerPrice) ? undefined : `trigger.triggerPrice must be a finite number > 0, got ${trigger.triggerPrice}`;
    case 'trailing':
      if (!isBps(trigger.trailBps, 1)) return `trigger.trailBps must be an integer in 1..10000, got ${trigger.trailBps}`;
      if (!isBps(trigger.stepBps, 0)) return `trigger.stepBps must be an integer in 0..10000, got ${trigger.stepBps}`;
      return hasPrice ? 'price must be absent: a trailing stop fires as a market order' : undefined;
    case 'range':
      if (!isPositive(trigger.low)) return `trigger.low must be a finite number > 0, got ${trigger.low}`;
      if (!(isPositive(trigger.high) && trigger.high > trigger.low)) return `trigger.high must be a finite number above trigger.low, got ${trigger.high}`;
      return hasPrice ? 'price must be absent: a range fires as a market order' : undefined;
    default:
      return `trigger.kind must be stop, takeProfit, trailing or range, got ${String((trigger as { kind: unknown }).kind)}`;
  }
}

/** The mark must reach the trigger from below (true: fires at or above `triggerPrice`) or from above (false). */
export function triggersAbove(side: Side, kind: PriceTrigger['kind']): boolean {
  return (kind === 'stop') === (side === 'buy');
}

export interface OrderSpec {
  readonly symbol: string;
  readonly side: Side;
  /** Limit price, USD; absent for a market order (for a trigger order: the limit it becomes when fired). */
  readonly price?: number;
  /** Base units, > 0. */
  readonly size: number;
  readonly tif: TimeInForce;
  readonly reduceOnly: boolean;
  /** The strategy's own name for the order, unique among its live orders. */
  readonly clientTag?: string;
  /** Makes it a conditional order (stop, take-profit, trailing stop or range); tif must then be GTC. */
  readonly trigger?: TriggerSpec;
  /**
   * Orders the venue places once this one has filled completely (current dialect only: an `of` action), e.g. the
   * take-profit and stop of the position it opens. Each is an order of its own (its own id and events): `untriggered`
   * while held, `cancelled` when this order ends without filling completely. This order must not be a trigger order;
   * the children carry no `onFill` of their own.
   */
  readonly onFill?: readonly OrderSpec[];
  /**
   * Parks the order at the venue in a trigger basket (current dialect only: a `trig` of this one order) until the mark is
   * at or above `price` (`above`) or at or below it; then the venue places it as specified. Tracked under its own id
   * (computed at signing): `untriggered` while parked, then its own statuses. Not with `trigger` or `onFill`.
   */
  readonly whenMark?: WhenMark;
}

/** A mark price condition: the mark at or above `price` (`above`), or at or below it. */
export interface WhenMark {
  readonly above: boolean;
  /** USD, > 0. */
  readonly price: number;
}

/**
 * A reduce-only trigger order closing `positionBase` (signed base units, long > 0) in `symbol`: a sell for a long, a
 * buy for a short, sized to the whole position; a market order when fired unless `limitPrice` (USD) is given.
 * Throws ValidationError (field `positionBase`) for a zero or non-finite position: there is nothing to close.
 */
export function closingTrigger(
  symbol: string,
  positionBase: number,
  trigger: TriggerSpec,
  opts: { readonly limitPrice?: number; readonly clientTag?: string } = {},
): OrderSpec {
  if (!Number.isFinite(positionBase) || positionBase === 0) throw new ValidationError('positionBase', `no position to close in ${symbol} (${positionBase})`);
  return {
    symbol,
    side: positionBase > 0 ? 'sell' : 'buy',
    size: Math.abs(positionBase),
    tif: 'GTC',
    reduceOnly: true,
    trigger,
    ...(opts.limitPrice !== undefined && { price: opts.limitPrice }),
    ...(opts.clientTag !== undefined && { clientTag: opts.clientTag }),
  };
}

/** One order a quote set wants resting. */
export interface QuoteSpec {
  readonly side: Side;
  /** USD */
  readonly price: number;
  /** Base units */
  readonly size: number;
  /** Default GTC. */
  readonly tif?: 'GTC' | 'ALO';
}

/** Identifies a live order by venue id or by the strategy's tag. */
export type OrderRef = { readonly orderId: string } | { readonly clientTag: string };

export type Intent = DataStamp &
  (
    | { readonly kind: 'place'; readonly order: OrderSpec }
    | { readonly kind: 'cancel'; readonly symbol: string; readonly ref: OrderRef }
    /** Every order of the strategy in `symbols` (all symbols when absent). */
    | { readonly kind: 'cancelAll'; readonly symbols?: readonly string[] }
    /** Cancel `ref` and place `order` (execution skips both when nothing differs). */
    | { readonly kind: 'replace'; readonly ref: OrderRef; readonly order: OrderSpec }
    /** The complete set of orders the strategy wants resting in `symbol` now (its trigger orders are left alone). */
    | { readonly kind: 'quoteSet'; readonly symbol: string; readonly quotes: readonly QuoteSpec[] }
    /**
     * Market or limit orders parked together at the venue (current dialect only: one trigger basket `trig`) until the
     * mark of `symbol` meets `whenMark`; then the venue places each as specified. Each is tracked under its own id
     * (computed at signing): `untriggered` while parked, then its own statuses; cancelling any of them while parked
     * cancels the whole basket.
     */
    | { readonly kind: 'basket'; readonly symbol: string; readonly whenMark: WhenMark; readonly orders: readonly OrderSpec[] }
  );

/** The specification's order statuses an order can be in, live ones first, in the table's order. */
export const NON_TERMINAL_ORDER_STATUSES = ['placed', 'working'] as const;
export const TERMINAL_ORDER_STATUSES = [
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
] as const;

/** The venue's order statuses (specification) plus the framework's local ones. */
export type OrderStatus = (typeof NON_TERMINAL_ORDER_STATUSES)[number] | (typeof TERMINAL_ORDER_STATUSES)[number];
/** `untriggered`: a trigger order the venue holds parked, off the book, until its trigger price is reached. */
export type LocalOrderStatus = OrderStatus | 'pendingNew' | 'pendingCancel' | 'unknown' | 'untriggered';

export const TERMINAL_STATUSES: ReadonlySet<LocalOrderStatus> = new Set<LocalOrderStatus>(TERMINAL_ORDER_STATUSES);

/** A change of one of the strategy's orders, as execution learned it. */
export interface OrderEvent {
  readonly strategy: string;
  readonly orderId: string;
  readonly clientTag: string | undefined;
  readonly symbol: string;
  readonly side: Side;
  readonly price: number;
  readonly size: number;
  readonly filledSize: number;
  readonly status: LocalOrderStatus;
  /** Why (venue reason, risk reason or local explanation), when one applies. */
  readonly reason: string | undefined;
  /** Epoch ms when execution learned it. */
  readonly timeMs: number;
  /** The strategy's intent that placed it: its number in the session (from 1) and the order's place among that intent's orders of its market and side (from 0); absent for orders no intent placed (adopted, closing on stop, quotes resent after stale data). */
  readonly intent?: IntentRef;
}

/**
 * Which intent placed an order. The numbers drift apart between a live session and its backtest (the two see the
 * data in different bursts, and intents after a divergent fill differ); the data time does not: it is the venue's time
 * of the data the intent was computed from, the same in the recording.
 */
export interface IntentRef {
  readonly seq: number;
  readonly leg: number;
  /** The intent's DataStamp.dataTimeMs. */
  readonly dataTimeMs: number;
}
