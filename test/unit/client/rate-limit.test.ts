import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { backoffDelayMs } from '../../../src/core/backoff.js';
import { TokenBucket } from '../../../src/client/rate-limit.js';

describe('TokenBucket', () => {
  it('lets a burst through, then paces takers first come, first served on the injected clock', async () => {
    const clock = new ManualClock(0n);
    const waits: number[] = [];
    const bucket = new TokenBucket({ perSecond: 10, burst: 2 }, clock, async (ms) => {
      waits.push(ms);
      clock.advanceMs(ms);
    });
    const order: number[] = [];
    await Promise.all([0, 1, 2, 3].map((i) => bucket.take().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3]);
    expect(waits).toEqual([100, 100]);
    clock.advanceMs(1_000);
    await bucket.take();
    expect(waits).toHaveLength(2);
  });
});

describe('backoffDelayMs', () => {
  it('grows exponentially to the cap with half of each delay jittered', () => {
    const opts = { initialMs: 100, maxMs: 1_000, factor: 2 };
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffDelayMs(n, opts, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffDelayMs(n, opts, () => 0.999999))).toEqual([100, 200, 400, 800, 1000, 1000].map((x) => expect.closeTo(x, 2)));
  });
});
