import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BookLevel, BookUpdate } from '../../../src/core/market-data.js';
import { L2Book } from '../../../src/market/book.js';

const lv = (price: number, size: number, orders = 1): BookLevel => ({ price, size, orders });

function update(kind: BookUpdate['kind'], bids: BookLevel[], asks: BookLevel[], venueTimeMs = 1, arrivalNs = 0n): BookUpdate {
  return { kind, symbol: 'BTC-USD', bids, asks, venueTimeMs, arrivalNs };
}

describe('L2Book', () => {
  it('applies a snapshot (any order) and keeps each side sorted best first', () => {
    const b = new L2Book('BTC-USD');
    b.apply(update('snapshot', [lv(99, 1), lv(100, 2), lv(98, 3)], [lv(102, 1), lv(101, 4)], 5, 77n));
    expect(b.bestBid()).toEqual(lv(100, 2));
    expect(b.bestAsk()).toEqual(lv(101, 4));
    expect(b.levels('bid').map((l) => l.price)).toEqual([100, 99, 98]);
    expect(b.levels('ask', 1)).toEqual([lv(101, 4)]);
    expect(b.venueTimeMs).toBe(5);
    expect(b.arrivalNs).toBe(77n);
    expect(b.version).toBe(1);
  });

  it('updates, inserts and deletes levels (size 0 deletes; deleting a missing level is counted)', () => {
    const b = new L2Book('BTC-USD');
    b.apply(update('snapshot', [lv(100, 1)], [lv(101, 1)]));
    b.apply(update('delta', [lv(100, 5, 0), lv(99.5, 2, 0)], [], 2, 20n));
    b.apply(update('delta', [], [lv(101, 0, 0), lv(100.5, 3, 0)], 3, 30n));
    b.apply(update('delta', [lv(42, 0, 0)], [], 4, 40n));
    expect(b.snapshot()).toEqual({ bids: [lv(100, 5, 0), lv(99.5, 2, 0)], asks: [lv(100.5, 3, 0)] });
    expect(b.missingDeletes).toBe(1);
    expect(b.version).toBe(4);
    expect([b.venueTimeMs, b.arrivalNs]).toEqual([4, 40n]);
  });

  it('a snapshot replaces every level of both sides', () => {
    const b = new L2Book('BTC-USD');
    b.apply(update('snapshot', [lv(100, 1), lv(99, 1)], [lv(101, 1)]));
    b.apply(update('snapshot', [lv(90, 2)], []));
    expect(b.snapshot()).toEqual({ bids: [lv(90, 2)], asks: [] });
  });

  it('detects a crossed (or locked) book', () => {
    const b = new L2Book('BTC-USD');
    b.apply(update('snapshot', [lv(100, 1)], [lv(101, 1)]));
    expect(b.isCrossed()).toBe(false);
    b.setLevel('bid', 101, 1);
    expect(b.isCrossed()).toBe(true);
    b.setLevel('bid', 101, 0);
    b.setLevel('ask', 101, 0);
    expect(b.isCrossed()).toBe(false);
  });

  it('compares with a venue snapshot of a given depth', () => {
    const b = new L2Book('BTC-USD');
    b.apply(update('snapshot', [lv(100, 1), lv(99, 1), lv(98, 1)], [lv(101, 1)]));
    const top2 = { bids: [lv(100, 1), lv(99, 1)], asks: [lv(101, 1)] };
    expect(b.matches(top2, 2)).toBe(true);
    expect(b.matches(top2)).toBe(false);
    expect(b.matches({ bids: [lv(100, 1), lv(99, 2)], asks: [lv(101, 1)] }, 2)).toBe(false);
    expect(b.matches({ bids: [lv(100, 1), lv(99, 1), lv(98, 1)], asks: [lv(101, 1)] })).toBe(true);
  });

  it('returns the same best level object until a change reaches the best level', () => {
    const b = new L2Book('BTC-USD');
    b.apply(update('snapshot', [lv(100, 1), lv(99, 1)], [lv(101, 1)]));
    const best = b.bestBid();
    b.apply(update('delta', [lv(99, 7), lv(98, 2)], []));
    expect(b.bestBid()).toBe(best);
    b.apply(update('delta', [lv(100, 3)], []));
    expect(b.bestBid()).toEqual(lv(100, 3));
    b.apply(update('delta', [lv(100.5, 4)], []));
    expect(b.bestBid()).toEqual(lv(100.5, 4));
    b.apply(update('delta', [lv(100.5, 0)], []));
    expect(b.bestBid()).toEqual(lv(100, 3));
    b.apply(update('snapshot', [], [lv(101, 1)]));
    expect(b.bestBid()).toBeUndefined();
    b.apply(update('snapshot', [lv(90, 2)], [lv(101, 1)]));
    expect(b.bestBid()).toEqual(lv(90, 2));
  });

  it('grows past its first capacity while levels come in out of order', () => {
    const b = new L2Book('BTC-USD');
    const prices = Array.from({ length: 210 }, (_, i) => ((i * 37) % 211) + 1);
    for (const p of prices) {
      b.setLevel('bid', p, p);
      b.setLevel('ask', 1_000 - p, p);
    }
    const sorted = [...prices].sort((x, y) => y - x);
    expect(b.snapshot()).toEqual({ bids: sorted.map((p) => lv(p, p, 0)), asks: sorted.map((p) => lv(1_000 - p, p, 0)) });
  });

  it('equals a naive map model after a deep snapshot and any level changes, past its first capacity (property)', () => {
    const level = fc.tuple(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 9 }));
    const change = fc.record({ bid: fc.boolean(), at: fc.integer({ min: 1, max: 300 }), size: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 9 })) });
    fc.assert(
      fc.property(fc.uniqueArray(level, { selector: (l) => l[0], minLength: 50, maxLength: 150 }), fc.array(change, { maxLength: 300 }), (initial, changes) => {
        const b = new L2Book('BTC-USD');
        const model = { bid: new Map<number, number>(), ask: new Map<number, number>() };
        for (const [at, size] of initial) {
          model.bid.set(at, size);
          model.ask.set(300 + at, size);
        }
        const sides = () => ({
          bids: [...model.bid].sort((x, y) => y[0] - x[0]).map(([price, size]) => lv(price, size)),
          asks: [...model.ask].sort((x, y) => x[0] - y[0]).map(([price, size]) => lv(price, size)),
        });
        b.apply(update('snapshot', sides().bids, sides().asks));
        for (const c of changes) {
          const side = c.bid ? 'bid' : 'ask';
          const price = c.bid ? c.at : 300 + c.at;
          b.setLevel(side, price, c.size, 1);
          if (c.size === 0) model[side].delete(price);
          else model[side].set(price, c.size);
          expect(b.bestBid()).toEqual(sides().bids[0]);
          expect(b.bestAsk()).toEqual(sides().asks[0]);
        }
        expect(b.snapshot()).toEqual(sides());
        expect(b.matches(sides())).toBe(true);
        expect(b.matches(sides(), 10)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('equals a naive map model after any sequence of level changes (property)', () => {
    const change = fc.record({ bid: fc.boolean(), price: fc.integer({ min: 1, max: 300 }), size: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 9 })) });
    fc.assert(
      fc.property(fc.array(change, { maxLength: 400 }), (changes) => {
        const b = new L2Book('BTC-USD');
        const model = { bid: new Map<number, number>(), ask: new Map<number, number>() };
        for (const c of changes) {
          const side = c.bid ? 'bid' : 'ask';
          b.setLevel(side, c.price, c.size);
          if (c.size === 0) model[side].delete(c.price);
          else model[side].set(c.price, c.size);
          const best = (m: Map<number, number>, better: (x: number, y: number) => boolean) =>
            [...m].reduce<[number, number] | undefined>((acc, l) => (acc === undefined || better(l[0], acc[0]) ? l : acc), undefined);
          const bid = best(model.bid, (x, y) => x > y);
          const ask = best(model.ask, (x, y) => x < y);
          expect(b.bestBid()).toEqual(bid && lv(bid[0], bid[1], 0));
          expect(b.bestAsk()).toEqual(ask && lv(ask[0], ask[1], 0));
        }
        const bids = [...model.bid].sort((x, y) => y[0] - x[0]).map(([price, size]) => lv(price, size, 0));
        const asks = [...model.ask].sort((x, y) => x[0] - y[0]).map(([price, size]) => lv(price, size, 0));
        expect(b.snapshot()).toEqual({ bids, asks });
        expect(b.bestBid()).toEqual(bids[0]);
        expect(b.bestAsk()).toEqual(asks[0]);
      }),
    );
  });
});
