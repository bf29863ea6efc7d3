// Counts the risk gate's decisions per strategy: denials by reason (log, status line, /status) and since when every order was denied.
// Invariants: no allocation per decision once a strategy and reason were seen; at most one warning per strategy and reason per logIntervalMs.

import type { RiskEngine } from './engine.js';
import type { PlannedOp, RiskDecision, RiskReason } from './types.js';

export interface DenialLogger {
  warn(fields: object, message: string): void;
}

export interface DenialCounterOptions {
  /** Least time between two warnings for one strategy and reason, ms (the first denial is logged at once). Default 30000. */
  logIntervalMs?: number;
  log: DenialLogger;
}

export interface StrategyDenials {
  /** Denials since the start, by reason. */
  readonly byReason: Readonly<Partial<Record<RiskReason, number>>>;
  readonly total: number;
  /** Epoch ms since when every order of the strategy was denied; undefined when its last order passed or none was denied. */
  readonly allDeniedSinceMs: number | undefined;
  /** The detail of the latest denial of each reason (what to change). */
  readonly lastDetail: Readonly<Partial<Record<RiskReason, string>>>;
}

interface ReasonCount {
  total: number;
  /** Denials not yet in a warning. */
  unlogged: number;
  loggedAtMs: number;
  detail: string;
}

interface Entry {
  readonly reasons: Map<RiskReason, ReasonCount>;
  total: number;
  allDeniedSinceMs: number | undefined;
}

export class DenialCounter {
  private readonly entries = new Map<string, Entry>();
  private readonly logIntervalMs: number;

  constructor(private readonly opts: DenialCounterOptions) {
    this.logIntervalMs = opts.logIntervalMs ?? 30_000;
  }

  /** Notes one decision of the gate on `op` at `nowMs` (epoch ms); logs a denial when its reason was quiet for logIntervalMs. */
  record(op: PlannedOp, decision: RiskDecision, nowMs: number): void {
    let entry = this.entries.get(op.strategy);
    if (decision.ok) {
      if (entry !== undefined && op.kind === 'place') entry.allDeniedSinceMs = undefined;
      return;
    }
    if (entry === undefined) this.entries.set(op.strategy, (entry = { reasons: new Map(), total: 0, allDeniedSinceMs: undefined }));
    entry.total++;
    if (op.kind === 'place') entry.allDeniedSinceMs ??= nowMs;
    let count = entry.reasons.get(decision.reason);
    if (count === undefined) entry.reasons.set(decision.reason, (count = { total: 0, unlogged: 0, loggedAtMs: -Infinity, detail: '' }));
    count.total++;
    count.unlogged++;
    count.detail = decision.detail;
    if (nowMs - count.loggedAtMs >= this.logIntervalMs) this.warn(op.strategy, decision.reason, count, nowMs);
  }

  /** Logs the denials held back for logIntervalMs or longer (call it on a timer). */
  flush(nowMs: number): void {
    for (const [strategy, entry] of this.entries) {
      for (const [reason, count] of entry.reasons) {
        if (count.unlogged > 0 && nowMs - count.loggedAtMs >= this.logIntervalMs) this.warn(strategy, reason, count, nowMs);
      }
    }
  }

  /** The denials of `strategy` (all zero when it had none). */
  of(strategy: string): StrategyDenials {
    const entry = this.entries.get(strategy);
    const byReason: Partial<Record<RiskReason, number>> = {};
    const lastDetail: Partial<Record<RiskReason, string>> = {};
    for (const [reason, count] of entry?.reasons ?? []) {
      byReason[reason] = count.total;
      lastDetail[reason] = count.detail;
    }
    return { byReason, total: entry?.total ?? 0, allDeniedSinceMs: entry?.allDeniedSinceMs, lastDetail };
  }

  private warn(strategy: string, reason: RiskReason, count: ReasonCount, nowMs: number): void {
    const windowS = count.loggedAtMs === -Infinity ? undefined : Math.round((nowMs - count.loggedAtMs) / 1000);
    const n = count.unlogged;
    this.opts.log.warn(
      { strategy, reason, denied: n, deniedTotal: count.total, ...(windowS !== undefined && { windowS }), detail: count.detail },
      `risk denied ${n} operation${n === 1 ? '' : 's'} of strategy ${strategy}${windowS === undefined ? '' : ` in ${windowS} s`}: ${reason} (${count.detail})`,
    );
    count.unlogged = 0;
    count.loggedAtMs = nowMs;
  }
}

/** `gate` with every check() decision noted in `counter` (what execution is given). */
export function countingGate(gate: RiskEngine, counter: DenialCounter): RiskEngine {
  return {
    get config() {
      return gate.config;
    },
    get state() {
      return gate.state;
    },
    state$: gate.state$,
    check(op, nowMs) {
      const decision = gate.check(op, nowMs);
      counter.record(op, decision, nowMs);
      return decision;
    },
    wouldApprove: (op, nowMs) => gate.wouldApprove(op, nowMs),
    halt: (reason) => gate.halt(reason),
    reduceOnly: (reason) => gate.reduceOnly(reason),
    resume: (reason) => gate.resume(reason),
    onVenueReject: (status, nowMs) => gate.onVenueReject(status, nowMs),
    onConnection: (connected, nowMs) => gate.onConnection(connected, nowMs),
    evaluate: (nowMs) => gate.evaluate(nowMs),
  };
}
