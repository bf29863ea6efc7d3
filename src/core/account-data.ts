// Account data in the framework's own vocabulary: orders as the venue reports them, fills, positions, margin, updates, action answers.
// Invariants: prices USD, sizes base units, money `…Usd`, times `…Ns`; sides are the account's own; no wire shape here.

import type { OrderStatus, Side } from './intent.js';
import type { TimeInForce } from './types.js';

/** The statuses an order ends in. */
export type TerminalOrderStatus = Exclude<OrderStatus, 'placed' | 'working'>;

/** An order as the venue reports it: a resting order, or the order an update is about. */
export interface VenueOrder {
  readonly orderId: string;
  readonly symbol: string;
  readonly side: Side;
  /** Limit price, USD (0 for a market order). */
  readonly price: number;
  /** Base units. */
  readonly originalSize: number;
  /** Size still open, base units. */
  readonly remainingSize: number;
  readonly filledSize: number;
  /** Average fill price, USD (0 before the first fill). */
  readonly avgFillPrice: number;
  /** True when the order rested (it adds liquidity). */
  readonly maker: boolean;
  readonly status: OrderStatus;
  /** The venue's time of the report, epoch ns. */
  readonly venueTimeNs: bigint;
  /** Why the order is in its status (rejections, cancels), when the venue says. */
  readonly reason: string | undefined;
  /** Known from open-order reports (snapshots, queries); undefined in updates that do not carry it. */
  readonly reduceOnly: boolean | undefined;
  readonly tif: TimeInForce | undefined;
  /**
   * True for a trigger order the venue holds parked until its trigger price (status placed while off the book: not a
   * maker); false once it is on the book or has traded; undefined when the report does not say.
   */
  readonly parked?: boolean | undefined;
}

/** An order that ended (order history). */
export interface ClosedOrder {
  readonly orderId: string;
  readonly symbol: string;
  readonly side: Side;
  readonly orderType: 'limit' | 'market' | 'trigger';
  readonly tif: TimeInForce;
  /** USD */
  readonly price: number;
  readonly avgFillPrice: number;
  readonly originalSize: number;
  readonly filledSize: number;
  readonly reduceOnly: boolean;
  readonly status: TerminalOrderStatus;
  readonly reason: string | undefined;
  /** epoch ns */
  readonly venueTimeNs: bigint;
}

/** Why a fill happened. */
export type FillCause = 'trade' | 'liquidation' | 'adl' | 'liquidationSweep';

/** One fill of one of the account's orders, from the account's side. */
export interface Fill {
  readonly symbol: string;
  readonly orderId: string;
  /** The account's side of the fill. */
  readonly side: Side;
  /** USD */
  readonly price: number;
  /** Base units, > 0. */
  readonly size: number;
  /** Fee paid, USD (negative: a rebate). */
  readonly feeUsd: number;
  /** True when the account's order was resting. */
  readonly maker: boolean;
  readonly cause: FillCause;
  /** epoch ns */
  readonly venueTimeNs: bigint;
}

/** A position. */
export interface Position {
  readonly symbol: string;
  /** Signed base units: negative is short. */
  readonly size: number;
  /** Average entry price, USD. */
  readonly entryPrice: number;
  readonly realizedPnlUsd: number;
  readonly leverage: number;
  /** Known once the venue sent a position update (snapshots do not carry them). */
  readonly unrealizedPnlUsd: number | undefined;
  readonly liquidationPrice: number | undefined;
}

/** The account's margin totals, USD. */
export interface Margin {
  readonly totalBalanceUsd: number;
  readonly availableBalanceUsd: number;
  readonly marginUsedUsd: number;
  readonly notionalUsd: number;
  readonly realizedPnlUsd: number;
  readonly unrealizedPnlUsd: number;
  readonly feesUsd: number;
  readonly fundingUsd: number;
}

/** A forced close of a position by the venue. */
export interface Liquidation {
  readonly symbol: string;
  readonly price: number;
  readonly size: number;
  /** The side of the closing trade. */
  readonly side: Side;
  readonly marginBeforeUsd: number;
  readonly marginAfterUsd: number;
  readonly reason: string | undefined;
  readonly venueTimeNs: bigint;
}

/** The fee schedule the venue applies to the account in one market (current generation). */
export interface FeeTier {
  readonly symbol: string;
  readonly tierIndex: number;
  /** Volume the tier is measured on, USD. */
  readonly rollingVolumeUsd: number;
  readonly makerBps: number;
  readonly takerBps: number;
}

/** What the account stream reports that is not itself an order, fill, position or margin change (current generation). */
export type AccountNotice =
  | {
      readonly kind: 'adl';
      readonly symbol: string;
      readonly price: number;
      readonly size: number;
      /** The side of the deleveraging trade. */
      readonly side: Side;
      readonly reason: string | undefined;
      readonly venueTimeNs: bigint;
    }
  | {
      readonly kind: 'cancelRejected';
      /** Undefined for a cancel-all of every symbol. */
      readonly symbol: string | undefined;
      /** Undefined for a cancel-all. */
      readonly orderId: string | undefined;
      readonly reason: string;
      readonly venueTimeNs: bigint;
    }
  | { readonly kind: 'feeTiers'; readonly feeTiers: readonly FeeTier[]; readonly venueTimeNs: bigint };

/** The whole account at once: what the venue sends first on every (re)subscription. */
export interface AccountSnapshot {
  readonly openOrders: readonly VenueOrder[];
  readonly positions: readonly Position[];
  /** Collateral balance per coin (e.g. USDC), in coin units. */
  readonly collateral: readonly { readonly coin: string; readonly amount: number }[];
  /** Maximum leverage setting per symbol. */
  readonly leverage: readonly { readonly symbol: string; readonly leverage: number }[];
  /** Fee tiers per market, when the venue reports them (current generation). */
  readonly feeTiers?: readonly FeeTier[];
}

/** One message of the account stream. */
export type AccountUpdate =
  | { readonly kind: 'snapshot'; readonly snapshot: AccountSnapshot }
  | { readonly kind: 'order'; readonly order: VenueOrder }
  | { readonly kind: 'fill'; readonly fill: Fill }
  | { readonly kind: 'position'; readonly position: Position }
  | { readonly kind: 'margin'; readonly margin: Margin }
  | { readonly kind: 'leverage'; readonly leverage: readonly { readonly symbol: string; readonly leverage: number }[] }
  | { readonly kind: 'liquidation'; readonly liquidation: Liquidation }
  | { readonly kind: 'notice'; readonly notice: AccountNotice };

/** One fact about one order from the venue's answer to an action. */
export interface VenueOrderFact {
  readonly orderId: string;
  readonly status: OrderStatus;
  /** Base units filled so far, when the answer says. */
  readonly filledSize?: number | undefined;
  readonly reason?: string | undefined;
  /** As VenueOrder.parked: a trigger order waiting for its price (true), fired (false), or not said. */
  readonly parked?: boolean | undefined;
}

/** What the venue answered for one item of an accepted action, in item order. */
export type ItemResult =
  | { readonly kind: 'order'; readonly fact: VenueOrderFact }
  | { readonly kind: 'error'; readonly message: string }
  /** An item that is not about an order (settings, agents, faucet) and succeeded. */
  | { readonly kind: 'done' };
