// Start-up resolution of batches the journal saw signed but never saw answered (a crash, a lost answer): each is
// marked applied or not from the venue's own order records (a paper batch never reached one: not applied).
// Invariant: nothing is re-sent; runs before trading.

import type { HttpClient } from '../../client/http.js';
import type { Journal } from '../../store/index.js';

export interface ResolveSummary {
  readonly applied: number;
  readonly notApplied: number;
  readonly uncertain: number;
}

/**
 * A batch with order ids is `applied` when the venue knows any of them (open or in history), else `not-applied`.
 * A batch without order ids (cancels, settings) is `uncertain`: reconciliation reads the venue's open orders anyway.
 */
export async function resolveUnresolvedBatches(
  journal: Journal,
  http: HttpClient,
  log: { info(fields: object, message: string): void },
): Promise<ResolveSummary> {
  const batches = journal.unresolvedBatches();
  const summary = { applied: 0, notApplied: 0, uncertain: 0 };
  const known = new Map<string, Set<string>>();
  for (const b of batches) {
    if (b.paper) {
      journal.resolveBatch(b.id, 'not-applied', 'signed while paper trading: never sent to a venue');
      summary.notApplied++;
      continue;
    }
    const ids = b.orderIds.filter((id): id is string => id !== null);
    if (ids.length === 0) {
      journal.resolveBatch(b.id, 'uncertain', 'no order ids (cancels or settings): the venue state read at reconciliation decides');
      summary.uncertain++;
      continue;
    }
    let venueIds = known.get(b.account);
    if (!venueIds) known.set(b.account, (venueIds = await orderIdsOf(http, b.account)));
    const found = ids.filter((id) => venueIds.has(id)).length;
    if (found > 0) {
      journal.resolveBatch(b.id, 'applied', `the venue knows ${found} of its ${ids.length} order ids`);
      summary.applied++;
    } else {
      journal.resolveBatch(b.id, 'not-applied', `the venue knows none of its ${ids.length} order ids`);
      summary.notApplied++;
    }
  }
  if (batches.length > 0) log.info(summary, 'resolved batches left unanswered by the last run');
  return summary;
}

async function orderIdsOf(http: HttpClient, account: string): Promise<Set<string>> {
  const [open, history] = await Promise.all([http.account('openOrders', account), http.account('orderHistory', account)]);
  return new Set([...open.map((r) => r.openOrder.orderId), ...history.map((r) => r.orderHistory.orderId)]);
}
