import { describe, expect, it } from 'vitest';
import { keepWarm } from '../../../src/latency/keep-warm.js';
import { RecentUse } from '../../../src/latency/rehearsal.js';
import { until } from '../../support/until.js';

describe('keepWarm', () => {
  it('rehearses every part in order on each beat, and nothing after stop', async () => {
    const calls: string[] = [];
    const warm = keepWarm([{ rehearse: () => calls.push('venue') }, { rehearse: () => calls.push('execution') }], 1);
    await until(() => calls.length >= 4, 'two beats');
    warm.stop();
    const seen = calls.length;
    expect(calls.slice(0, 4)).toEqual(['venue', 'execution', 'venue', 'execution']);
    await new Promise((r) => setTimeout(r, 20));
    expect(calls.length).toBe(seen);
  });

  it('refuses an interval below 1 ms or not a number', () => {
    for (const ms of [0, 0.5, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => keepWarm([], ms)).toThrow(RangeError);
  });
});

describe('RecentUse', () => {
  it('a rehearsal is due until the stage runs for real, then skipped exactly once', () => {
    const used = new RecentUse();
    expect([used.due(), used.due()]).toEqual([true, true]);
    used.mark();
    used.mark();
    expect([used.due(), used.due()]).toEqual([false, true]);
  });
});
