import { describe, expect, it } from 'vitest';
import { FifoMap } from '../../../src/core/fifo-map.js';

describe('FifoMap', () => {
  it('keeps at most `capacity` keys, forgetting the one set first; setting a known key changes its value, not its age', () => {
    const m = new FifoMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    m.set('a', 3);
    m.set('c', 4);
    expect([m.get('a'), m.get('b'), m.get('c'), m.size]).toEqual([undefined, 2, 4, 2]);
    m.set('d', 5);
    expect([m.get('b'), m.get('c'), m.get('d'), m.size]).toEqual([undefined, 4, 5, 2]);
  });

  it('after many times its capacity holds exactly the keys set last', () => {
    const m = new FifoMap<number, number>(64);
    for (let i = 0; i < 10_000; i++) m.set(i, i * 2);
    expect(m.size).toBe(64);
    for (let i = 0; i < 10_000; i++) expect(m.get(i)).toBe(i >= 10_000 - 64 ? i * 2 : undefined);
  });

  it('refuses a capacity that is not a positive integer', () => {
    for (const c of [0, -1, 1.5, Number.NaN]) expect(() => new FifoMap(c)).toThrow(RangeError);
  });
});
