import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OrderEvent, OrderSpec } from '../../../src/core/intent.js';
import { Tracker } from '../../../src/execution/tracker.js';
import type { VenueOrderFact } from '../../../src/venue/port.js';

const spec = (over: Partial<OrderSpec> = {}): OrderSpec => ({ symbol: 'BTC-USD', side: 'buy', price: 100, size: 3, tif: 'GTC', reduceOnly: false, ...over });

function setup(cloid?: (s: string, t: string, n: number) => string) {
  const events: OrderEvent[] = [];
  const t = new Tracker({ nowMs: () => 42, onEvent: (e) => events.push(e), cloid });
  return { t, events };
}

describe('tracker state machine', () => {
  it('pendingNew → placed → working → filled, one event per change, to the owner', () => {
    const { t, events } = setup();
    const o = t.create('mm', spec({ clientTag: 'x' }));
    expect(o.status).toBe('pendingNew');
    t.sent(o, 'A');
    t.apply({ orderId: 'A', status: 'placed' });
    t.apply({ orderId: 'A', status: 'working', filledSize: 1 });
    t.apply({ orderId: 'A', status: 'working', filledSize: 1 });
    t.apply({ orderId: 'A', status: 'filled', filledSize: 3 });
    expect(events.map((e) => [e.status, e.filledSize])).toEqual([
      ['pendingNew', 0],
      ['placed', 0],
      ['working', 1],
      ['filled', 3],
    ]);
    expect(events[3]).toEqual({
      strategy: 'mm',
      orderId: 'A',
      clientTag: 'x',
      symbol: 'BTC-USD',
      side: 'buy',
      price: 100,
      size: 3,
      filledSize: 3,
      status: 'filled',
      reason: undefined,
      timeMs: 42,
    });
    expect([...t.openOrders()]).toEqual([]);
  });

  it('a trigger order: untriggered while parked (answer and updates), placed once on the book, then its limit lifecycle', () => {
    const { t, events } = setup();
    const o = t.create('mm', spec({ side: 'sell', reduceOnly: true, trigger: { kind: 'stop', triggerPrice: 95 }, price: 94 }));
    t.sent(o, 'A');
    t.apply({ orderId: 'A', status: 'placed' });
    t.apply({ orderId: 'A', status: 'placed', parked: true });
    expect(o.status).toBe('untriggered');
    t.apply({ orderId: 'A', status: 'placed', parked: false });
    t.apply({ orderId: 'A', status: 'placed', parked: true });
    t.apply({ orderId: 'A', status: 'working', filledSize: 1, parked: false });
    t.apply({ orderId: 'A', status: 'filled', filledSize: 3, parked: false });
    expect(events.map((e) => [e.status, e.filledSize])).toEqual([
      ['pendingNew', 0],
      ['untriggered', 0],
      ['placed', 0],
      ['working', 1],
      ['filled', 3],
    ]);
  });

  it('a stop-market goes from untriggered straight to filled; a parked trigger can be cancelled; plain orders are never untriggered', () => {
    const { t, events } = setup();
    const stop = t.create('mm', spec({ price: undefined, trigger: { kind: 'stop', triggerPrice: 105 } }));
    const parked = t.create('mm', spec({ price: undefined, trigger: { kind: 'takeProfit', triggerPrice: 90 } }));
    const plain = t.create('mm', spec());
    t.sent(stop, 'S');
    t.sent(parked, 'P');
    t.sent(plain, 'L');
    for (const id of ['S', 'P', 'L']) t.apply({ orderId: id, status: 'placed', parked: true });
    t.apply({ orderId: 'S', status: 'filled', filledSize: 3 });
    t.requestCancel(parked);
    t.apply({ orderId: 'P', status: 'cancelled' });
    expect(events.filter((e) => e.orderId === 'S').map((e) => e.status)).toEqual(['pendingNew', 'untriggered', 'filled']);
    expect(events.filter((e) => e.orderId === 'P').map((e) => e.status)).toEqual(['pendingNew', 'untriggered', 'pendingCancel', 'cancelled']);
    expect(plain.status).toBe('placed');
  });

  it('never moves backwards: terminal is final, a late placed after working is ignored, filledSize never decreases', () => {
    const { t, events } = setup();
    const o = t.create('mm', spec());
    t.sent(o, 'A');
    t.apply({ orderId: 'A', status: 'working', filledSize: 2 });
    t.apply({ orderId: 'A', status: 'placed', filledSize: 0 });
    t.apply({ orderId: 'A', status: 'working', filledSize: 1 });
    expect([o.status, o.filledSize]).toEqual(['working', 2]);
    t.apply({ orderId: 'A', status: 'cancelled' });
    t.apply({ orderId: 'A', status: 'filled', filledSize: 2 });
    t.apply({ orderId: 'A', status: 'placed' });
    expect(o.status).toBe('cancelled');
    expect(events.at(-1)!.status).toBe('cancelled');
    expect(events).toHaveLength(3);
  });

  it('a reason that arrives after the terminal status (answer first, stream second) is kept and told once; a later one does not replace it', () => {
    const { t, events } = setup();
    const o = t.create('mm', spec());
    t.sent(o, 'A');
    t.apply({ orderId: 'A', status: 'rejectedCrossing' });
    t.apply({ orderId: 'A', status: 'rejectedCrossing', reason: 'post-only order would cross' });
    t.apply({ orderId: 'A', status: 'rejectedCrossing', reason: 'post-only order would cross' });
    t.apply({ orderId: 'A', status: 'rejectedCrossing', reason: 'something else' });
    t.apply({ orderId: 'A', status: 'cancelled', reason: 'not this order' });
    expect(events.map((e) => [e.status, e.reason])).toEqual([
      ['pendingNew', undefined],
      ['rejectedCrossing', undefined],
      ['rejectedCrossing', 'post-only order would cross'],
    ]);
    expect(o.reason).toBe('post-only order would cross');
  });

  it('pendingCancel overlays the venue status; a failed cancel restores it; unknown clears on the first fact', () => {
    const { t } = setup();
    const o = t.create('mm', spec());
    t.sent(o, 'A');
    t.markUnknown(o, 'timeout');
    expect(o.status).toBe('unknown');
    t.apply({ orderId: 'A', status: 'placed' });
    expect(o.status).toBe('placed');
    t.requestCancel(o);
    expect(o.status).toBe('pendingCancel');
    t.apply({ orderId: 'A', status: 'working', filledSize: 1 });
    expect([o.status, o.filledSize]).toEqual(['pendingCancel', 1]);
    t.cancelFailed(o, 'cancel failed: order not found');
    expect([o.status, o.reason]).toEqual(['working', 'cancel failed: order not found']);
  });

  it('ignores facts about orders it does not know', () => {
    const { t, events } = setup();
    expect(t.apply({ orderId: 'nobody', status: 'filled' })).toBeUndefined();
    expect(events).toEqual([]);
  });

  it('a tag carried by a live order gives the same client id (a duplicate); a new one once it is cancelling or gone', () => {
    const { t } = setup((s, tag, n) => `${s}/${tag}/${n}`);
    const a = t.create('mm', spec({ clientTag: 'bid' }));
    const dup = t.create('mm', spec({ clientTag: 'bid' }));
    expect(dup.cloid).toBe(a.cloid);
    expect(dup.duplicateOf).toBe(a);
    expect(t.find('mm', { clientTag: 'bid' })).toBe(a);
    t.sent(a, 'A');
    t.requestCancel(a);
    const b = t.create('mm', spec({ clientTag: 'bid' }));
    expect(b.cloid).not.toBe(a.cloid);
    expect(t.find('mm', { clientTag: 'bid' })).toBe(b);
    const other = t.create('other', spec({ clientTag: 'bid' }));
    expect(other.duplicateOf).toBeUndefined();
  });
});

describe('tracker idempotency', () => {
  /** A plausible venue history of one order: statuses in the order the venue applied them. */
  const history = fc.oneof(
    fc.constant<VenueOrderFact[]>([
      { orderId: 'A', status: 'placed' },
      { orderId: 'A', status: 'cancelled' },
    ]),
    fc.integer({ min: 1, max: 2 }).map<VenueOrderFact[]>((f) => [
      { orderId: 'A', status: 'placed' },
      { orderId: 'A', status: 'working', filledSize: f },
      { orderId: 'A', status: 'cancelled', filledSize: f },
    ]),
    fc.constant<VenueOrderFact[]>([
      { orderId: 'A', status: 'placed' },
      { orderId: 'A', status: 'working', filledSize: 1 },
      { orderId: 'A', status: 'working', filledSize: 2 },
      { orderId: 'A', status: 'filled', filledSize: 3 },
    ]),
    fc.constant<VenueOrderFact[]>([
      { orderId: 'A', status: 'placed' },
      { orderId: 'A', status: 'working', filledSize: 1 },
    ]),
    fc.constant<VenueOrderFact[]>([{ orderId: 'A', status: 'rejectedCrossing' }]),
  );

  const run = (facts: readonly VenueOrderFact[]) => {
    const { t, events } = setup();
    const o = t.create('mm', spec());
    t.sent(o, 'A');
    for (const f of facts) t.apply(f);
    return { status: o.status, filled: o.filledSize, open: t.isOpen(o), last: events.at(-1)!.status, events };
  };

  it('shuffled and duplicated updates give the same final state (property)', () => {
    fc.assert(
      fc.property(
        history.chain((h) => fc.tuple(fc.constant(h), fc.shuffledSubarray([...h, ...h, ...h], { minLength: 3 * h.length, maxLength: 3 * h.length }))),
        ([inOrder, shuffled]) => {
          const a = run(inOrder);
          const b = run(shuffled);
          expect({ status: b.status, filled: b.filled, open: b.open, last: b.last }).toEqual({
            status: a.status,
            filled: a.filled,
            open: a.open,
            last: a.last,
          });
          expect(b.events.length).toBeLessThanOrEqual(a.events.length + 2);
          const filled = b.events.map((e) => e.filledSize);
          expect(filled).toEqual([...filled].sort((x, y) => x - y));
        },
      ),
    );
  });
});
