// Runs strategies side by side, each isolated: validates every intent, stops a faulty strategy alone, routes order events back.
// Invariants: only valid intents of a starting/running strategy reach intents$; a strategy leaves starting/running exactly once per start.

import { BehaviorSubject, isObservable, type Observable, Subject, Subscription } from 'rxjs';
import type { Clock } from '../core/clock.js';
import { StrategyError } from '../core/errors.js';
import type { Intent, OrderEvent } from '../core/intent.js';
import { safeParse } from '../core/schema.js';
import type { StrategyContext, StrategyDefinition, StrategyLogger, StrategyReport } from './api.js';
import { silentStrategyLogger } from './context.js';
import { intentSchema, intentSymbols } from './intent-schema.js';

/**
 * `starting`: create() is running or its stream is being subscribed. `running`: subscribed, intents flow.
 * `stopping`: stop requested or the stream completed; intents are ignored while onStopped (cancelling
 * the orders) settles. `stopped`: done. `failed`: threw, errored or emitted an invalid intent.
 */
export type StrategyState = 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

export interface StrategyStatus {
  readonly name: string;
  readonly state: StrategyState;
  /** Why it is stopping, stopped or failed. */
  readonly reason: string | undefined;
  /** Epoch ms of the last state change. */
  readonly sinceMs: number;
  /** Runs of this strategy that ended `failed` since the host was made. */
  readonly failures: number;
}

/** An intent with the strategy instance that emitted it. */
export interface HostedIntent {
  readonly strategy: string;
  readonly intent: Intent;
  /** The strategy's valid intents so far in this host, this one included (1, 2, …; a restart keeps counting). */
  readonly seq: number;
}

export interface StrategyHostOptions {
  clock: Clock;
  /**
   * Called once whenever a strategy stops running (stopped, completed or failed), with the reason: the
   * app cancels its orders. A returned promise keeps a stopping strategy in `stopping` until it settles; the
   * fields of the object it resolves to (e.g. how its orders and position were closed) join the stop log line.
   */
  onStopped?: (name: string, reason: string) => void | Promise<unknown>;
  log?: StrategyLogger;
}

export interface StrategyStart<P = unknown> {
  /** Instance name, unique in the host (config `strategies[i].name`). */
  readonly name: string;
  readonly definition: StrategyDefinition<P>;
  /** Already validated (the loader does it). */
  readonly params: P;
  readonly context: StrategyContext;
  /** Markets its intents may name (LoadedStrategy.symbols); absent or empty: the context's symbols; both empty: any. */
  readonly symbols?: readonly string[];
}

interface Slot {
  readonly name: string;
  status: StrategyStatus;
  /** Identifies the current start; callbacks of an older one are ignored. */
  run: object | undefined;
  subscription: Subscription | undefined;
  symbols: ReadonlySet<string>;
  done: Promise<void> | undefined;
  intents: number;
}

const ACTIVE: ReadonlySet<StrategyState> = new Set(['starting', 'running']);

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class StrategyHost {
  private readonly slots = new Map<string, Slot>();
  private readonly orderSubjects = new Map<string, Subject<OrderEvent>>();
  private readonly intents = new Subject<HostedIntent>();
  private readonly statuses = new BehaviorSubject<readonly StrategyStatus[]>([]);
  private readonly changes = new Subject<StrategyStatus>();
  private readonly reports = new Map<string, StrategyReport>();
  private readonly log: StrategyLogger;

  /**
   * Valid intents of every running strategy, in emission order. Hot: subscribe before starting
   * strategies (an intent emitted while nobody listens is lost). Never errors.
   */
  readonly intents$: Observable<HostedIntent> = this.intents.asObservable();

  /** Every strategy's status, current first, then after every change. */
  readonly status$: Observable<readonly StrategyStatus[]> = this.statuses.asObservable();

  /** Each state change as it happens (not replayed). */
  readonly changes$: Observable<StrategyStatus> = this.changes.asObservable();

  constructor(private readonly opts: StrategyHostOptions) {
    this.log = opts.log ?? silentStrategyLogger;
  }

  /** Status of every strategy ever started, in start order. */
  snapshot(): readonly StrategyStatus[] {
    return this.statuses.value;
  }

  status(name: string): StrategyStatus | undefined {
    return this.slots.get(name)?.status;
  }

  /**
   * The order events of strategy `name` (give it to the context before `start`). Hot; events arrive only
   * while the strategy is starting or running.
   */
  orders$(name: string): Observable<OrderEvent> {
    return this.ordersOf(name).asObservable();
  }

  /** Keeps `fields` as what strategy `name` last reported (give `(f) => host.report(name, f)` to its context). */
  report(name: string, fields: StrategyReport): void {
    this.reports.set(name, fields);
  }

  /** What strategy `name` last reported (kept after it stops), or undefined. */
  reportOf(name: string): StrategyReport | undefined {
    return this.reports.get(name);
  }

  /** Delivers `event` to its strategy (`event.strategy`); false when that strategy is not running. */
  routeOrderEvent(event: OrderEvent): boolean {
    const slot = this.slots.get(event.strategy);
    if (!slot || !ACTIVE.has(slot.status.state)) return false;
    this.ordersOf(event.strategy).next(event);
    return true;
  }

  /** Routes every event of `events$` (execution's order events) until the subscription ends. */
  routeOrderEvents(events$: Observable<OrderEvent>): Subscription {
    return events$.subscribe((e) => this.routeOrderEvent(e));
  }

  /**
   * Starts a strategy: calls create() and subscribes to its intents. A failure here marks it `failed`
   * (and calls onStopped) instead of throwing. Throws StrategyError when `name` is starting or running.
   */
  start<P>(spec: StrategyStart<P>): StrategyStatus {
    const existing = this.slots.get(spec.name);
    if (existing && (ACTIVE.has(existing.status.state) || existing.status.state === 'stopping')) {
      throw new StrategyError(`strategy ${spec.name} is already ${existing.status.state}`);
    }
    const run = {};
    const slot: Slot = existing ?? {
      name: spec.name,
      status: { name: spec.name, state: 'starting', reason: undefined, sinceMs: 0, failures: 0 },
      run,
      subscription: undefined,
      symbols: new Set(),
      done: undefined,
      intents: 0,
    };
    slot.run = run;
    slot.symbols = new Set(spec.symbols?.length ? spec.symbols : spec.context.symbols);
    slot.done = undefined;
    this.slots.set(spec.name, slot);
    this.ordersOf(spec.name);
    const subscription = new Subscription();
    slot.subscription = subscription;
    this.setState(slot, 'starting', undefined);

    let source: Observable<Intent>;
    try {
      source = spec.definition.create(spec.context, spec.params);
      if (!isObservable(source)) throw new StrategyError('create() did not return an Observable');
    } catch (e) {
      this.fail(slot, run, `create() threw: ${describe(e)}`, e);
      return slot.status;
    }
    try {
      // If the strategy already failed or completed during subscribe, `subscription` is closed and add() tears this down at once.
      subscription.add(
        source.subscribe({
          next: (value) => this.onIntent(slot, run, value),
          error: (e: unknown) => this.fail(slot, run, `error: ${describe(e)}`, e),
          complete: () => this.finish(slot, run, 'completed'),
        }),
      );
    } catch (e) {
      this.fail(slot, run, `subscribe threw: ${describe(e)}`, e);
      return slot.status;
    }
    if (slot.run === run && slot.status.state === 'starting') {
      this.setState(slot, 'running', undefined);
      this.log.info({ strategy: slot.name }, 'strategy running');
    }
    return slot.status;
  }

  /**
   * Stops strategy `name`: unsubscribes it, calls onStopped and resolves once that settled. Stopping
   * a stopped or failed strategy resolves at once. Throws StrategyError for an unknown name.
   */
  stop(name: string, reason = 'stopped'): Promise<void> {
    const slot = this.slots.get(name);
    if (!slot) throw new StrategyError(`no strategy named ${name}`);
    if (slot.done) return slot.done;
    if (!slot.run) return Promise.resolve();
    return this.finish(slot, slot.run, reason);
  }

  /** Stops every strategy (in parallel); resolves when all settled. */
  stopAll(reason = 'stopped'): Promise<void> {
    return Promise.all([...this.slots.keys()].map((name) => this.stop(name, reason))).then(() => undefined);
  }

  private ordersOf(name: string): Subject<OrderEvent> {
    let s = this.orderSubjects.get(name);
    if (!s) this.orderSubjects.set(name, (s = new Subject<OrderEvent>()));
    return s;
  }

  private onIntent(slot: Slot, run: object, value: unknown): void {
    if (slot.run !== run || !ACTIVE.has(slot.status.state)) return;
    const parsed = safeParse(intentSchema, value, 'intent');
    if (!parsed.ok) return this.fail(slot, run, `invalid intent: ${parsed.error.message}`, parsed.error);
    const intent = parsed.value;
    if (slot.symbols.size > 0) {
      for (const { field, symbol } of intentSymbols(intent)) {
        if (!slot.symbols.has(symbol))
          return this.fail(slot, run, `invalid intent: intent.${field}: ${symbol} is not one of the strategy's markets (${[...slot.symbols].join(', ')})`);
      }
    }
    this.intents.next({ strategy: slot.name, intent, seq: ++slot.intents });
  }

  /** Ends the current run with `failed`: unsubscribes, then onStopped (its outcome only logged). */
  private fail(slot: Slot, run: object, reason: string, cause?: unknown): void {
    if (slot.run !== run || !ACTIVE.has(slot.status.state)) return;
    slot.run = undefined;
    this.setState(slot, 'failed', reason);
    this.log.error({ strategy: slot.name, reason, err: cause }, 'strategy failed; stopped on its own');
    this.teardown(slot);
    slot.done = this.notifyStopped(slot.name, reason).then(() => undefined);
  }

  /** Ends the current run through `stopping` to `stopped` once onStopped settled. */
  private finish(slot: Slot, run: object, reason: string): Promise<void> {
    if (slot.run !== run || !ACTIVE.has(slot.status.state)) return slot.done ?? Promise.resolve();
    slot.run = undefined;
    this.setState(slot, 'stopping', reason);
    this.log.info({ strategy: slot.name, reason }, 'strategy stopping');
    this.teardown(slot);
    const done = this.notifyStopped(slot.name, reason).then((outcome) => {
      this.setState(slot, 'stopped', reason);
      this.log.info({ ...outcome, strategy: slot.name, reason }, 'strategy stopped');
    });
    slot.done = done;
    return done;
  }

  private teardown(slot: Slot): void {
    const subscription = slot.subscription;
    slot.subscription = undefined;
    try {
      subscription?.unsubscribe();
    } catch (e) {
      this.log.warn({ strategy: slot.name, err: e }, 'strategy teardown threw');
    }
  }

  /** Calls onStopped; resolves with the object it resolved to (else undefined) when it settles (failures are logged, never rethrown). */
  private notifyStopped(name: string, reason: string): Promise<object | undefined> {
    const onStopped = this.opts.onStopped;
    if (!onStopped) return Promise.resolve(undefined);
    try {
      return Promise.resolve(onStopped(name, reason)).then(
        (outcome) => (typeof outcome === 'object' && outcome !== null ? outcome : undefined),
        (e: unknown) => {
          this.log.error({ strategy: name, err: e }, 'onStopped failed');
          return undefined;
        },
      );
    } catch (e) {
      this.log.error({ strategy: name, err: e }, 'onStopped threw');
      return Promise.resolve(undefined);
    }
  }

  private setState(slot: Slot, state: StrategyState, reason: string | undefined): void {
    const failures = slot.status.failures + (state === 'failed' ? 1 : 0);
    slot.status = { name: slot.name, state, reason, sinceMs: this.opts.clock.nowMs(), failures };
    this.statuses.next([...this.slots.values()].map((s) => s.status));
    this.changes.next(slot.status);
  }
}
