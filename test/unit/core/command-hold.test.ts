import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { dataHeld, HOLD_MAX_MS, holdData } from '../../../src/core/command-hold.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('command hold', () => {
  it('holds market data from a hold until its release; with two, until both are released; a second release counts once', () => {
    expect(dataHeld()).toBe(false);
    const a = holdData();
    const b = holdData();
    expect(dataHeld()).toBe(true);
    a();
    a();
    expect(dataHeld()).toBe(true);
    b();
    expect(dataHeld()).toBe(false);
  });

  it('lets data go once the window of HOLD_MAX_MS closed, released or not, and opens no window for HOLD_MAX_MS after', async () => {
    // The earlier test's window ended at most HOLD_MAX_MS after its start; `stale` (HOLD_MAX_MS + 1 before now) must fall
    // HOLD_MAX_MS or more after that end to open a window of its own, so wait more than 3 HOLD_MAX_MS.
    await pause(4 * HOLD_MAX_MS);
    const now = performance.now();
    const stale = holdData(now - HOLD_MAX_MS - 1);
    expect(dataHeld()).toBe(false);
    const late = holdData(now);
    expect(dataHeld()).toBe(false); // within HOLD_MAX_MS of the last window's end: routing runs
    stale();
    late();
    await pause(2 * HOLD_MAX_MS);
    const fresh = holdData();
    expect(dataHeld()).toBe(true);
    fresh();
    expect(dataHeld()).toBe(false);
  });
});
