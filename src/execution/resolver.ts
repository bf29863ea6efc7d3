// Resolves orders of unknown fate (unknown outcome, unanswered item, failed cancel) by querying the venue, bounded.
// Invariants: reads only, never re-signs or re-sends; an order is concluded locally only after successful rounds missed it.

import type { Logger } from '../client/logger.js';
import { silentLogger } from '../client/logger.js';
import type { Timers, VenueQueries } from './ports.js';
import { realTimers } from './ports.js';
import type { TrackedOrder, Tracker } from './tracker.js';

export interface ResolverOptions {
  queries: VenueQueries;
  /** Base58 public key of the traded account. */
  account: string;
  tracker: Tracker;
  /** Delay before each query round, ms; its length bounds the rounds. Default 100, 250, 500, 1000, 2000, 4000. */
  delaysMs?: readonly number[];
  timers?: Timers;
  logger?: Logger;
  /** Called after a round changed what is known about `order` (e.g. it now rests: a deferred cancel may go). */
  onLearned?: (order: TrackedOrder) => void;
}

interface Pending {
  readonly order: TrackedOrder;
  /** Rounds that answered (successful queries) since it was added. */
  rounds: number;
  /** Rounds that failed in transport. */
  failures: number;
}

export const DEFAULT_RESOLVE_DELAYS_MS: readonly number[] = [100, 250, 500, 1000, 2000, 4000];

export class Resolver {
  private readonly pending = new Map<TrackedOrder, Pending>();
  private timer: unknown = undefined;
  private running = false;
  private stopped = false;
  private readonly delays: readonly number[];
  private readonly timers: Timers;
  private readonly logger: Logger;
  private waiters: (() => void)[] = [];

  constructor(private readonly opts: ResolverOptions) {
    this.delays = opts.delaysMs ?? DEFAULT_RESOLVE_DELAYS_MS;
    if (this.delays.length === 0) throw new RangeError('delaysMs needs at least one delay');
    this.timers = opts.timers ?? realTimers;
    this.logger = opts.logger ?? silentLogger;
  }

  /** Orders waiting to be resolved. */
  get size(): number {
    return this.pending.size;
  }

  has(order: TrackedOrder): boolean {
    return this.pending.has(order);
  }

  /** Queues `order` for resolution (its count starts again when it was queued already). */
  add(order: TrackedOrder): void {
    if (this.stopped || order.orderId === undefined || order.terminal) return;
    this.pending.set(order, { order, rounds: 0, failures: 0 });
    this.schedule();
  }

  /** Resolves when nothing is left to resolve. */
  whenDone(): Promise<void> {
    if (this.pending.size === 0 && !this.running) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    this.pending.clear();
    this.wake();
  }

  private schedule(): void {
    if (this.running || this.timer !== undefined || this.pending.size === 0 || this.stopped) return;
    let next = Infinity;
    for (const p of this.pending.values()) next = Math.min(next, p.rounds + p.failures);
    const delay = this.delays[Math.min(next, this.delays.length - 1)]!;
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      void this.round();
    }, delay);
  }

  private async round(): Promise<void> {
    this.running = true;
    const { queries, account, tracker } = this.opts;
    const batch = [...this.pending.values()];
    try {
      let open: Awaited<ReturnType<VenueQueries['openOrders']>>;
      let history: Awaited<ReturnType<VenueQueries['orderHistory']>>;
      try {
        [open, history] = await Promise.all([queries.openOrders(account), queries.orderHistory(account)]);
      } catch (e) {
        for (const p of batch) {
          p.failures++;
          if (p.rounds + p.failures >= this.delays.length) {
            this.pending.delete(p.order);
            this.logger.warn({ orderId: p.order.orderId, error: (e as Error).message }, 'order left unresolved: the venue could not be queried');
          }
        }
        return;
      }
      if (this.stopped) return;
      const openById = new Map(open.map((r) => [r.orderId, r]));
      const historyById = new Map(history.map((r) => [r.orderId, r]));
      for (const p of batch) {
        if (this.pending.get(p.order) !== p) continue;
        const o = p.order;
        p.rounds++;
        const last = p.rounds + p.failures >= this.delays.length;
        const id = o.orderId!;
        const done = historyById.get(id);
        const resting = openById.get(id);
        if (done) tracker.apply({ orderId: id, status: done.status, filledSize: done.executedSize, reason: done.reason });
        else if (resting) {
          tracker.apply({ orderId: id, status: resting.status, filledSize: resting.filledSize });
          if (o.cancelPending && !o.inFlight && last) tracker.cancelFailed(o, 'cancel not confirmed: the order still rests');
        } else if (last && !o.inFlight) {
          if (o.venue === undefined) tracker.conclude(o, 'rejectedInvalid', `not found at the venue after ${p.rounds} queries (submit outcome was unknown)`);
          else tracker.conclude(o, 'cancelled', 'gone from the venue and not in its order history');
        }
        const settled = o.terminal || (resting !== undefined && !o.cancelPending);
        if (settled || last) this.pending.delete(o);
        if (settled || resting !== undefined) this.opts.onLearned?.(o);
      }
    } finally {
      this.running = false;
      this.schedule();
      this.wake();
    }
  }

  private wake(): void {
    if (this.pending.size > 0 || this.running) return;
    for (const w of this.waiters.splice(0)) w();
  }
}
