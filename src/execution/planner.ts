// Planner: one strategy intent → primitive operations (place, cancel) against that strategy's own live orders.
// Invariants: pure; never touches another strategy's orders; a quote set or replace that already holds plans nothing;
// a quote set leaves the strategy's trigger orders (stops, take-profits) alone.

import type { Intent, OrderSpec, QuoteSpec, TriggerSpec, WhenMark } from '../core/intent.js';
import type { TrackedOrder, Tracker } from './tracker.js';

/** A `basket` intent's orders, parked together. */
export type BasketStep = Omit<Extract<Intent, { kind: 'basket' }>, 'dataTimeMs' | 'dataVersion' | 'arrivalNs'>;

export type PlannedStep =
  | { readonly kind: 'place'; readonly order: OrderSpec }
  | { readonly kind: 'cancel'; readonly target: TrackedOrder }
  | { readonly kind: 'basket'; readonly basket: BasketStep };

export interface Plan {
  readonly steps: readonly PlannedStep[];
  /** The places depend on the cancels (replace): when a cancel is refused, the places must not go either. */
  readonly linked: boolean;
  /** Why nothing (or less than asked) was planned, for the log. */
  readonly notes: readonly string[];
}

/** What the planner reads: the tracker's live orders and lookup by reference. */
export type PlannerView = Pick<Tracker, 'openOrders' | 'find'>;

const EMPTY: Plan = { steps: [], linked: false, notes: [] };

/** Equal up to float noise (1e-9 relative): prices and sizes rounded to steps compare equal. */
export function sameNumber(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

/** A live order that is not already being cancelled. */
function cancellable(o: TrackedOrder): boolean {
  return !o.terminal && !o.cancelPending;
}

/** The live order already is `spec` (same market, side, price, open size, time in force, reduce-only, trigger, mark condition, on-fill orders and tag). */
export function orderMatchesSpec(o: TrackedOrder, spec: OrderSpec): boolean {
  const s = o.spec;
  return (
    sameTerms(s, spec) &&
    samePrice(s, spec) &&
    sameNumber(o.remaining, spec.size) &&
    sameWhenMark(s.whenMark, spec.whenMark) &&
    sameChildren(s.onFill, spec.onFill) &&
    (spec.clientTag === undefined || spec.clientTag === s.clientTag)
  );
}

/** The same market, side, time in force, reduce-only flag and trigger (price, size and tag aside). */
function sameTerms(a: OrderSpec, b: OrderSpec): boolean {
  return a.symbol === b.symbol && a.side === b.side && a.tif === b.tif && a.reduceOnly === b.reduceOnly && sameTrigger(a.trigger, b.trigger);
}

/** Equal limit prices; two orders without one are the same only as trigger orders (a market order is never kept). */
function samePrice(a: OrderSpec, b: OrderSpec): boolean {
  if (a.price === undefined || b.price === undefined) return a.price === b.price && a.trigger !== undefined;
  return sameNumber(a.price, b.price);
}

function sameTrigger(a: TriggerSpec | undefined, b: TriggerSpec | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.kind !== b.kind) return false;
  const x = a as unknown as Record<string, number>;
  const y = b as unknown as Record<string, number>;
  for (const key in x) if (key !== 'kind' && !sameNumber(x[key]!, y[key]!)) return false;
  return true;
}

/** Equal on-fill lists: the same orders (market, side, price, size, time in force, reduce-only, trigger, tag) in the same order. */
function sameChildren(a: readonly OrderSpec[] | undefined, b: readonly OrderSpec[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i]!;
    return (
      sameTerms(x, y) &&
      (x.price === undefined || y.price === undefined ? x.price === y.price : sameNumber(x.price, y.price)) &&
      sameNumber(x.size, y.size) &&
      x.clientTag === y.clientTag
    );
  });
}

function sameWhenMark(a: WhenMark | undefined, b: WhenMark | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.above === b.above && sameNumber(a.price, b.price);
}

/** The resting order satisfies the quote (side, price, open size). */
export function orderMatchesQuote(o: TrackedOrder, q: QuoteSpec): boolean {
  return o.spec.side === q.side && o.spec.price !== undefined && sameNumber(o.spec.price, q.price) && sameNumber(o.remaining, q.size) && !o.spec.reduceOnly;
}

export function quoteOrder(symbol: string, q: QuoteSpec): OrderSpec {
  return { symbol, side: q.side, price: q.price, size: q.size, tif: q.tif ?? 'GTC', reduceOnly: false };
}

/** The minimal steps taking `live` (the strategy's orders in `symbol`) to exactly `quotes`. */
export function diffQuotes(symbol: string, quotes: readonly QuoteSpec[], live: readonly TrackedOrder[]): PlannedStep[] {
  const kept = new Set<TrackedOrder>();
  const missing: QuoteSpec[] = [];
  for (const q of quotes) {
    const match = live.find((o) => !kept.has(o) && orderMatchesQuote(o, q));
    if (match) kept.add(match);
    else missing.push(q);
  }
  const steps: PlannedStep[] = [];
  for (const o of live) if (!kept.has(o)) steps.push({ kind: 'cancel', target: o });
  for (const q of missing) steps.push({ kind: 'place', order: quoteOrder(symbol, q) });
  return steps;
}

/** The steps for `intent` of `strategy`, given the orders the tracker holds now. */
export function planIntent(strategy: string, intent: Intent, view: PlannerView): Plan {
  switch (intent.kind) {
    case 'place':
      return { steps: [{ kind: 'place', order: intent.order }], linked: false, notes: [] };
    case 'cancel': {
      const target = view.find(strategy, intent.ref);
      if (!target || target.spec.symbol !== intent.symbol)
        return { ...EMPTY, notes: [`cancel: no live order ${JSON.stringify(intent.ref)} in ${intent.symbol}`] };
      if (target.cancelPending) return EMPTY;
      return { steps: [{ kind: 'cancel', target }], linked: false, notes: [] };
    }
    case 'cancelAll': {
      const symbols = intent.symbols;
      const steps: PlannedStep[] = [];
      if (symbols === undefined) for (const o of view.openOrders(strategy)) cancellable(o) && steps.push({ kind: 'cancel', target: o });
      else for (const s of new Set(symbols)) for (const o of view.openOrders(strategy, s)) cancellable(o) && steps.push({ kind: 'cancel', target: o });
      return { steps, linked: false, notes: [] };
    }
    case 'replace': {
      const target = view.find(strategy, intent.ref);
      if (!target || !cancellable(target)) {
        const note = target
          ? 'replace: the order is already being cancelled; placing the new one'
          : `replace: no live order ${JSON.stringify(intent.ref)}; placing the new one`;
        return { steps: [{ kind: 'place', order: intent.order }], linked: false, notes: [note] };
      }
      if (orderMatchesSpec(target, intent.order)) return EMPTY;
      return {
        steps: [
          { kind: 'cancel', target },
          { kind: 'place', order: intent.order },
        ],
        linked: true,
        notes: [],
      };
    }
    case 'quoteSet': {
      const live = view.openOrders(strategy, intent.symbol).filter((o) => cancellable(o) && o.spec.trigger === undefined);
      return { steps: diffQuotes(intent.symbol, intent.quotes, live), linked: false, notes: [] };
    }
    case 'basket':
      return { steps: [{ kind: 'basket', basket: intent }], linked: false, notes: [] };
  }
}
