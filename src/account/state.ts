// The account as the framework sees it (orders, positions, collateral, margin, leverage), folded from account updates.
// Invariants: pure and immutable; terminal orders and zero positions are removed; a snapshot replaces everything.

import type { AccountSnapshot, AccountUpdate, FeeTier, Margin, Position, VenueOrder } from '../core/account-data.js';
import { TERMINAL_STATUSES } from '../core/intent.js';

/** An open order of the account (the name plugins know). */
export type AccountOrder = VenueOrder;
/** A position of the account (the name plugins know). */
export type AccountPosition = Position;

export interface AccountState {
  readonly user: string;
  readonly orders: ReadonlyMap<string, VenueOrder>;
  readonly positions: ReadonlyMap<string, Position>;
  /** Collateral balance per coin, coin units. */
  readonly collateral: ReadonlyMap<string, number>;
  /** Known once a margin update arrived. */
  readonly margin: Margin | undefined;
  /** Maximum leverage setting per symbol. */
  readonly leverage: ReadonlyMap<string, number>;
  /** Fee tier per symbol, when the venue reports them (current generation). */
  readonly feeTiers?: ReadonlyMap<string, FeeTier>;
}

export function stateFromSnapshot(user: string, s: AccountSnapshot): AccountState {
  return {
    user,
    orders: new Map(s.openOrders.map((o) => [o.orderId, o])),
    positions: new Map(s.positions.filter((p) => p.size !== 0).map((p) => [p.symbol, p])),
    collateral: new Map(s.collateral.map((c) => [c.coin, c.amount])),
    margin: undefined,
    leverage: new Map(s.leverage.map((l) => [l.symbol, l.leverage])),
    ...(s.feeTiers && { feeTiers: new Map(s.feeTiers.map((t) => [t.symbol, t])) }),
  };
}

/**
 * A copy of `map`. Read with forEach: `new Map(map)` goes through the entry iterator, which allocates an entry pair and
 * an iterator result per entry (about twice the bytes, and slower; the account copies its orders on every update).
 */
function copyOf<K, V>(map: ReadonlyMap<K, V> | undefined): Map<K, V> {
  const copy = new Map<K, V>();
  map?.forEach((v, k) => copy.set(k, v));
  return copy;
}

/** `o` with the open-order report's reduce-only and time in force where the update does not carry them. */
function keepingReport(o: VenueOrder, before: VenueOrder): VenueOrder {
  return {
    orderId: o.orderId,
    symbol: o.symbol,
    side: o.side,
    price: o.price,
    originalSize: o.originalSize,
    remainingSize: o.remainingSize,
    filledSize: o.filledSize,
    avgFillPrice: o.avgFillPrice,
    maker: o.maker,
    status: o.status,
    venueTimeNs: o.venueTimeNs,
    reason: o.reason,
    reduceOnly: o.reduceOnly ?? before.reduceOnly,
    tif: o.tif ?? before.tif,
    parked: o.parked,
  };
}

/** A terminal update of an order the state does not hold (a post-only rejection, an immediate fill) changes nothing: the same state. */
function withOrder(state: AccountState, o: VenueOrder): AccountState {
  const terminal = TERMINAL_STATUSES.has(o.status);
  if (terminal && !state.orders.has(o.orderId)) return state;
  const orders = copyOf(state.orders);
  if (terminal) orders.delete(o.orderId);
  else {
    const before = state.orders.get(o.orderId);
    // Updates do not carry reduce-only and time in force: the open-order report's values are kept.
    const complete = before === undefined || (o.reduceOnly !== undefined && o.tif !== undefined);
    orders.set(o.orderId, complete ? o : keepingReport(o, before));
  }
  return { ...state, orders };
}

/** Folds one account update into `state`; before the first snapshot only a snapshot starts a state. */
export function applyAccountUpdate(user: string, state: AccountState | undefined, update: AccountUpdate): AccountState | undefined {
  if (update.kind === 'snapshot') return stateFromSnapshot(user, update.snapshot);
  if (!state) return undefined;
  switch (update.kind) {
    case 'order':
      return withOrder(state, update.order);
    case 'position': {
      const p = update.position;
      const positions = copyOf(state.positions);
      if (p.size === 0) positions.delete(p.symbol);
      else positions.set(p.symbol, p);
      return { ...state, positions };
    }
    case 'margin':
      return { ...state, margin: update.margin };
    case 'leverage': {
      const leverage = copyOf(state.leverage);
      for (const l of update.leverage) leverage.set(l.symbol, l.leverage);
      return { ...state, leverage };
    }
    case 'notice': {
      if (update.notice.kind !== 'feeTiers') return state;
      const feeTiers = copyOf(state.feeTiers);
      for (const t of update.notice.feeTiers) feeTiers.set(t.symbol, t);
      return { ...state, feeTiers };
    }
    default:
      return state;
  }
}
