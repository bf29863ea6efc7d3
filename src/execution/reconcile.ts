// Reconciliation (start, every reconnect): unknown resting orders are adopted or cancelled, vanished ones resolved.
// Invariants: reads only (the cancels go back to the caller); orders in flight or being resolved are skipped.

import type { VenueOrder } from '../core/account-data.js';
import type { VenueQueries } from './ports.js';
import type { TrackedOrder, Tracker } from './tracker.js';

/** What to do with a resting order the tracker does not know. */
export type UnknownOrderPolicy = 'adopt' | 'cancel';

/** Owner given to orders reconciliation cancels (their events go to this pseudo-strategy). */
export const RECONCILE_OWNER = '@reconcile';

export interface ReconcileOptions {
  /** Default `cancel`: the bot does not keep orders it cannot attribute to a strategy. */
  unknownOrders?: UnknownOrderPolicy;
  /** The strategy adopting an unknown order (policy `adopt`); undefined cancels that order. Default: none (cancel). */
  adoptOwner?: (order: VenueOrder) => string | undefined;
}

export interface ReconcileReport {
  /** Resting orders the venue reported. */
  readonly open: number;
  /** Tracked live orders the venue shows open (their fill state refreshed): an unknown outcome is resolved by this. */
  readonly refreshed: readonly TrackedOrder[];
  /** Unknown orders taken over, with their new owner. */
  readonly adopted: readonly TrackedOrder[];
  /** Unknown orders to cancel (tracked under RECONCILE_OWNER); the caller sends the cancels. */
  readonly toCancel: readonly TrackedOrder[];
  /** Tracked live orders the venue no longer has, resolved from its order history now. */
  readonly resolved: readonly TrackedOrder[];
  /** Tracked live orders found neither resting nor in history (handed to the resolver by the caller). */
  readonly missing: readonly TrackedOrder[];
}

export interface ReconcileDeps {
  readonly queries: VenueQueries;
  readonly account: string;
  readonly tracker: Tracker;
}

/** One reconciliation pass. Throws what the queries throw (nothing is changed before they answered). */
export async function reconcile(deps: ReconcileDeps, opts: ReconcileOptions = {}): Promise<ReconcileReport> {
  const { queries, account, tracker } = deps;
  const policy = opts.unknownOrders ?? 'cancel';
  const rows = await queries.openOrders(account);
  const resting = new Set<string>();
  const adopted: TrackedOrder[] = [];
  const toCancel: TrackedOrder[] = [];
  const refreshed: TrackedOrder[] = [];
  for (const row of rows) {
    resting.add(row.orderId);
    const known = tracker.get(row.orderId);
    if (known && !known.terminal) {
      tracker.apply(row);
      refreshed.push(known);
      continue;
    }
    const owner = policy === 'adopt' ? opts.adoptOwner?.(row) : undefined;
    if (owner !== undefined) adopted.push(tracker.adopt(row, owner));
    else toCancel.push(tracker.adopt(row, RECONCILE_OWNER));
  }
  // an on-fill order held until its parent fills is not among the venue's open orders (it is in fullAccount.pendingOnFill)
  const gone = tracker
    .openOrders()
    .filter(
      (o) =>
        o.orderId !== undefined &&
        !o.inFlight &&
        !o.unknown &&
        !resting.has(o.orderId) &&
        !(o.parkedId !== undefined && resting.has(o.parkedId)) &&
        !(o.venue === undefined && o.heldBy?.terminal === false),
    );
  const resolved: TrackedOrder[] = [];
  const missing: TrackedOrder[] = [];
  if (gone.length > 0) {
    const history = new Map((await queries.orderHistory(account)).map((r) => [r.orderId, r]));
    for (const o of gone) {
      const row = history.get(o.orderId!);
      if (row) {
        tracker.apply(row);
        resolved.push(o);
      } else missing.push(o);
    }
  }
  return { open: rows.length, refreshed, adopted, toCancel, resolved, missing };
}
