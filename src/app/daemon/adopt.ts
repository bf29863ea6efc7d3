// Who takes over an open order the daemon finds at start and does not track (`execution.unknownOrders: adopt`).
// Invariants: an order is given only to a strategy running on its account now; one no rule names is cancelled; a parked
// basket (the current dialect's `trig`: its orders are not listed, so what it places could not be tracked) is cancelled.

import type { VenueOrder } from '../../core/account-data.js';
import type { Logger } from '../../core/logger.js';
import type { Journal } from '../../store/index.js';
import type { LoadedStrategy } from '../../strategy/loader.js';

/**
 * The owner of `order`: none for a parked basket (a parked order of no size); the strategy the journal recorded it under
 * (an earlier run of this daemon placed it), when that strategy runs on the account now; else the account's only
 * strategy trading the order's market; else none. A journal that cannot be read is warned about and skipped (the market
 * decides), so reconciliation still runs.
 */
export function adoptOwnerOf(
  journal: Pick<Journal, 'orderEvents'>,
  account: string,
  strategies: readonly Pick<LoadedStrategy, 'name' | 'symbols'>[],
  logger: Pick<Logger, 'warn'>,
): (order: VenueOrder) => string | undefined {
  const running = new Set(strategies.map((s) => s.name));
  const journaledOwner = (orderId: string): string | undefined => {
    try {
      return journal.orderEvents(account, orderId).find((e) => e.strategy !== undefined)?.strategy;
    } catch (e) {
      logger.warn(
        { orderId, error: e instanceof Error ? e.message : String(e) },
        'journal unreadable: the order goes to the only strategy trading its market, if any',
      );
      return undefined;
    }
  };
  return (order) => {
    if (order.parked === true && order.originalSize === 0) return undefined;
    const journaled = journaledOwner(order.orderId);
    if (journaled !== undefined && running.has(journaled)) return journaled;
    const trading = strategies.filter((s) => s.symbols.includes(order.symbol));
    return trading.length === 1 ? trading[0]!.name : undefined;
  };
}
