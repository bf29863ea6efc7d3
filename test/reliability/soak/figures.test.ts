import { describe, expect, it } from 'vitest';
import { ReadinessLog, secondHalfSlopeMbPerHour, slope, type Sample } from './figures.js';

const at = (atS: number, rssMb: number): Sample => ({ atS, rssMb, heapUsedMb: 0, loopDelayP99Ms: 0, ordersPlaced: 0, fills: 0 });

describe('soak figures', () => {
  it('slope: the least-squares line through exact and noisy points', () => {
    expect(slope([0, 1, 2, 3], [1, 3, 5, 7])).toBeCloseTo(2);
    expect(slope([0, 1, 2, 3], [0, 1, 0, 1])).toBeCloseTo(0.2);
    expect(slope([1], [5])).toBe(0);
    expect(slope([2, 2], [1, 9])).toBe(0);
  });

  it('secondHalfSlopeMbPerHour: only the second half counts, in MB per hour', () => {
    // Growing 1 MB a minute for 30 minutes (warm-up), then flat.
    const samples = Array.from({ length: 121 }, (_, i) => at(i * 30, Math.min(i * 0.5, 30)));
    expect(secondHalfSlopeMbPerHour(samples, (s) => s.rssMb)).toBeCloseTo(0);
    const leaking = Array.from({ length: 121 }, (_, i) => at(i * 30, 100 + i * 0.5));
    expect(secondHalfSlopeMbPerHour(leaking, (s) => s.rssMb)).toBeCloseTo(60);
  });

  it('ReadinessLog: stretches from the first unready poll to the next ready one; an open one ends at the last poll', () => {
    const log = new ReadinessLog();
    log.poll(1, true);
    log.poll(2, false, ['stale stream']);
    log.poll(3, false, ['stale stream', 'halted']);
    log.poll(5, true);
    log.poll(6, false, ['halted']);
    log.poll(20, false);
    expect(log.all()).toEqual([
      { fromS: 2, toS: 5, reasons: ['stale stream', 'halted'] },
      { fromS: 6, toS: 20, reasons: ['halted'] },
    ]);
    expect(log.longestS()).toBe(14);
    expect(log.totalS()).toBe(17);
    expect(new ReadinessLog().longestS()).toBe(0);
  });
});
