// Account observables state$, orderUpdates$, fills$, snapshots$ per user over the venue port, reconciled by query after
// every snapshot. Invariants: hot and ref-counted; the state store is updated before emission; order updates and fills
// deduplicated.

import { asyncScheduler, concatMap, defer, filter, map, Observable, share, Subject, type SchedulerLike } from 'rxjs';
import type { AccountNotice, Fill, Liquidation, VenueOrder } from '../core/account-data.js';
import type { BackoffOptions } from '../core/backoff.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { retryWithBackoff } from '../core/rx.js';
import type { AccountDataSource } from '../venue/port.js';
import { KeyCounts } from './dedupe.js';
import { baselineOf, fillKey, missedEvents, orderKey, type Baseline, type MissedEvent, type Seen } from './reconcile.js';
import { applyAccountUpdate, type AccountState } from './state.js';

export interface AccountStreamsOptions {
  source: AccountDataSource;
  /** Retry timers of reconciliation. Default asyncScheduler. */
  scheduler?: SchedulerLike;
  /** Delay between failed reconciliation reads. Default 500 ms doubling to 30 s. */
  backoff?: BackoffOptions;
  random?: () => number;
  logger?: Logger;
}

export type AccountEvent =
  | { type: 'state'; state: AccountState }
  /** An account snapshot arrived (after its `state` event): the venue (re)sent the whole account. */
  | { type: 'snapshot' }
  | { type: 'orderUpdate'; update: VenueOrder; source: 'stream' | 'reconcile' }
  | { type: 'fill'; fill: Fill; source: 'stream' | 'reconcile' }
  | { type: 'liquidation'; liquidation: Liquidation }
  /** adl, a refused cancel or a fee tier change (current generation); a fee tier change also updates the state first. */
  | { type: 'notice'; notice: AccountNotice };

interface Sync {
  prev: AccountState | undefined;
  next: AccountState;
}

const SNAPSHOT: AccountEvent = { type: 'snapshot' };

class UserAccount {
  state: AccountState | undefined;
  readonly events$: Observable<AccountEvent>;

  constructor(
    private readonly user: string,
    private readonly opts: AccountStreamsOptions,
  ) {
    this.events$ = new Observable<AccountEvent>((subscriber) => {
      const seen: Seen = { orders: new KeyCounts(), fills: new KeyCounts() };
      /** Fills the stream delivered, by key (equal fills counted): the n-th equal one is new only beyond n emitted. */
      const streamedFills = new KeyCounts();
      let baseline: Baseline | undefined;
      const syncs = new Subject<Sync>();
      const emitOrder = (update: VenueOrder, source: 'stream' | 'reconcile') => subscriber.next({ type: 'orderUpdate', update, source });
      const emitFill = (fill: Fill, source: 'stream' | 'reconcile') => subscriber.next({ type: 'fill', fill, source });
      const reconciled = syncs
        .pipe(
          concatMap((s) =>
            this.read(
              s,
              () => baseline,
              (b) => (baseline = b),
              seen,
            ),
          ),
        )
        .subscribe((events) => {
          for (const e of events) {
            if (e.kind === 'order') emitOrder(e.order, 'reconcile');
            else emitFill(e.fill, 'reconcile');
          }
        });
      const updates = opts.source.updates$(user).subscribe((u) => {
        const prev = this.state;
        this.state = applyAccountUpdate(user, prev, u);
        if (!this.state) return;
        switch (u.kind) {
          case 'snapshot':
            subscriber.next({ type: 'state', state: this.state });
            syncs.next({ prev, next: this.state });
            return subscriber.next(SNAPSHOT);
          case 'order': {
            if (this.state !== prev) subscriber.next({ type: 'state', state: this.state });
            const key = orderKey(u.order);
            if (seen.orders.count(key) > 0) return;
            seen.orders.add(key);
            return emitOrder(u.order, 'stream');
          }
          case 'fill': {
            // The reconciliation's queries may have emitted it already (the stream delivered it late): not repeated.
            const key = fillKey(u.fill);
            const nth = streamedFills.add(key);
            if (nth < seen.fills.count(key)) return;
            seen.fills.add(key);
            return emitFill(u.fill, 'stream');
          }
          case 'liquidation':
            return subscriber.next({ type: 'liquidation', liquidation: u.liquidation });
          case 'notice':
            if (this.state !== prev) subscriber.next({ type: 'state', state: this.state });
            return subscriber.next({ type: 'notice', notice: u.notice });
          default:
            subscriber.next({ type: 'state', state: this.state });
        }
      });
      return () => {
        updates.unsubscribe();
        reconciled.unsubscribe();
        this.state = undefined;
      };
    }).pipe(share());
  }

  /** Reads fills and order history (retrying until it works); the first read only sets the baseline. */
  private read(sync: Sync, getBaseline: () => Baseline | undefined, setBaseline: (b: Baseline) => void, seen: Seen): Observable<MissedEvent[]> {
    const { source, scheduler = asyncScheduler, backoff = { initialMs: 500, maxMs: 30_000 }, random, logger = silentLogger } = this.opts;
    return defer(async () => {
      const [fills, history] = await Promise.all([source.fills(this.user), source.orderHistory(this.user)]);
      const baseline = getBaseline();
      if (!baseline) {
        setBaseline(baselineOf(fills, history));
        return [];
      }
      return missedEvents(sync.prev, sync.next, fills, history, baseline, seen);
    }).pipe(
      retryWithBackoff(
        backoff,
        (e, attempt) => logger.warn({ user: this.user, attempt, error: e.message }, 'account reconciliation read failed; retrying'),
        scheduler,
        random,
      ),
    );
  }
}

export class AccountStreams {
  private readonly users = new Map<string, UserAccount>();

  constructor(private readonly opts: AccountStreamsOptions) {}

  /** Every event of `user`'s account (state changes, snapshots, order updates, fills, liquidations, notices). */
  events$(user: string): Observable<AccountEvent> {
    return this.of(user).events$;
  }

  /** The account state after every change; replays the current state to a late subscriber. */
  state$(user: string): Observable<AccountState> {
    const account = this.of(user);
    return new Observable<AccountState>((subscriber) => {
      const current = account.state;
      if (current) subscriber.next(current);
      return account.events$
        .pipe(
          filter((e): e is Extract<AccountEvent, { type: 'state' }> => e.type === 'state'),
          map((e) => e.state),
        )
        .subscribe(subscriber);
    });
  }

  /** Order updates, each (order, status, filled size) once, including those recovered after a reconnect. */
  orderUpdates$(user: string): Observable<VenueOrder> {
    return this.of(user).events$.pipe(
      filter((e): e is Extract<AccountEvent, { type: 'orderUpdate' }> => e.type === 'orderUpdate'),
      map((e) => e.update),
    );
  }

  /** Fills of the account (its own side), including those recovered after a reconnect, without repeats. */
  fills$(user: string): Observable<Fill> {
    return this.of(user).events$.pipe(
      filter((e): e is Extract<AccountEvent, { type: 'fill' }> => e.type === 'fill'),
      map((e) => e.fill),
    );
  }

  /** adl, refused cancels and fee tier changes of the account (current generation). */
  notices$(user: string): Observable<AccountNotice> {
    return this.of(user).events$.pipe(
      filter((e): e is Extract<AccountEvent, { type: 'notice' }> => e.type === 'notice'),
      map((e) => e.notice),
    );
  }

  /** One emission per account snapshot (the venue sends one first on every (re)subscription): when to resync orders. */
  snapshots$(user: string): Observable<void> {
    return this.of(user).events$.pipe(
      filter((e) => e.type === 'snapshot'),
      map(() => undefined),
    );
  }

  private of(user: string): UserAccount {
    let account = this.users.get(user);
    if (!account) {
      account = new UserAccount(user, this.opts);
      this.users.set(user, account);
    }
    return account;
  }
}
