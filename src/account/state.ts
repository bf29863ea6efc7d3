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

function withOrder(state: AccountState, o: VenueOrder): AccountState {
  const orders = new Map(state.orders);
  if (TERMINAL_STATUSES.has(o.status)) orders.delete(o.orderId);
  else {
    const before = state.orders.get(o.orderId);
    // Updates do not carry reduce-only and time in force: the open-order report's values are kept.
    const complete = before === undefined || (o.reduceOnly !== undefined && o.tif !== undefined);
    orders.set(o.orderId, complete ? o : { ...o, reduceOnly: o.reduceOnly ?? before.reduceOnly, tif: o.tif ?? before.tif });
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
      const positions = new Map(state.positions);
      if (p.size === 0) positions.delete(p.symbol);
      else positions.set(p.symbol, p);
      return { ...state, positions };
    }
    case 'margin':
      return { ...state, margin: update.margin };
    case 'leverage': {
      const leverage = new Map(state.leverage);
      for (const l of update.leverage) leverage.set(l.symbol, l.leverage);
      return { ...state, leverage };
    }
    case 'notice': {
      if (update.notice.kind !== 'feeTiers') return state;
      const feeTiers = new Map(state.feeTiers);
      for (const t of update.notice.feeTiers) feeTiers.set(t.symbol, t);
      return { ...state, feeTiers };
    }
    default:
      return state;
  }
}
