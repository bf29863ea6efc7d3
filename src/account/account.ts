// Account observables state$, orderUpdates$, fills$ per user, reconciled over HTTP after every re-subscription.
// Invariants: hot and ref-counted; the state store is updated before emission; order updates and fills deduplicated.

import { asyncScheduler, concatMap, defer, filter, map, Observable, share, Subject, type SchedulerLike } from 'rxjs';
import type { BackoffOptions } from '../core/backoff.js';
import { retryWithBackoff } from '../core/rx.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { StreamSource } from '../client/ws-pool.js';
import type { AccountQueryType, AccountResponse } from '../protocol/v1/account.js';
import type { FillUpdate, Liquidation, OrderUpdate } from '../protocol/v1/stream.js';
import { KeyCounts } from './dedupe.js';
import { baselineOf, fillKey, missedEvents, orderKey, type Baseline, type Seen } from './reconcile.js';
import { applyAccountData, type AccountState } from './state.js';

/** The account queries reconciliation needs (HttpClient has them). */
export interface AccountReader {
  account<T extends AccountQueryType>(type: T, user: string): Promise<AccountResponse<T>>;
}

export interface AccountStreamsOptions {
  source: StreamSource;
  http: AccountReader;
  /** Retry timers of reconciliation. Default asyncScheduler. */
  scheduler?: SchedulerLike;
  /** Delay between failed reconciliation reads. Default 500 ms doubling to 30 s. */
  backoff?: BackoffOptions;
  random?: () => number;
  logger?: Logger;
}

export type AccountEvent =
  | { type: 'state'; state: AccountState }
  | { type: 'orderUpdate'; update: OrderUpdate; source: 'stream' | 'reconcile' }
  | { type: 'fill'; fill: FillUpdate; source: 'stream' | 'reconcile' }
  | { type: 'liquidation'; liquidation: Liquidation };

interface Sync {
  prev: AccountState | undefined;
  next: AccountState;
}

class UserAccount {
  state: AccountState | undefined;
  readonly events$: Observable<AccountEvent>;

  constructor(
    private readonly user: string,
    private readonly opts: AccountStreamsOptions,
  ) {
    this.events$ = new Observable<AccountEvent>((subscriber) => {
      const seen: Seen = { orders: new KeyCounts(), fills: new KeyCounts() };
      let baseline: Baseline | undefined;
      const syncs = new Subject<Sync>();
      const emitOrder = (update: OrderUpdate, source: 'stream' | 'reconcile') => subscriber.next({ type: 'orderUpdate', update, source });
      const emitFill = (fill: FillUpdate, source: 'stream' | 'reconcile') => subscriber.next({ type: 'fill', fill, source });
      const reconciled = syncs.pipe(concatMap((s) => this.read(s, () => baseline, (b) => (baseline = b), seen))).subscribe((events) => {
        for (const e of events) {
          if (e.type === 'orderUpdate') emitOrder(e, 'reconcile');
          else emitFill(e, 'reconcile');
        }
      });
      const messages = opts.source.topic$({ type: 'account', user }).subscribe((m) => {
        if (m.type !== 'account') return;
        const data = m.data;
        const prev = this.state;
        this.state = applyAccountData(user, prev, data);
        if (!this.state) return;
        switch (data.type) {
          case 'accountSnapshot':
            subscriber.next({ type: 'state', state: this.state });
            syncs.next({ prev, next: this.state });
            return;
          case 'orderUpdate': {
            if (this.state !== prev) subscriber.next({ type: 'state', state: this.state });
            const key = orderKey(data);
            if (seen.orders.count(key) > 0) return;
            seen.orders.add(key);
            return emitOrder(data, 'stream');
          }
          case 'fill':
            seen.fills.add(fillKey(data));
            return emitFill(data, 'stream');
          case 'liquidation':
            return subscriber.next({ type: 'liquidation', liquidation: data });
          default:
            subscriber.next({ type: 'state', state: this.state });
        }
      });
      return () => {
        messages.unsubscribe();
        reconciled.unsubscribe();
        this.state = undefined;
      };
    }).pipe(share());
  }

  /** Reads fills and order history (retrying until it works); the first read only sets the baseline. */
  private read(sync: Sync, getBaseline: () => Baseline | undefined, setBaseline: (b: Baseline) => void, seen: Seen) {
    const { scheduler = asyncScheduler, backoff = { initialMs: 500, maxMs: 30_000 }, random, logger = silentLogger } = this.opts;
    return defer(async () => {
      const [fills, history] = await Promise.all([this.opts.http.account('fills', this.user), this.opts.http.account('orderHistory', this.user)]);
      const fillRows = fills.map((r) => r.fills);
      const historyRows = history.map((r) => r.orderHistory);
      const baseline = getBaseline();
      if (!baseline) {
        setBaseline(baselineOf(this.user, fillRows, historyRows));
        return [];
      }
      return missedEvents(this.user, sync.prev, sync.next, fillRows, historyRows, baseline, seen);
    }).pipe(retryWithBackoff(backoff, (e, attempt) => logger.warn({ user: this.user, attempt, error: e.message }, 'account reconciliation read failed; retrying'), scheduler, random));
  }
}

export class AccountStreams {
  private readonly users = new Map<string, UserAccount>();

  constructor(private readonly opts: AccountStreamsOptions) {}

  /** Every event of `user`'s account (state changes, order updates, fills, liquidations). */
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
  orderUpdates$(user: string): Observable<OrderUpdate> {
    return this.of(user).events$.pipe(
      filter((e): e is Extract<AccountEvent, { type: 'orderUpdate' }> => e.type === 'orderUpdate'),
      map((e) => e.update),
    );
  }

  /** Fills of the account, including those recovered after a reconnect, without repeats. */
  fills$(user: string): Observable<FillUpdate> {
    return this.of(user).events$.pipe(
      filter((e): e is Extract<AccountEvent, { type: 'fill' }> => e.type === 'fill'),
      map((e) => e.fill),
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
