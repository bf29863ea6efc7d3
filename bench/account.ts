// Account stream throughput: order updates (each order placed, then cancelled) through the account observables
// (state folded, each update deduplicated, emitted) from an in-memory account source. `fresh`: the first updates of a
// session; `steady`: after more distinct updates than the deduplication remembers (a daemon hours into a busy day),
// measured in the same run. Invariant: synthetic orders, no socket; each figure is the median of BENCH_RUNS runs.

import { Subject } from 'rxjs';
import { AccountStreams } from '../src/account/account.js';
import type { AccountUpdate, VenueOrder } from '../src/core/account-data.js';
import { median, report } from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** Updates timed in each phase. */
const UPDATES = Number(process.env.BENCH_UPDATES ?? 20_000);
/** Distinct updates sent before the steady phase: past the deduplication's memory (20 000 keys of each kind). */
const WARM_UPDATES = 60_000;
const USER = 'Bench11111111111111111111111111111111111111';
const ID_PREFIX = '5KJvsngHeMpm884wtkJNzQGaCErckhHJBGFsvd3';

function order(n: number, status: 'placed' | 'cancelled'): AccountUpdate {
  const o: VenueOrder = {
    orderId: `${ID_PREFIX}${n.toString(36).padStart(5, '0')}`,
    symbol: 'BTC-USD',
    side: n % 2 === 0 ? 'buy' : 'sell',
    price: 50_000 + (n % 100) / 10,
    originalSize: 0.001,
    remainingSize: 0.001,
    filledSize: 0,
    avgFillPrice: 0,
    maker: true,
    status,
    venueTimeNs: 1_700_000_000_000_000_000n + BigInt(n),
    reason: undefined,
    reduceOnly: false,
    tif: 'ALO',
    parked: undefined,
  };
  return { kind: 'order', order: o };
}

/** Sends updates `from` to `to` (each even one places order n/2, the odd one cancels it); returns updates per second. */
function send(updates: Subject<AccountUpdate>, from: number, to: number): number {
  const t0 = performance.now();
  for (let i = from; i < to; i++) updates.next(order(i >> 1, i % 2 === 0 ? 'placed' : 'cancelled'));
  return ((to - from) * 1000) / (performance.now() - t0);
}

function run(): { fresh: number; steady: number } {
  const updates = new Subject<AccountUpdate>();
  const streams = new AccountStreams({
    source: {
      updates$: () => updates,
      fills: async () => [],
      openOrders: async () => [],
      orderHistory: async () => [],
    },
  });
  let emitted = 0;
  const sub = streams.orderUpdates$(USER).subscribe(() => emitted++);
  updates.next({ kind: 'snapshot', snapshot: { openOrders: [], positions: [], collateral: [{ coin: 'USDC', amount: 100_000 }], leverage: [] } });
  const fresh = send(updates, 0, UPDATES);
  send(updates, UPDATES, WARM_UPDATES);
  const steady = send(updates, WARM_UPDATES, WARM_UPDATES + UPDATES);
  sub.unsubscribe();
  if (emitted !== WARM_UPDATES + UPDATES) throw new Error(`emitted ${emitted} of ${WARM_UPDATES + UPDATES} order updates`);
  return { fresh, steady };
}

const runs = Array.from({ length: RUNS }, run);
const fresh = median(runs.map((r) => r.fresh));
const steady = median(runs.map((r) => r.steady));
report('account', 'order_updates_per_s', steady, 'updates/s');
report('account', 'order_updates_per_s_fresh', fresh, 'updates/s');
report('account', 'steady_over_fresh', median(runs.map((r) => r.steady / r.fresh)), 'ratio');
