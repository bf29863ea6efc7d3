// Hand-written fakes for execution tests: a risk gate, the venue port's submitter and account queries, manual timers.
import { BehaviorSubject, type Observable } from 'rxjs';
import type { ClosedOrder, TerminalOrderStatus, VenueOrder } from '../../../src/core/account-data.js';
import { ManualClock } from '../../../src/core/clock.js';
import type { OrderSpec, OrderStatus } from '../../../src/core/intent.js';
import type { SignedRequest } from '../../../src/protocol/sign.js';
import type { PlannedOp, RiskDecision, RiskGate, TradingState, TradingStateChange } from '../../../src/risk/types.js';
import type { ItemResult, SubmitHooks, SubmitOutcome, Submitter, VenueOrderFact } from '../../../src/venue/port.js';
import type { Timers, VenueQueries } from '../../../src/execution/ports.js';

export class FakeRisk implements RiskGate {
  readonly checks: PlannedOp[] = [];
  readonly dryChecks: PlannedOp[] = [];
  readonly rejects: string[] = [];
  state: TradingState = 'ACTIVE';
  private readonly states = new BehaviorSubject<TradingStateChange>({ state: 'ACTIVE', reason: 'start', atMs: 0 });
  readonly state$: Observable<TradingStateChange> = this.states.asObservable();

  constructor(public decide: (op: PlannedOp) => RiskDecision = () => ({ ok: true })) {}

  check(op: PlannedOp): RiskDecision {
    this.checks.push(op);
    if (this.state === 'HALTED' && op.kind === 'place') return { ok: false, reason: 'HALTED', detail: 'halted' };
    return this.decide(op);
  }
  wouldApprove(op: PlannedOp): RiskDecision {
    this.dryChecks.push(op);
    return this.decide(op);
  }
  halt(reason: string): void {
    this.set('HALTED', reason);
  }
  reduceOnly(reason: string): void {
    this.set('REDUCING', reason);
  }
  resume(reason: string): void {
    this.set('ACTIVE', reason);
  }
  onVenueReject(status: string): void {
    this.rejects.push(status);
  }
  onConnection(): void {}
  private set(state: TradingState, reason: string): void {
    this.state = state;
    this.states.next({ state, reason, atMs: 0 });
  }
}

export interface Sent {
  readonly request: SignedRequest;
  readonly body: any;
  resolve(outcome: SubmitOutcome): void;
  hooks: SubmitHooks | undefined;
}

/** Records every request; answers with `answer` (default: accept with `resting` per place, `cancelled` per cancel). */
export class FakeSubmitter implements Submitter {
  readonly sent: Sent[] = [];
  /** When true, answers wait for `sent[i].resolve`. */
  manual = false;

  constructor(public answer?: (request: SignedRequest, body: any) => SubmitOutcome) {}

  submit(request: SignedRequest, hooks?: SubmitHooks): Promise<SubmitOutcome> {
    const body = JSON.parse(request.bodyText);
    return new Promise((resolve) => {
      this.sent.push({ request, body, resolve, hooks });
      if (!this.manual) resolve((this.answer ?? defaultAnswer)(request, body));
    });
  }
}

export function accepted(items: ItemResult[]): SubmitOutcome {
  return { outcome: 'accepted', items };
}

/** An answer item about order `orderId`. */
export function fact(orderId: string | null | undefined, status: OrderStatus, extra: Omit<VenueOrderFact, 'orderId' | 'status'> = {}): ItemResult {
  return { kind: 'order', fact: { orderId: orderId!, status, ...extra } };
}

export function itemError(message: string): ItemResult {
  return { kind: 'error', message };
}

/** Every place rests, every cancel succeeds (v1 or current bodies). */
export function defaultAnswer(request: SignedRequest, body: any): SubmitOutcome {
  const items: any[] = body.action ? body.action.orders : body.actions;
  const ids = request.encoded.orderIds;
  return accepted(items.map((item, i) => (item.order || item.l || item.m ? fact(ids[i], 'placed') : fact((item.cancel ?? item.cx).oid, 'cancelled'))));
}

export class FakeQueries implements VenueQueries {
  open: VenueOrder[] = [];
  history: ClosedOrder[] = [];
  calls = 0;
  fail = 0;

  async openOrders(): Promise<VenueOrder[]> {
    this.calls++;
    if (this.fail > 0) {
      this.fail--;
      throw new Error('venue down');
    }
    return this.open;
  }

  async orderHistory(): Promise<ClosedOrder[]> {
    return this.history;
  }
}

export function openRow(orderId: string, spec: Partial<OrderSpec> & { filledSize?: number; status?: 'placed' | 'working' } = {}): VenueOrder {
  const size = spec.size ?? 1;
  const filled = spec.filledSize ?? 0;
  return {
    orderId,
    symbol: spec.symbol ?? 'BTC-USD',
    side: spec.side ?? 'buy',
    price: spec.price ?? 100,
    originalSize: size,
    remainingSize: size - filled,
    filledSize: filled,
    avgFillPrice: 0,
    maker: false,
    status: spec.status ?? (filled > 0 ? 'working' : 'placed'),
    venueTimeNs: 1n,
    reason: undefined,
    reduceOnly: spec.reduceOnly ?? false,
    tif: spec.tif ?? 'GTC',
  };
}

export function historyRow(orderId: string, status: TerminalOrderStatus, filledSize = 0): ClosedOrder {
  return {
    orderId,
    symbol: 'BTC-USD',
    side: 'buy',
    orderType: 'limit',
    tif: 'GTC',
    price: 100,
    avgFillPrice: 0,
    originalSize: 1,
    filledSize,
    reduceOnly: false,
    status,
    reason: undefined,
    venueTimeNs: 1n,
  };
}

/** Timers that fire only when advanced. */
export class ManualTimers implements Timers {
  private nextId = 1;
  private readonly due = new Map<number, { at: number; fn: () => void }>();
  now = 0;

  set(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.due.set(id, { at: this.now + ms, fn });
    return id;
  }

  clear(handle: unknown): void {
    this.due.delete(handle as number);
  }

  get pending(): number {
    return this.due.size;
  }

  /** Moves time forward, firing due timers in order (and letting promise callbacks run between them). */
  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      await flushPromises();
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.due) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.due.delete(next[0]);
      this.now = next[1].at;
      next[1].fn();
    }
    this.now = end;
    await flushPromises();
  }
}

export async function flushPromises(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
}

export function manualClock(): ManualClock {
  return new ManualClock(1_763_770_000_000_000_000n);
}
