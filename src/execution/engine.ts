// Execution façade: intents → planner → risk gate → batcher → tracker → order events; resolution, reconciliation, stop.
// Invariants: every primitive op passes the risk gate before signing (denials never reach the wire); injected time only.

import { type Observable, Subject, filter, type Subscription } from 'rxjs';
import type { Clock } from '../core/clock.js';
import { ValidationError } from '../core/errors.js';
import { triggerProblem, type DataStamp, type Intent, type IntentRef, type OrderEvent, type OrderSpec } from '../core/intent.js';
import { SYMBOL_PATTERN, TIFS, type Network } from '../core/types.js';
import type { Logger } from '../core/logger.js';
import { silentLogger } from '../core/logger.js';
import { RecentUse, type Rehearsal } from '../latency/rehearsal.js';
import type { DialectCodec, SignMode } from '../protocol/dialect.js';
import type { OrderItem } from '../protocol/orders.js';
import type { MessageSigner } from '../protocol/presigner.js';
import type { PlannedOp, RiskGate } from '../risk/types.js';
import type { Submitter, SubmitOutcome, VenueOrderFact } from '../venue/port.js';
import { Batcher, type Batch, type BatchSink, type Command, type FlushMode } from './batcher.js';
import { cloidFactory } from './cloid.js';
import type { ExecutionMetrics } from './metrics.js';
import { matchItems } from './outcome.js';
import { type BasketStep, type PlannedStep, planIntent } from './planner.js';
import type { Timers, VenueQueries } from './ports.js';
import { realTimers } from './ports.js';
import { reconcile, type ReconcileOptions, type ReconcileReport } from './reconcile.js';
import { Resolver } from './resolver.js';
import { Tracker, type OrderView, type TrackedOrder } from './tracker.js';

export interface ExecutionOptions {
  /** The venue's dialect codec: order JSON, signable bytes, predicted ids, whether orders carry client ids. */
  codec: DialectCodec;
  /** The signer (the account itself or one of its agents). */
  key: MessageSigner;
  /** Base58 public key of the traded account. Default: the key's. */
  account?: string;
  /** Network byte of the current dialect. Default mainnet. */
  network?: Network;
  /** Default raw. */
  mode?: SignMode;
  /** The signer's monotonic nonce source (NonceSource fits). */
  nonces: { next(): bigint };
  /** The venue's submitter. */
  submitter: Submitter;
  /** The venue's account queries (its account source fits). */
  queries: VenueQueries;
  risk: RiskGate;
  clock: Clock;
  /** The account's order updates (AccountStreams.orderUpdates$ of VenueOrder fits; also those recovered after a reconnect). */
  orderUpdates$?: Observable<VenueOrderFact>;
  /** Emits after every (re)connection of the account stream: each emission reconciles. */
  resync$?: Observable<unknown>;
  /** Items per signed batch. Default 100. */
  maxBatchItems?: number;
  /** When a tick's commands are flushed. Default `microtask`. */
  flush?: FlushMode;
  /** Delays of the query rounds resolving unknown outcomes, ms (their count bounds the rounds). */
  resolveDelaysMs?: readonly number[];
  reconcile?: ReconcileOptions;
  metrics?: ExecutionMetrics;
  logger?: Logger;
  timers?: Timers;
  /** Salt of client order ids, unique per run. Default: the clock's ns at construction. */
  sessionNs?: bigint;
}

export interface StopOptions {
  /** Cancel every order of the bot and wait for the venue to confirm. Default true. */
  cancelOrders?: boolean;
  /** How long to wait for confirmations and answers, ms. Default 5000. */
  deadlineMs?: number;
}

export interface StopReport {
  /** Orders confirmed gone (cancelled or otherwise terminal) while stopping. */
  readonly cancelled: number;
  /** Order ids still open (unconfirmed) at the deadline. */
  readonly open: readonly string[];
  readonly timedOut: boolean;
}

export type ExecutionState = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

const REJECTION = /^rejected/;
/** Longest wait for cancel confirmations before stopping reconciles with the venue and asks again, ms. */
const STOP_PASS_MS = 1000;

/** Why a spec cannot be sent at all, or undefined when it is well formed. */
export function specProblem(spec: OrderSpec): string | undefined {
  if (typeof spec.symbol !== 'string' || !SYMBOL_PATTERN.test(spec.symbol)) return `symbol ${JSON.stringify(spec.symbol)} is not <BASE>-USD`;
  if (spec.side !== 'buy' && spec.side !== 'sell') return `side must be buy or sell`;
  if (!(typeof spec.size === 'number' && Number.isFinite(spec.size) && spec.size > 0)) return `size must be a finite number > 0, got ${spec.size}`;
  if (spec.price !== undefined && !(typeof spec.price === 'number' && Number.isFinite(spec.price) && spec.price > 0))
    return `price must be a finite number > 0, got ${spec.price}`;
  if (!TIFS.includes(spec.tif)) return `tif must be GTC, IOC or ALO, got ${String(spec.tif)}`;
  if (typeof spec.reduceOnly !== 'boolean') return 'reduceOnly must be a boolean';
  const trigger = spec.trigger;
  if (trigger !== undefined) {
    const problem = triggerProblem(trigger, spec.price !== undefined);
    if (problem !== undefined) return problem;
    if (spec.tif !== 'GTC') return `a trigger order's tif must be GTC, got ${spec.tif}`;
  }
  const when = spec.whenMark;
  if (when !== undefined && !(typeof when.above === 'boolean' && typeof when.price === 'number' && Number.isFinite(when.price) && when.price > 0))
    return `whenMark must be {above: boolean, price: a finite number > 0}, got ${JSON.stringify(when)}`;
  return undefined;
}

/** Why on-fill orders cannot be sent (each as specProblem, none with children of its own), or undefined. */
function onFillProblem(children: readonly OrderSpec[]): string | undefined {
  if (children.length === 0) return 'onFill must list at least one order';
  for (let j = 0; j < children.length; j++) {
    const child = children[j]!;
    const problem = child.onFill !== undefined ? 'an on-fill order cannot have onFill orders of its own' : specProblem(child);
    if (problem !== undefined) return `onFill[${j}]: ${problem}`;
  }
  return undefined;
}

/** Why a basket cannot be sent (no orders, a bad whenMark, an order as specProblem or with a trigger, onFill or whenMark of its own), or undefined. */
function basketProblem(b: BasketStep): string | undefined {
  const when = b.whenMark;
  if (!(typeof when?.above === 'boolean' && typeof when.price === 'number' && Number.isFinite(when.price) && when.price > 0))
    return `whenMark must be {above: boolean, price: a finite number > 0}, got ${JSON.stringify(when)}`;
  for (let j = 0; j < b.orders.length; j++) {
    const o = b.orders[j]!;
    const problem =
      o.trigger !== undefined || o.onFill !== undefined || o.whenMark !== undefined
        ? "a basket's orders are market or limit orders without trigger, onFill or whenMark of their own"
        : specProblem(o);
    if (problem !== undefined) return `orders[${j}]: ${problem}`;
  }
  return undefined;
}

/** The place at `i` among the plan's places of its market and side: its leg (IntentRef.leg). */
function legOf(steps: readonly PlannedStep[], i: number): number {
  const o = (steps[i] as Extract<PlannedStep, { kind: 'place' }>).order;
  let leg = 0;
  for (let j = 0; j < i; j++) {
    const s = steps[j]!;
    if (s.kind === 'place' && s.order.symbol === o.symbol && s.order.side === o.side) leg++;
  }
  return leg;
}

export class Execution implements Rehearsal {
  readonly account: string;
  private readonly tracker: Tracker;
  private readonly batcher: Batcher;
  private readonly resolver: Resolver;
  private readonly events = new Subject<OrderEvent>();
  private readonly logger: Logger;
  private readonly metrics: ExecutionMetrics;
  private readonly timers: Timers;
  private readonly subscriptions: Subscription[] = [];
  private buffered: [string, Intent, number | undefined][] = [];
  private stateValue: ExecutionState = 'idle';
  private reconciling: Promise<ReconcileReport> | undefined;
  private reconcileQueued: Promise<ReconcileReport> | undefined;
  private writeHooks = false;
  private readonly sampled = new WeakSet<Batch>();
  private readonly eventWaiters = new Set<() => void>();
  /** The last intent executed (and its strategy) and the last place risk decided: what rehearse() runs again. */
  private lastIntent: Intent | undefined;
  private lastStrategy = '';
  private lastPlace: PlannedOp | undefined;
  /** The stages rehearse() runs, each skipped once after it ran for real. */
  private readonly used = { plan: new RecentUse(), risk: new RecentUse(), batch: new RecentUse() };

  constructor(private readonly opts: ExecutionOptions) {
    this.account = opts.account ?? opts.key.publicKey;
    this.logger = opts.logger ?? silentLogger;
    this.metrics = opts.metrics ?? {};
    this.timers = opts.timers ?? realTimers;
    const { clock } = opts;
    this.tracker = new Tracker({
      nowMs: () => clock.nowMs(),
      onEvent: (e) => this.onEvent(e),
      cloid: opts.codec.clientOrderIds ? cloidFactory(this.account, opts.sessionNs ?? clock.nowNs()) : undefined,
    });
    this.batcher = new Batcher({
      codec: opts.codec,
      key: opts.key,
      account: this.account,
      network: opts.network ?? 'mainnet',
      mode: opts.mode ?? 'raw',
      nonces: opts.nonces,
      submitter: opts.submitter,
      clock,
      sink: this.sink(),
      maxItems: opts.maxBatchItems,
      flush: opts.flush,
      timers: this.timers,
    });
    this.resolver = new Resolver({
      queries: opts.queries,
      account: this.account,
      tracker: this.tracker,
      delaysMs: opts.resolveDelaysMs,
      timers: this.timers,
      logger: this.logger,
      onLearned: (o) => this.learned(o),
      onCancelLost: (o) => this.resendCancel(o),
      onRecovered: () => this.reconcileInBackground(),
    });
  }

  get state(): ExecutionState {
    return this.stateValue;
  }

  /** Order events of `strategy` (of every strategy when undefined), emitted synchronously as execution learns them. */
  events$(strategy?: string): Observable<OrderEvent> {
    return strategy === undefined ? this.events.asObservable() : this.events.pipe(filter((e) => e.strategy === strategy));
  }

  /** Live orders (pending included) of `strategy` / `symbol`, or of everyone. */
  openOrders(strategy?: string, symbol?: string): OrderView[] {
    return this.tracker.openOrders(strategy, symbol);
  }

  /** Open plus pending orders of the bot (for the risk view). */
  openOrderCount(): number {
    return this.tracker.openOrderCount();
  }

  /** Base units open and pending orders in `symbol` would add if all filled, per side (for the risk view). */
  openOrderSizes(symbol: string): { buy: number; sell: number } {
    return this.tracker.openOrderSizes(symbol);
  }

  /** The tracked order with venue id `orderId`, if known. */
  order(orderId: string): OrderView | undefined {
    return this.tracker.get(orderId);
  }

  /**
   * Subscribes the account feeds and reconciles with the venue; intents submitted before it resolves are held and
   * run afterwards. Throws what the first reconciliation throws (the engine is idle again then).
   */
  async start(): Promise<ReconcileReport> {
    if (this.stateValue !== 'idle') throw new Error(`cannot start: execution is ${this.stateValue}`);
    this.stateValue = 'starting';
    const { orderUpdates$, resync$ } = this.opts;
    if (orderUpdates$) this.subscriptions.push(orderUpdates$.subscribe((u) => this.onFact(u)));
    let report: ReconcileReport;
    try {
      report = await this.reconcile();
    } catch (e) {
      for (const s of this.subscriptions.splice(0)) s.unsubscribe();
      this.stateValue = 'idle';
      throw e;
    }
    if (resync$) this.subscriptions.push(resync$.subscribe(() => this.reconcileInBackground()));
    this.stateValue = 'running';
    const held = this.buffered;
    this.buffered = [];
    for (const [strategy, intent, seq] of held) this.execute(strategy, intent, seq);
    return report;
  }

  /**
   * Hands over one intent of `strategy`; its events follow on events$(strategy). Tick-to-trade starts at the intent's
   * `arrivalNs` (when it carries one). `seq`: the strategy's intent number (HostedIntent.seq), carried by the events of
   * the orders it places (OrderEvent.intent). Never throws for a refused intent.
   */
  submit(strategy: string, intent: Intent, seq?: number): void {
    if (this.stateValue === 'running') return this.execute(strategy, intent, seq);
    if (this.stateValue === 'idle' || this.stateValue === 'starting') this.buffered.push([strategy, intent, seq]);
    else this.logger.warn({ strategy, kind: intent.kind, state: this.stateValue }, 'intent ignored: execution is stopping');
  }

  /**
   * A dry run of the last tick's way to the wire, changing nothing: the last intent planned again against the tracker,
   * the last place decided by risk without taking a rate token, the last batch encoded and signed with the key's
   * throwaway warm key, sent nowhere (the venue's own Rehearsal prepares request bytes). Run between bursts of market
   * data (the session's `keepWarmMs`), it keeps that code and data in the CPU caches, so the next real tick does not
   * start cold. A stage (plan, risk, batch) that ran for real since the last rehearsal is skipped this once.
   */
  rehearse(): void {
    if (this.stateValue !== 'running' || this.lastIntent === undefined) return;
    const { used } = this;
    if (used.plan.due()) planIntent(this.lastStrategy, this.lastIntent, this.tracker);
    if (used.risk.due() && this.lastPlace !== undefined) this.opts.risk.wouldApprove(this.lastPlace, this.opts.clock.nowMs());
    if (used.batch.due()) this.batcher.rehearse();
  }

  /** Sends what is queued now instead of at the end of the tick. */
  flush(): void {
    this.batcher.flush();
  }

  /** Resolves when nothing is queued, in flight or being resolved. */
  async whenIdle(): Promise<void> {
    await this.batcher.whenIdle();
    await this.resolver.whenDone();
    await this.batcher.whenIdle();
  }

  /** Compares the venue's open orders with the tracker now (calls arriving during a pass share the next pass). */
  reconcile(): Promise<ReconcileReport> {
    if (!this.reconciling) {
      this.reconciling = this.reconcileOnce().finally(() => {
        this.reconciling = undefined;
      });
      return this.reconciling;
    }
    this.reconcileQueued ??= this.reconciling
      .catch(() => undefined)
      .then(() => {
        this.reconcileQueued = undefined;
        return this.reconcile();
      });
    return this.reconcileQueued;
  }

  /**
   * Cancels every live order of `strategy` (e.g. when the host stopped it) and waits, at most `deadlineMs` (default
   * 5000), until the venue confirmed each. Orders whose cancel risk refused stay open and are reported. Never throws.
   */
  cancelStrategy(strategy: string, deadlineMs = 5000): Promise<StopReport> {
    return this.cancelAndWait(() => this.tracker.openOrders(strategy), deadlineMs);
  }

  /**
   * Cancels every live order of every strategy (the kill switch) and waits as cancelStrategy does; once they are gone it
   * reads the venue's open orders, so an order of the account the bot did not track (placed behind its back) is cancelled
   * too, and reports `timedOut` when that read did not succeed before the deadline. Never throws.
   */
  cancelAll(deadlineMs = 5000): Promise<StopReport> {
    return this.cancelAndWait(() => this.tracker.openOrders(), deadlineMs, true);
  }

  /**
   * Stops taking intents; with `cancelOrders` (default) cancels every order of the bot and waits, at most
   * `deadlineMs`, until the venue confirmed each; then unsubscribes. Never throws.
   */
  async stop(opts: StopOptions = {}): Promise<StopReport> {
    if (this.stateValue === 'stopped' || this.stateValue === 'stopping') return { cancelled: 0, open: [], timedOut: false };
    const deadlineMs = opts.deadlineMs ?? 5000;
    const deadline = this.opts.clock.nowMs() + deadlineMs;
    this.stateValue = 'stopping';
    this.buffered = [];
    this.batcher.flush();
    const report = (opts.cancelOrders ?? true) ? await this.cancelAll(deadlineMs) : { cancelled: 0, open: [], timedOut: false };
    await this.withDeadline(this.batcher.whenIdle(), Math.max(0, deadline - this.opts.clock.nowMs()));
    for (const s of this.subscriptions.splice(0)) s.unsubscribe();
    this.resolver.stop();
    this.stateValue = 'stopped';
    for (const w of this.eventWaiters) w();
    return report;
  }

  // ------------------------------------------------------------------ intents → commands

  private execute(strategy: string, intent: Intent, seq: number | undefined): void {
    const arrivalNs = intent.arrivalNs;
    this.lastIntent = intent;
    this.lastStrategy = strategy;
    this.used.plan.mark();
    const plan = planIntent(strategy, intent, this.tracker);
    for (const note of plan.notes) this.logger.info({ strategy, kind: intent.kind }, note);
    if (plan.steps.length === 0) return;
    const nowMs = this.opts.clock.nowMs();
    const stamp: DataStamp = { dataTimeMs: intent.dataTimeMs, dataVersion: intent.dataVersion };
    let refused = false;
    for (let i = 0; i < plan.steps.length; i++) {
      const step = plan.steps[i]!;
      if (step.kind === 'cancel') {
        if (!this.cancel(step.target, nowMs, arrivalNs)) refused = true;
        continue;
      }
      if (step.kind === 'basket') {
        this.placeBasket(strategy, step.basket, stamp, nowMs, arrivalNs, seq === undefined ? undefined : { seq, leg: 0, dataTimeMs: intent.dataTimeMs });
        continue;
      }
      const ref = seq === undefined ? undefined : { seq, leg: legOf(plan.steps, i), dataTimeMs: intent.dataTimeMs };
      if (refused && plan.linked) this.refuse(strategy, step.order, 'rejectedRiskLimit', 'LINKED', 'not placed: the cancel it replaces was refused', ref);
      else this.place(strategy, step.order, stamp, nowMs, arrivalNs, ref);
    }
  }

  /** Cancels `target` for its owner (an order of a parked basket: the whole basket); false when risk refused the cancel. */
  private cancel(order: TrackedOrder, nowMs: number, arrivalNs: bigint | undefined): boolean {
    const target = order.basket !== undefined && !order.fired ? order.basket.members[0]! : order;
    if (target.terminal || target.cancelPending) return true;
    if (target.venue === undefined && target.heldBy?.terminal === false) {
      this.tracker.note(target, `held until ${target.heldBy.eventId} fills: cancel that order to cancel this one`);
      return false;
    }
    if (target.orderId === undefined) {
      if (this.batcher.withdraw(target)) this.tracker.drop(target);
      return true;
    }
    const refusal = this.cancelRefusal(target, nowMs);
    if (refusal !== undefined) {
      this.tracker.note(target, refusal);
      return false;
    }
    this.tracker.requestCancel(target);
    if (target.inFlight || target.unknown) this.tracker.deferCancel(target);
    else this.batcher.enqueue({ kind: 'cancel', order: target, arrivalNs });
    return true;
  }

  /** Why risk refuses to cancel `order` now (the denial counted), or undefined when the cancel may go. */
  private cancelRefusal(order: TrackedOrder, nowMs: number): string | undefined {
    const decision = this.opts.risk.check({ kind: 'cancel', strategy: order.strategy, symbol: order.spec.symbol }, nowMs);
    if (decision.ok) return undefined;
    this.metrics.denials?.inc({ reason: decision.reason });
    return `cancel refused by risk ${decision.reason}: ${decision.detail}`;
  }

  /** The cancel of `order` was sent but the order still rests (the cancel never arrived): the cancel goes again. */
  private resendCancel(order: TrackedOrder): void {
    if (order.terminal || !order.cancelPending || order.orderId === undefined) return;
    this.resolver.forget(order);
    const refusal = this.cancelRefusal(order, this.opts.clock.nowMs());
    if (refusal !== undefined) return this.tracker.cancelFailed(order, `cancel not confirmed (the order still rests); sending it again: ${refusal}`);
    this.logger.info({ orderId: order.orderId, strategy: order.strategy }, 'cancel not confirmed and the order still rests: cancelling again');
    this.batcher.enqueue({ kind: 'cancel', order, arrivalNs: undefined });
  }

  private place(strategy: string, spec: OrderSpec, stamp: DataStamp, nowMs: number, arrivalNs: bigint | undefined, ref: IntentRef | undefined): void {
    const problem = specProblem(spec) ?? (spec.onFill === undefined ? undefined : onFillProblem(spec.onFill));
    if (problem !== undefined) return this.refuse(strategy, spec, 'rejectedInvalid', 'INVALID', problem, ref);
    const unsupported =
      spec.trigger === undefined && spec.onFill === undefined && spec.whenMark === undefined
        ? undefined
        : this.inexpressible({ kind: 'place', spec, cloid: undefined });
    if (unsupported !== undefined) return this.refuse(strategy, spec, 'rejectedInvalid', 'UNSUPPORTED', unsupported, ref);
    const duplicate = this.duplicateTag(strategy, spec);
    if (duplicate !== undefined) return this.refuse(strategy, spec, 'rejectedDuplicate', 'DUPLICATE_TAG', duplicate, ref);
    const op: PlannedOp = { kind: 'place', strategy, order: spec, stamp };
    this.lastPlace = op;
    this.used.risk.mark();
    const decision = spec.onFill === undefined ? this.opts.risk.check(op, nowMs) : this.checkWithChildren(op, spec.onFill, nowMs);
    if (!decision.ok) {
      this.metrics.denials?.inc({ reason: decision.reason });
      const order = this.tracker.create(strategy, spec, ref);
      this.tracker.conclude(order, 'rejectedRiskLimit', `risk ${decision.reason}: ${decision.detail}`);
      return;
    }
    this.batcher.enqueue({ kind: 'place', order: this.tracker.create(strategy, spec, ref), arrivalNs });
  }

  /** Why `spec`'s client tag cannot be used (a live order of the strategy carries it; the codec has no client ids), or undefined. */
  private duplicateTag(strategy: string, spec: OrderSpec): string | undefined {
    if (this.opts.codec.clientOrderIds || spec.clientTag === undefined) return undefined;
    const live = this.tracker.find(strategy, { clientTag: spec.clientTag });
    return live && !live.cancelPending ? `client tag ${JSON.stringify(spec.clientTag)} is carried by live order ${live.eventId}` : undefined;
  }

  /** A `basket` intent: its orders checked as places (each by risk, before any is tracked), then parked together in one trigger basket. */
  private placeBasket(strategy: string, b: BasketStep, stamp: DataStamp, nowMs: number, arrivalNs: bigint | undefined, ref: IntentRef | undefined): void {
    if (b.orders.length === 0) {
      this.metrics.denials?.inc({ reason: 'LOCAL_INVALID' });
      this.logger.warn({ strategy }, 'basket intent ignored: orders must list at least one order');
      return;
    }
    const refusal = this.basketRefusal(strategy, b, stamp, nowMs);
    const lead = this.tracker.createBasket(strategy, b.symbol, b.whenMark, b.orders, ref);
    if (refusal === undefined) return this.batcher.enqueue({ kind: 'place', order: lead, arrivalNs });
    this.metrics.denials?.inc({ reason: refusal.metric });
    this.tracker.conclude(lead, refusal.status, refusal.reason);
  }

  /** Why a basket must not go (execution's own checks, then risk on each order), or undefined. */
  private basketRefusal(
    strategy: string,
    b: BasketStep,
    stamp: DataStamp,
    nowMs: number,
  ): { status: 'rejectedInvalid' | 'rejectedDuplicate' | 'rejectedRiskLimit'; metric: string; reason: string } | undefined {
    const problem = basketProblem(b) ?? (SYMBOL_PATTERN.test(b.symbol) ? undefined : `symbol ${JSON.stringify(b.symbol)} is not <BASE>-USD`);
    if (problem !== undefined) return { status: 'rejectedInvalid', metric: 'LOCAL_INVALID', reason: `execution INVALID: ${problem}` };
    const unsupported = this.inexpressible({ kind: 'basket', symbol: b.symbol, whenMark: b.whenMark, specs: b.orders });
    if (unsupported !== undefined) return { status: 'rejectedInvalid', metric: 'LOCAL_UNSUPPORTED', reason: `execution UNSUPPORTED: ${unsupported}` };
    const tags = new Set<string>();
    for (const order of b.orders) {
      const tag = order.clientTag;
      const duplicate =
        tag !== undefined && tags.has(tag) ? `client tag ${JSON.stringify(tag)} appears twice in the basket` : this.duplicateTag(strategy, order);
      if (duplicate !== undefined) return { status: 'rejectedDuplicate', metric: 'LOCAL_DUPLICATE_TAG', reason: `execution DUPLICATE_TAG: ${duplicate}` };
      if (tag !== undefined) tags.add(tag);
    }
    for (const order of b.orders) {
      const decision = this.opts.risk.check({ kind: 'place', strategy, order, stamp }, nowMs);
      if (!decision.ok) return { status: 'rejectedRiskLimit', metric: decision.reason, reason: `risk ${decision.reason}: ${decision.detail}` };
    }
    return undefined;
  }

  /** Risk's decision on an order and each of its on-fill orders (each a place of its own): the first denial, else ok. */
  private checkWithChildren(op: Extract<PlannedOp, { kind: 'place' }>, children: readonly OrderSpec[], nowMs: number) {
    const decision = this.opts.risk.check(op, nowMs);
    if (!decision.ok) return decision;
    for (const child of children) {
      const d = this.opts.risk.check({ ...op, order: child }, nowMs);
      if (!d.ok) return d;
    }
    return decision;
  }

  /** Why the dialect cannot express `item` (a conditional, on-fill or basket order; protocol/orders.ts decides), or undefined. */
  private inexpressible(item: OrderItem): string | undefined {
    try {
      this.opts.codec.orderActions([item]);
      return undefined;
    } catch (e) {
      if (e instanceof ValidationError) return `the ${this.opts.codec.name} dialect: ${e.message}`;
      throw e;
    }
  }

  /** An order refused before the risk gate (execution's own checks): a terminal event under a local id. */
  private refuse(
    strategy: string,
    spec: OrderSpec,
    status: 'rejectedInvalid' | 'rejectedRiskLimit' | 'rejectedDuplicate',
    code: string,
    detail: string,
    ref: IntentRef | undefined,
  ): void {
    this.metrics.denials?.inc({ reason: `LOCAL_${code}` });
    const order = this.tracker.create(strategy, spec, ref);
    this.tracker.conclude(order, status, `execution ${code}: ${detail}`);
  }

  // ------------------------------------------------------------------ batches → facts

  private sink(): BatchSink {
    return {
      admit: (c) => this.admit(c),
      signed: (b) => this.signed(b),
      written: (b) => this.written(b),
      settled: (b, outcome) => this.settled(b, outcome),
      signFailed: (c, e) => {
        if (c.kind === 'place') this.tracker.conclude(c.order, 'rejectedInvalid', `not signed: ${e.message}`);
        else this.tracker.cancelFailed(c.order, `cancel not signed: ${e.message}`);
      },
    };
  }

  private admit(c: Command): boolean {
    if (c.order.terminal || !this.tracker.isOpen(c.order)) return false;
    if (c.kind === 'place' && this.opts.risk.state === 'HALTED') {
      this.metrics.denials?.inc({ reason: 'HALTED' });
      this.tracker.conclude(c.order, 'rejectedRiskLimit', 'risk HALTED: trading was halted before the order was sent');
      return false;
    }
    return true;
  }

  private signed(batch: Batch): void {
    this.used.batch.mark();
    const ids = batch.request.encoded.orderIds;
    const commands = batch.commands;
    for (let i = 0; i < commands.length; i++) {
      const c = commands[i]!;
      if (c.kind !== 'place') continue;
      if (c.order.basket !== undefined) this.tracker.sentBasket(c.order.basket, batch.request.encoded.childOrderIds[i]!, ids[i]!);
      else if (c.order.spec.whenMark !== undefined) this.tracker.sentParked(c.order, batch.request.encoded.childOrderIds[i]![0]!, ids[i]!);
      else this.tracker.sent(c.order, ids[i]!);
      if (c.order.children !== undefined) this.tracker.sentChildren(c.order, batch.request.encoded.childOrderIds[i]!);
    }
    this.metrics.batchItems?.observe(commands.length);
    if (!this.writeHooks) {
      this.sampled.add(batch);
      this.sampleTickToTrade(batch);
    }
  }

  private written(batch: Batch): void {
    this.writeHooks = true;
    if (!this.sampled.has(batch)) this.sampleTickToTrade(batch);
  }

  private sampleTickToTrade(batch: Batch): void {
    const histogram = this.metrics.tickToTradeSeconds;
    if (!histogram) return;
    const now = this.opts.clock.nowNs();
    let seen: bigint | undefined;
    for (const c of batch.commands) {
      if (c.arrivalNs === undefined || c.arrivalNs === seen) continue;
      seen = c.arrivalNs;
      histogram.observe(Number(now - c.arrivalNs) / 1e9);
    }
  }

  private settled(batch: Batch, outcome: SubmitOutcome): void {
    const { clock, risk } = this.opts;
    const nowMs = clock.nowMs();
    // A 429 that outlasted the client's rateLimitMaxWaitMs is back-pressure (the venue changed nothing), not a rejection.
    const rateLimited = outcome.outcome === 'rejected' && outcome.httpStatus === 429;
    this.metrics.submitOutcomes?.inc({ outcome: rateLimited ? 'rate_limited' : outcome.outcome });
    this.metrics.ackLatencySeconds?.observe(Number(clock.nowNs() - batch.sentNs) / 1e9);
    const commands = batch.commands;
    for (const c of commands) if (c.kind === 'place') this.tracker.answered(c.order);
    if (outcome.outcome === 'accepted') {
      const { answers, others } = matchItems(
        commands.map((c) => c.order.cancelId!),
        outcome.items,
      );
      commands.forEach((c, i) => {
        const answer = answers[i]!;
        for (const fact of answer.facts) {
          this.tracker.apply(fact);
          if (REJECTION.test(fact.status)) risk.onVenueReject(fact.status, nowMs);
        }
        if (c.kind === 'place' && answer.error !== undefined) {
          this.tracker.conclude(c.order, 'rejectedInvalid', answer.error);
          risk.onVenueReject('error', nowMs);
        } else if (c.kind === 'cancel' && answer.error !== undefined) {
          // Still pendingCancel until a query says whether the order rests, is done, or is unknown to the venue.
          this.tracker.note(c.order, `cancel answered "${answer.error}": asking the venue`);
          this.resolver.add(c.order, answer.error);
        } else if (answer.facts.length === 0 || (c.kind === 'cancel' && c.order.cancelPending)) this.resolver.add(c.order);
      });
      for (const fact of others) this.onFact(fact);
    } else if (outcome.outcome === 'rejected') {
      const why = `request rejected${outcome.httpStatus === undefined ? '' : ` (HTTP ${outcome.httpStatus}${outcome.code ? ` ${outcome.code}` : ''})`}: ${outcome.reason}`;
      if (!rateLimited) risk.onVenueReject(outcome.code ?? 'error', nowMs);
      for (const c of commands) {
        if (c.kind === 'place') this.tracker.conclude(c.order, 'rejectedInvalid', why);
        else this.tracker.cancelFailed(c.order, why);
      }
    } else {
      this.logger.warn({ nonce: String(batch.nonce), items: commands.length, reason: outcome.reason }, 'submit outcome unknown; resolving by query');
      for (const c of commands) {
        if (c.kind === 'place') this.tracker.markUnknown(c.order, `submit outcome unknown: ${outcome.reason}`);
        this.resolver.add(c.order);
      }
    }
    for (const c of commands) if (c.kind === 'place') this.learned(c.order);
  }

  /** A venue fact from the account stream (or about an order no command named). */
  private onFact(fact: VenueOrderFact): void {
    const order = this.tracker.apply(fact);
    if (order) this.learned(order);
  }

  /** Something new is known about `order`: send its deferred cancel when it is due. */
  private learned(order: TrackedOrder): void {
    if (this.tracker.takeDeferredCancel(order)) this.batcher.enqueue({ kind: 'cancel', order, arrivalNs: undefined });
  }

  private onEvent(e: OrderEvent): void {
    this.metrics.orderEvents?.inc({ status: e.status });
    this.events.next(e);
    for (const w of this.eventWaiters) w();
  }

  // ------------------------------------------------------------------ reconciliation and waiting

  /** Reconciles without waiting (after a reconnect, or when the venue answers again); a failure is logged. */
  private reconcileInBackground(): void {
    if (this.stateValue === 'running' || this.stateValue === 'stopping')
      this.reconcile().catch((e: Error) => this.logger.warn({ error: e.message }, 'reconciliation failed'));
  }

  private async reconcileOnce(): Promise<ReconcileReport> {
    const report = await reconcile({ queries: this.opts.queries, account: this.account, tracker: this.tracker }, this.opts.reconcile);
    const nowMs = this.opts.clock.nowMs();
    for (const o of report.toCancel) this.cancel(o, nowMs, undefined);
    for (const o of report.missing) this.resolver.add(o);
    for (const o of report.adopted) this.learned(o);
    for (const o of report.refreshed) this.learned(o);
    const counts = {
      open: report.open,
      adopted: report.adopted.length,
      cancelling: report.toCancel.length,
      resolved: report.resolved.length,
      missing: report.missing.length,
    };
    if (report.toCancel.length > 0) {
      this.logger.warn(
        {
          ...counts,
          unknownOrders: this.opts.reconcile?.unknownOrders ?? 'cancel',
          orders: report.toCancel.map((o) => ({ orderId: o.orderId, symbol: o.spec.symbol, side: o.spec.side, price: o.spec.price, size: o.spec.size })),
        },
        'reconciled orders with the venue: cancelling open orders that no strategy of this bot owns',
      );
    } else if (counts.adopted + counts.resolved + counts.missing > 0) this.logger.info(counts, 'reconciled orders with the venue');
    return report;
  }

  /**
   * Cancels the orders `select` returns (again each pass: it also sees orders reconciliation found) until none is open
   * or `deadlineMs` passed. Between passes it reconciles with the venue and sends again the cancels of orders that
   * still rest although their cancel was sent (it never arrived). Orders whose cancel risk refused are not waited for.
   * With `verify` it ends only after a reconciliation that ran once every target was gone (what it found, reconciliation
   * cancels or adopts, and `select` then returns); a failed one is tried again a pass later until the deadline.
   */
  private async cancelAndWait(select: () => TrackedOrder[], deadlineMs: number, verify = false): Promise<StopReport> {
    const { clock } = this.opts;
    const deadline = clock.nowMs() + deadlineMs;
    const passMs = Math.max(1, Math.min(STOP_PASS_MS, deadlineMs / 4));
    const targets = new Set<TrackedOrder>();
    const refused = new Set<TrackedOrder>();
    const ask = () => {
      refused.clear();
      for (const t of select()) {
        targets.add(t);
        if (!this.cancel(t, clock.nowMs(), undefined)) refused.add(t);
      }
      this.batcher.flush();
    };
    const gone = () => select().every((t) => refused.has(t));
    let verified = !verify;
    let failedCheck = false;
    ask();
    for (;;) {
      const left = deadline - clock.nowMs();
      if (left <= 0) break;
      const done = await this.waitFor(gone, Math.min(left, passMs));
      if (done && verified) break;
      if (done && failedCheck) {
        await this.waitFor(() => false, Math.min(Math.max(0, deadline - clock.nowMs()), passMs));
        if (deadline - clock.nowMs() <= 0) break;
      }
      const report = await this.withDeadline(this.reconcile(), Math.max(0, deadline - clock.nowMs()));
      failedCheck = done && report === undefined;
      if (done && report !== undefined) verified = true;
      // Reconciliation cancels the orders no strategy owns at once (they may be gone before the next ask).
      if (verify) for (const o of report?.toCancel ?? []) targets.add(o);
      for (const o of report?.refreshed ?? []) if (targets.has(o)) this.resendCancel(o);
      ask();
    }
    const open = [...targets].filter((t) => this.tracker.isOpen(t));
    if (!verified)
      this.logger.warn({ deadlineMs }, "could not read the venue's open orders before the deadline: orders the bot does not track may still be open");
    return { cancelled: targets.size - open.length, open: open.map((o) => o.eventId), timedOut: open.length > 0 || !verified };
  }

  /** Resolves true once `done()` holds (checked after every event), false at the timeout. */
  private waitFor(done: () => boolean, timeoutMs: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (ok: boolean) => {
        this.eventWaiters.delete(check);
        this.timers.clear(timer);
        resolve(ok);
      };
      const check = () => {
        if (done()) finish(true);
      };
      const timer = this.timers.set(() => finish(done()), timeoutMs);
      this.eventWaiters.add(check);
    });
  }

  /** `p`'s value, or undefined when it rejects or `ms` passes first. */
  private withDeadline<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
    return new Promise((resolve) => {
      const timer = this.timers.set(() => resolve(undefined), ms);
      p.then(
        (value) => {
          this.timers.clear(timer);
          resolve(value);
        },
        () => {
          this.timers.clear(timer);
          resolve(undefined);
        },
      );
    });
  }
}
