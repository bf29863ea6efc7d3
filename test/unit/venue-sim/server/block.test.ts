import { describe, expect, it } from 'vitest';
import { blockOrder, shuffled, WyRand } from '../../../../src/venue-sim/server/block.js';

describe('block ordering (venue-protocol §14)', () => {
  it('shuffles the same way for the same block timestamp and differently for another', () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    const a = shuffled(items, new WyRand(1_770_000_000_000_000_000n));
    expect(shuffled(items, new WyRand(1_770_000_000_000_000_000n))).toEqual(a);
    expect(shuffled(items, new WyRand(1_770_000_000_000_000_001n))).not.toEqual(a);
    expect([...a].sort((x, y) => x - y)).toEqual(items);
  });

  it('runs settings, then cancels, then post-only, then the rest; transactions keep their shuffled order within a class', () => {
    const priorities = [
      [3, 1],
      [2, 3],
      [0, 1],
    ] as const;
    const order = blockOrder(
      priorities.map((p) => [...p]),
      42n,
    );
    expect(order.map(([t, a]) => priorities[t]![a])).toEqual([0, 1, 1, 2, 3, 3]);
    const txOrder = shuffled([0, 1, 2], new WyRand(42n));
    const cancels = order.filter(([t, a]) => priorities[t]![a] === 1).map(([t]) => t);
    expect(cancels).toEqual(txOrder.filter((t) => t !== 1));
  });
});
