import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Intent, OrderSpec, QuoteSpec } from '../../../src/core/intent.js';
import { diffQuotes, planIntent, quoteOrder, type PlannedStep } from '../../../src/execution/planner.js';
import { Tracker, type TrackedOrder } from '../../../src/execution/tracker.js';

const stamp = { dataTimeMs: 1, dataVersion: 1 };
const spec = (over: Partial<OrderSpec> = {}): OrderSpec => ({ symbol: 'BTC-USD', side: 'buy', price: 100, size: 1, tif: 'GTC', reduceOnly: false, ...over });
let ids = 0;

function tracker(): Tracker {
  return new Tracker({ nowMs: () => 0, onEvent: () => undefined });
}

/** An order of `strategy` resting at the venue. */
function resting(t: Tracker, strategy: string, s: OrderSpec, filled = 0): TrackedOrder {
  const o = t.create(strategy, s);
  const id = `oid${++ids}`;
  t.sent(o, id);
  t.answered(o);
  t.apply({ orderId: id, status: filled > 0 ? 'working' : 'placed', filledSize: filled });
  return o;
}

/** Applies steps the way the venue would (cancels remove, places rest). */
function applySteps(t: Tracker, strategy: string, steps: readonly PlannedStep[]): void {
  for (const s of steps) {
    if (s.kind === 'cancel') t.apply({ orderId: s.target.orderId!, status: 'cancelled' });
    else if (s.kind === 'place') resting(t, strategy, s.order);
  }
}

const quoteSet = (quotes: QuoteSpec[], symbol = 'BTC-USD'): Intent => ({ kind: 'quoteSet', symbol, quotes, ...stamp });

describe('planner: quote sets', () => {
  it('places every quote from nothing, then nothing when the set already rests', () => {
    const t = tracker();
    const q: QuoteSpec[] = [
      { side: 'buy', price: 99, size: 1 },
      { side: 'sell', price: 101, size: 1 },
    ];
    const first = planIntent('mm', quoteSet(q), t);
    expect(first.steps).toEqual([
      { kind: 'place', order: quoteOrder('BTC-USD', q[0]!) },
      { kind: 'place', order: quoteOrder('BTC-USD', q[1]!) },
    ]);
    applySteps(t, 'mm', first.steps);
    expect(planIntent('mm', quoteSet(q), t).steps).toEqual([]);
  });

  it('moves only the quote that changed: one cancel and one place, cancels first', () => {
    const t = tracker();
    const bid = resting(t, 'mm', spec({ side: 'buy', price: 99 }));
    resting(t, 'mm', spec({ side: 'sell', price: 101 }));
    const steps = planIntent(
      'mm',
      quoteSet([
        { side: 'buy', price: 98, size: 1 },
        { side: 'sell', price: 101, size: 1 },
      ]),
      t,
    ).steps;
    expect(steps).toEqual([
      { kind: 'cancel', target: bid },
      { kind: 'place', order: spec({ side: 'buy', price: 98 }) },
    ]);
  });

  it('treats a partly filled order as its open size, and ignores orders already being cancelled', () => {
    const t = tracker();
    const partly = resting(t, 'mm', spec({ size: 2 }), 1);
    expect(planIntent('mm', quoteSet([{ side: 'buy', price: 100, size: 1 }]), t).steps).toEqual([]);
    t.requestCancel(partly);
    expect(planIntent('mm', quoteSet([{ side: 'buy', price: 100, size: 1 }]), t).steps).toEqual([{ kind: 'place', order: spec() }]);
  });

  it('keeps pending (in-flight) orders that match, so a burst of equal quote sets places once', () => {
    const t = tracker();
    const q: QuoteSpec[] = [{ side: 'sell', price: 101, size: 1 }];
    const [step] = planIntent('mm', quoteSet(q), t).steps;
    t.create('mm', (step as { order: OrderSpec }).order);
    expect(planIntent('mm', quoteSet(q), t).steps).toEqual([]);
  });

  it('never touches other strategies or other symbols', () => {
    const t = tracker();
    resting(t, 'other', spec({ price: 50 }));
    resting(t, 'mm', spec({ symbol: 'ETH-USD', price: 50 }));
    const steps = planIntent('mm', quoteSet([]), t).steps;
    expect(steps).toEqual([]);
  });

  it("leaves the strategy's trigger orders (a stop protecting the position) alone", () => {
    const t = tracker();
    resting(t, 'mm', spec({ side: 'sell', price: undefined, reduceOnly: true, trigger: { kind: 'stop', triggerPrice: 90 } }));
    const quote = resting(t, 'mm', spec({ price: 99 }));
    expect(planIntent('mm', quoteSet([]), t).steps).toEqual([{ kind: 'cancel', target: quote }]);
  });

  it('converges with the fewest steps for any starting set (property)', () => {
    const quote = fc.record({ side: fc.constantFrom<'buy' | 'sell'>('buy', 'sell'), price: fc.integer({ min: 95, max: 105 }), size: fc.constantFrom(1, 2) });
    fc.assert(
      fc.property(fc.array(quote, { maxLength: 8 }), fc.array(quote, { maxLength: 8 }), (live, wanted) => {
        const t = tracker();
        for (const l of live) resting(t, 'mm', spec(l));
        const steps = diffQuotes('BTC-USD', wanted, [...t.openOrders('mm', 'BTC-USD')]);
        const key = (q: { side: string; price: number; size: number }) => `${q.side}:${q.price}:${q.size}`;
        const count = (xs: string[]) => xs.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>());
        const have = count(live.map(key));
        const want = count(wanted.map(key));
        let common = 0;
        for (const [k, n] of want) common += Math.min(n, have.get(k) ?? 0);
        expect(steps.length).toBe(live.length + wanted.length - 2 * common);
        const firstPlace = steps.findIndex((s) => s.kind === 'place');
        expect(steps.slice(firstPlace < 0 ? steps.length : firstPlace).every((s) => s.kind === 'place')).toBe(true);
        applySteps(t, 'mm', steps);
        const after = [...t.openOrders('mm', 'BTC-USD')].map((o) => key({ side: o.spec.side, price: o.spec.price!, size: o.remaining }));
        expect(after.sort()).toEqual(wanted.map(key).sort());
        expect(diffQuotes('BTC-USD', wanted, [...t.openOrders('mm', 'BTC-USD')])).toEqual([]);
      }),
    );
  });
});

describe('planner: replace, cancel, cancelAll', () => {
  it('a replace by an identical order is a no-op', () => {
    const t = tracker();
    resting(t, 'mm', spec({ clientTag: 'bid' }));
    const plan = planIntent('mm', { kind: 'replace', ref: { clientTag: 'bid' }, order: spec({ clientTag: 'bid' }), ...stamp }, t);
    expect(plan.steps).toEqual([]);
  });

  it('a replace compares onFill by content: the same children in a new list are a no-op, a changed child replaces', () => {
    const t = tracker();
    const child = (price: number): OrderSpec => ({ symbol: 'BTC-USD', side: 'sell', price, size: 1, tif: 'GTC', reduceOnly: true });
    const parent = spec({ clientTag: 'of', onFill: [child(110), child(120)] });
    resting(t, 'mm', parent);
    const replace = (order: OrderSpec) => planIntent('mm', { kind: 'replace', ref: { clientTag: 'of' }, order, ...stamp }, t).steps.length;
    expect(replace({ ...parent, onFill: [child(110), child(120)] })).toBe(0);
    expect(replace({ ...parent, onFill: [child(110), child(121)] })).toBe(2);
    expect(replace({ ...parent, onFill: [child(110)] })).toBe(2);
    expect(replace(spec({ clientTag: 'of' }))).toBe(2);
  });

  it('a replace compares whenMark: the same condition is a no-op, a moved price or direction, or none, replaces', () => {
    const t = tracker();
    const parked = spec({ clientTag: 'wm', whenMark: { above: true, price: 95 } });
    resting(t, 'mm', parked);
    const replace = (order: OrderSpec) => planIntent('mm', { kind: 'replace', ref: { clientTag: 'wm' }, order, ...stamp }, t).steps.length;
    expect(replace({ ...parked, whenMark: { above: true, price: 95 } })).toBe(0);
    expect(replace({ ...parked, whenMark: { above: true, price: 96 } })).toBe(2);
    expect(replace({ ...parked, whenMark: { above: false, price: 95 } })).toBe(2);
    expect(replace(spec({ clientTag: 'wm' }))).toBe(2);
  });

  it('a replace compares the trigger: the same stop is a no-op, a moved trigger price or another kind replaces', () => {
    const t = tracker();
    const stop = spec({ side: 'sell', reduceOnly: true, clientTag: 'sl', trigger: { kind: 'stop', triggerPrice: 90 } });
    resting(t, 'mm', stop);
    const replace = (order: OrderSpec) => planIntent('mm', { kind: 'replace', ref: { clientTag: 'sl' }, order, ...stamp }, t).steps.length;
    expect(replace(stop)).toBe(0);
    expect(replace({ ...stop, trigger: { kind: 'stop', triggerPrice: 91 } })).toBe(2);
    expect(replace({ ...stop, trigger: { kind: 'takeProfit', triggerPrice: 90 } })).toBe(2);
    const { trigger: _, ...plain } = stop;
    expect(replace(plain)).toBe(2);
    const stopMarket = { ...stop, price: undefined, clientTag: 'slm' };
    resting(t, 'mm', stopMarket);
    const replaceMarket = (order: OrderSpec) => planIntent('mm', { kind: 'replace', ref: { clientTag: 'slm' }, order, ...stamp }, t).steps.length;
    expect(replaceMarket(stopMarket)).toBe(0);
    expect(replaceMarket({ ...stopMarket, price: 89 })).toBe(2);
  });

  it('a replace that differs cancels and places, linked', () => {
    const t = tracker();
    const old = resting(t, 'mm', spec({ clientTag: 'bid' }));
    const plan = planIntent('mm', { kind: 'replace', ref: { orderId: old.orderId! }, order: spec({ clientTag: 'bid', price: 99 }), ...stamp }, t);
    expect(plan).toMatchObject({
      linked: true,
      steps: [
        { kind: 'cancel', target: old },
        { kind: 'place', order: spec({ clientTag: 'bid', price: 99 }) },
      ],
    });
  });

  it('a replace of an order that is not live just places', () => {
    const plan = planIntent('mm', { kind: 'replace', ref: { clientTag: 'nope' }, order: spec(), ...stamp }, tracker());
    expect(plan.steps).toEqual([{ kind: 'place', order: spec() }]);
    expect(plan.notes[0]).toMatch(/no live order/);
  });

  it("cancel finds by tag or id, only among the strategy's own live orders", () => {
    const t = tracker();
    const mine = resting(t, 'mm', spec({ clientTag: 'a' }));
    const theirs = resting(t, 'other', spec({ clientTag: 'a' }));
    expect(planIntent('mm', { kind: 'cancel', symbol: 'BTC-USD', ref: { clientTag: 'a' }, ...stamp }, t).steps).toEqual([{ kind: 'cancel', target: mine }]);
    expect(planIntent('mm', { kind: 'cancel', symbol: 'BTC-USD', ref: { orderId: theirs.orderId! }, ...stamp }, t).steps).toEqual([]);
  });

  it("cancelAll expands to the strategy's own live orders in the symbols asked", () => {
    const t = tracker();
    const a = resting(t, 'mm', spec());
    const b = resting(t, 'mm', spec({ symbol: 'ETH-USD' }));
    resting(t, 'other', spec());
    const c = resting(t, 'mm', spec({ price: 98 }));
    t.requestCancel(c);
    expect(planIntent('mm', { kind: 'cancelAll', ...stamp }, t).steps.map((s) => (s as { target: TrackedOrder }).target)).toEqual([a, b]);
    expect(planIntent('mm', { kind: 'cancelAll', symbols: ['ETH-USD'], ...stamp }, t).steps).toEqual([{ kind: 'cancel', target: b }]);
  });
});
