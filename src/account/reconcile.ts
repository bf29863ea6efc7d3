// Events missed while the stream was away, rebuilt from the fills and orderHistory queries and a fresh snapshot.
// Invariants: rows older than the first read (the baseline) are never emitted; a key is emitted only beyond what was seen.

import type { Fill, OrderHistoryEntry } from '../protocol/v1/account.js';
import type { FillUpdate, OrderUpdate } from '../protocol/v1/stream.js';
import { KeyCounts } from './dedupe.js';
import type { AccountOrder, AccountState } from './state.js';

export const orderKey = (u: { orderId: string; status: string; filledSize: number }) => `${u.orderId}:${u.status}:${u.filledSize}`;
export const fillKey = (f: { orderId: string; timestamp: bigint; price: number; size: number }) => `${f.orderId}:${f.timestamp}:${f.price}:${f.size}`;

/**
 * The account's side of a fills row, in the shape of a stream `fill` (the account's own view). A row is shared by
 * both parties and its `isBuy` is the taker's side (gaps §5, venue-protocol §8.3), so the maker's is the opposite.
 */
export function fillFromRow(user: string, row: Fill): FillUpdate {
  const maker = row.maker === user;
  return {
    type: 'fill',
    symbol: row.symbol,
    orderId: maker ? row.orderIdMaker : row.orderIdTaker,
    price: row.price,
    size: row.amount,
    fee: maker ? row.makerFee : row.takerFee,
    isBuy: maker ? !row.isBuy : row.isBuy,
    reasonCode: 0,
    reason: null,
    counterpartyHint: '',
    timestamp: row.timestamp,
    maker,
  };
}

/** The terminal order update an orderHistory row stands for. */
export function orderUpdateFromHistory(row: OrderHistoryEntry, maker: boolean): OrderUpdate {
  return {
    type: 'orderUpdate',
    status: row.status,
    symbol: row.symbol,
    orderId: row.orderId,
    price: row.price,
    originalSize: row.originalSize,
    size: row.originalSize - row.executedSize,
    filledSize: row.executedSize,
    vwap: row.vwap,
    isBuy: row.side === 'buy',
    maker,
    timestamp: row.timestamp,
    reason: row.reason,
  };
}

export function orderUpdateFromOpen(o: AccountOrder): OrderUpdate {
  const { reduceOnly: _r, tif: _t, ...fields } = o;
  return { type: 'orderUpdate', ...fields, reason: null };
}

export interface Baseline {
  readonly orders: KeyCounts;
  readonly fills: KeyCounts;
}

/** The rows that existed when the account was first read: history, never news. */
export function baselineOf(user: string, fills: readonly Fill[], history: readonly OrderHistoryEntry[]): Baseline {
  const orders = new KeyCounts();
  const fillKeys = new KeyCounts();
  for (const row of history) orders.add(orderKey(orderUpdateFromHistory(row, false)));
  for (const row of fills) fillKeys.add(fillKey(fillFromRow(user, row)));
  return { orders, fills: fillKeys };
}

export type MissedEvent = OrderUpdate | FillUpdate;

export interface Seen {
  readonly orders: KeyCounts;
  readonly fills: KeyCounts;
}

/**
 * Events missed between `prev` and the fresh snapshot state `next`, oldest first: terminal orders and fills
 * from the queries, and open orders that are new or changed. Records what it returns in `seen`.
 */
export function missedEvents(
  user: string,
  prev: AccountState | undefined,
  next: AccountState,
  fills: readonly Fill[],
  history: readonly OrderHistoryEntry[],
  baseline: Baseline,
  seen: Seen,
): MissedEvent[] {
  const out: MissedEvent[] = [];
  const batch = new KeyCounts();
  const take = (e: MissedEvent, key: string, base: KeyCounts, known: KeyCounts) => {
    const index = batch.count(key);
    batch.add(key);
    if (index < Math.max(base.count(key), known.count(key))) return;
    known.add(key);
    out.push(e);
  };
  for (const row of history) {
    const maker = prev?.orders.get(row.orderId)?.maker ?? false;
    const u = orderUpdateFromHistory(row, maker);
    take(u, orderKey(u), baseline.orders, seen.orders);
  }
  for (const o of next.orders.values()) {
    const before = prev?.orders.get(o.orderId);
    if (before && before.status === o.status && before.filledSize === o.filledSize) continue;
    const u = orderUpdateFromOpen(o);
    take(u, orderKey(u), baseline.orders, seen.orders);
  }
  for (const row of fills) {
    const f = fillFromRow(user, row);
    take(f, fillKey(f), baseline.fills, seen.fills);
  }
  return out.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
}
