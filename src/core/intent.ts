// What strategies ask for (intents) and what they are told back (order events), in plain data.
// Invariants: prices are USD and sizes base units as JSON numbers; every intent carries the time
// and version of the market data it was computed from; ids are base58 text.

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

export interface OrderSpec {
  readonly symbol: string;
  readonly side: Side;
  /** Limit price, USD; absent for a market order. */
  readonly price?: number;
  /** Base units, > 0. */
  readonly size: number;
  readonly tif: TimeInForce;
  readonly reduceOnly: boolean;
  /** The strategy's own name for the order, unique among its live orders. */
  readonly clientTag?: string;
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
    /** The complete set of orders the strategy wants resting in `symbol` now. */
    | { readonly kind: 'quoteSet'; readonly symbol: string; readonly quotes: readonly QuoteSpec[] }
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
export type LocalOrderStatus = OrderStatus | 'pendingNew' | 'pendingCancel' | 'unknown';

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
}
