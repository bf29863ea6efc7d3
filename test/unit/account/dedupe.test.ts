import { describe, expect, it } from 'vitest';
import { KeyCounts } from '../../../src/account/dedupe.js';

describe('KeyCounts', () => {
  it('counts each key as often as it was added; add returns the count before', () => {
    const k = new KeyCounts();
    expect([k.add('a'), k.add('b'), k.add('a')]).toEqual([0, 0, 1]);
    expect([k.count('a'), k.count('b'), k.count('c')]).toEqual([2, 1, 0]);
  });

  it('forgets the key added first when a new one goes beyond the capacity; adding a known key again does not renew it', () => {
    const k = new KeyCounts(3);
    for (const key of ['a', 'b', 'c', 'a']) k.add(key);
    k.add('d');
    expect(['a', 'b', 'c', 'd'].map((key) => k.count(key))).toEqual([0, 1, 1, 1]);
    k.add('b');
    k.add('e');
    expect(['b', 'c', 'd', 'e'].map((key) => k.count(key))).toEqual([0, 1, 1, 1]);
  });

  it('remembers exactly the last `capacity` distinct keys after many times its capacity, with their counts', () => {
    const k = new KeyCounts(100);
    for (let i = 0; i < 1000; i++) {
      k.add(`k${i}`);
      if (i % 3 === 0) k.add(`k${i}`);
    }
    const remembered = Array.from({ length: 1000 }, (_, i) => k.count(`k${i}`));
    expect(remembered.slice(0, 900).every((c) => c === 0)).toBe(true);
    expect(remembered.slice(900)).toEqual(Array.from({ length: 100 }, (_, j) => ((900 + j) % 3 === 0 ? 2 : 1)));
  });

  it('a capacity of one keeps the last key', () => {
    const k = new KeyCounts(1);
    k.add('a');
    k.add('b');
    k.add('b');
    expect([k.count('a'), k.count('b')]).toEqual([0, 2]);
  });
});
