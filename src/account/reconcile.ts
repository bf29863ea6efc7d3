// Events missed while the stream was away, rebuilt from the fills and order-history queries and a fresh snapshot.
// Invariants: rows older than the first read (the baseline) are never emitted; a key is emitted only beyond what was seen.

import type { AccountUpdate, ClosedOrder, Fill, VenueOrder } from '../core/account-data.js';
import { KeyCounts } from './dedupe.js';
import type { AccountState } from './state.js';

/** What makes an order report new: its status and fill, and for a trigger order whether it is still parked (placed twice). */
export const orderKey = (o: { orderId: string; status: string; filledSize: number; parked?: boolean | undefined }) =>
  `${o.orderId}:${o.status}:${o.filledSize}${o.parked === true ? ':parked' : ''}`;
export const fillKey = (f: Fill) => `${f.orderId}:${f.venueTimeNs}:${f.price}:${f.size}`;

/** The terminal order report an order-history row stands for (`maker`: the order rested, as far as known). */
export function orderFromHistory(row: ClosedOrder, maker: boolean): VenueOrder {
  return {
    orderId: row.orderId,
    symbol: row.symbol,
    side: row.side,
    price: row.price,
    originalSize: row.originalSize,
    remainingSize: row.originalSize - row.filledSize,
    filledSize: row.filledSize,
    avgFillPrice: row.avgFillPrice,
    maker,
    status: row.status,
    venueTimeNs: row.venueTimeNs,
    reason: row.reason,
    reduceOnly: row.reduceOnly,
    tif: row.tif,
  };
}

export interface Baseline {
  readonly orders: KeyCounts;
  readonly fills: KeyCounts;
}

/** The rows that existed when the account was first read: history, never news. */
export function baselineOf(fills: readonly Fill[], history: readonly ClosedOrder[]): Baseline {
  const orders = new KeyCounts();
  const fillKeys = new KeyCounts();
  for (const row of history) orders.add(orderKey(row));
  for (const fill of fills) fillKeys.add(fillKey(fill));
  return { orders, fills: fillKeys };
}

export type MissedEvent = Extract<AccountUpdate, { kind: 'order' | 'fill' }>;

export interface Seen {
  readonly orders: KeyCounts;
  readonly fills: KeyCounts;
}

const timeOf = (e: MissedEvent) => (e.kind === 'order' ? e.order.venueTimeNs : e.fill.venueTimeNs);

/**
 * Events missed between `prev` and the fresh snapshot state `next`, oldest first: terminal orders and fills (the
 * account's own side) from the queries, and open orders that are new or changed. Records what it returns in `seen`.
 */
export function missedEvents(
  prev: AccountState | undefined,
  next: AccountState,
  fills: readonly Fill[],
  history: readonly ClosedOrder[],
  baseline: Baseline,
  seen: Seen,
): MissedEvent[] {
  const out: MissedEvent[] = [];
  const batch = new KeyCounts();
  const take = (e: MissedEvent, key: string, base: KeyCounts, known: KeyCounts) => {
    const index = batch.add(key);
    if (index < Math.max(base.count(key), known.count(key))) return;
    known.add(key);
    out.push(e);
  };
  for (const row of history) {
    const maker = prev?.orders.get(row.orderId)?.maker ?? false;
    take({ kind: 'order', order: orderFromHistory(row, maker) }, orderKey(row), baseline.orders, seen.orders);
  }
  for (const o of next.orders.values()) {
    const before = prev?.orders.get(o.orderId);
    if (before && orderKey(before) === orderKey(o)) continue;
    take({ kind: 'order', order: o }, orderKey(o), baseline.orders, seen.orders);
  }
  for (const fill of fills) take({ kind: 'fill', fill }, fillKey(fill), baseline.fills, seen.fills);
  return out.sort((a, b) => {
    const ta = timeOf(a);
    const tb = timeOf(b);
    return ta < tb ? -1 : ta > tb ? 1 : 0;
  });
}
