// Resolves orders of unknown fate (unknown outcome, unanswered item, failed cancel) by querying the venue until resolved.
// Invariants: reads only (a lost cancel goes back to the caller); an order is concluded only after successful queries missed it.

import type { ClosedOrder, VenueOrder } from '../core/account-data.js';
import type { Logger } from '../core/logger.js';
import { silentLogger } from '../core/logger.js';
import type { Timers, VenueQueries } from './ports.js';
import { realTimers } from './ports.js';
import type { TrackedOrder, Tracker } from './tracker.js';

export interface ResolverOptions {
  queries: VenueQueries;
  /** Base58 public key of the traded account. */
  account: string;
  tracker: Tracker;
  /**
   * Delay before each query round, ms: its length is the number of answered rounds that must miss an order before it
   * is concluded; the last delay is the cap while the venue cannot be queried (rounds go on until it answers).
   * Default 100, 250, 500, 1000, 2000, 4000.
   */
  delaysMs?: readonly number[];
  timers?: Timers;
  logger?: Logger;
  /** Called after a round changed what is known about `order` (e.g. it now rests: a deferred cancel may go). */
  onLearned?: (order: TrackedOrder) => void;
  /** `order` still rests after the rounds although its cancel was sent and never answered: send the cancel again. */
  onCancelLost: (order: TrackedOrder) => void;
  /** The venue answers queries again after failing: anything may have changed meanwhile (reconcile). */
  onRecovered?: () => void;
}

interface Pending {
  readonly order: TrackedOrder;
  /** Rounds that answered (successful queries) since it was added. */
  rounds: number;
  /** Rounds that failed in transport (they only lengthen the delay). */
  failures: number;
  /** The venue's error answer to the order's cancel (`order not found`): one answered round decides the order. */
  cancelError: string | undefined;
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
  /** The last round failed in transport (logged once per outage). */
  private failing = false;

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

  /**
   * Queues `order` for resolution; `cancelError` is the venue's error answer to its cancel. An order queued already
   * keeps its count (repeated answers must not postpone its conclusion).
   */
  add(order: TrackedOrder, cancelError?: string): void {
    if (this.stopped || order.orderId === undefined || order.terminal) return;
    const queued = this.pending.get(order);
    if (queued) queued.cancelError = cancelError ?? queued.cancelError;
    else this.pending.set(order, { order, rounds: 0, failures: 0, cancelError });
    this.schedule();
  }

  /** Stops resolving `order` (a new request about it was sent; its answer queues it again if needed). */
  forget(order: TrackedOrder): void {
    this.pending.delete(order);
    this.wake();
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
      let open: readonly VenueOrder[];
      let history: readonly ClosedOrder[];
      try {
        [open, history] = await Promise.all([queries.openOrders(account), queries.orderHistory(account)]);
      } catch (e) {
        for (const p of batch) p.failures++;
        if (!this.failing) {
          this.failing = true;
          const retryMs = this.delays[this.delays.length - 1]!;
          this.logger.warn(
            { orders: batch.length, retryMs, error: (e as Error).message },
            'orders unresolved: the venue cannot be queried; retrying until it answers',
          );
        }
        return;
      }
      if (this.stopped) return;
      if (this.failing) {
        this.failing = false;
        this.logger.info({ orders: this.pending.size }, 'the venue answers again: resolving the orders left unresolved');
        this.opts.onRecovered?.();
      }
      const openById = new Map(open.map((r) => [r.orderId, r]));
      const historyById = new Map(history.map((r) => [r.orderId, r]));
      for (const p of batch) {
        if (this.pending.get(p.order) !== p) continue;
        this.decide(p, historyById.get(p.order.cancelId!), openById.get(p.order.cancelId!), tracker);
      }
    } finally {
      this.running = false;
      this.schedule();
      this.wake();
    }
  }

  /** One answered round about `p`: `done` its history row, `resting` its open row (neither: the venue has not got it). */
  private decide(p: Pending, done: ClosedOrder | undefined, resting: VenueOrder | undefined, tracker: Tracker): void {
    const o = p.order;
    const id = o.orderId!;
    p.rounds++;
    const last = p.rounds >= this.delays.length;
    let lostCancel = false;
    if (done) tracker.apply(done);
    else if (resting) {
      tracker.apply(resting);
      if (o.cancelPending && !o.inFlight) {
        if (p.cancelError !== undefined) tracker.cancelFailed(o, `cancel failed: ${p.cancelError}`);
        else lostCancel = last;
      }
    } else if (!o.inFlight && (last || p.cancelError !== undefined)) {
      const reason =
        p.cancelError !== undefined
          ? `lost by the venue (e.g. a restart): its cancel was answered "${p.cancelError}" and the order is neither open nor in the order history`
          : o.venue === undefined
            ? `not found at the venue after ${p.rounds} queries (submit outcome was unknown)`
            : `lost by the venue (e.g. a restart): neither open nor in the order history after ${p.rounds} queries`;
      this.logger.warn({ orderId: id, strategy: o.strategy, reason }, 'order concluded: the venue does not know it');
      tracker.conclude(o, o.venue === undefined ? 'rejectedInvalid' : 'cancelled', reason);
    }
    const settled = o.terminal || (resting !== undefined && !o.cancelPending);
    if (settled || last) this.pending.delete(o);
    if (lostCancel) this.opts.onCancelLost(o);
    else if (settled || resting !== undefined) this.opts.onLearned?.(o);
  }

  private wake(): void {
    if (this.pending.size > 0 || this.running) return;
    for (const w of this.waiters.splice(0)) w();
  }
}
