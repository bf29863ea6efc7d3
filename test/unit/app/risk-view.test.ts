import { Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { AccountState } from '../../../src/account/state.js';
import { LiveRiskView } from '../../../src/app/risk-view.js';
import { ManualClock } from '../../../src/core/clock.js';

/** 2024-01-02 10:00 UTC. */
const NOW_MS = Date.UTC(2024, 0, 2, 10);

function account(usdc: number): AccountState {
  return { user: 'u', orders: new Map(), positions: new Map(), collateral: new Map([['USDC', usdc]]), margin: undefined, leverage: new Map() };
}

function view() {
  const clock = new ManualClock(BigInt(NOW_MS) * 1_000_000n);
  let state: AccountState | undefined;
  const v = new LiveRiskView({
    symbols: [],
    markets: new Map(),
    mark$: () => new Subscription(),
    book: () => undefined,
    account: () => state,
    openOrderSizes: () => ({ buy: 0, sell: 0 }),
    openOrderCount: () => 0,
    clock,
  });
  return { v, clock, setEquity: (usd: number) => (state = account(usd)) };
}

describe("LiveRiskView: today's PnL baseline", () => {
  it('an unfunded first reading (equity 0) is no baseline: the first positive reading is', () => {
    const { v, clock, setEquity } = view();
    setEquity(0);
    expect(v.pnlTodayUsd()).toBe(0);
    setEquity(100_000);
    clock.advanceMs(1_000);
    expect(v.pnlTodayUsd()).toBe(0);
    setEquity(99_400);
    expect(v.pnlTodayUsd()).toBe(-600);
  });

  it('an account emptied (venue restart, equity 0) and credited again starts a new baseline', () => {
    const { v, setEquity } = view();
    setEquity(100_000);
    expect(v.pnlTodayUsd()).toBe(0);
    setEquity(99_900);
    expect(v.pnlTodayUsd()).toBe(-100);
    setEquity(0);
    expect(v.pnlTodayUsd()).toBe(0);
    setEquity(10_000);
    expect(v.pnlTodayUsd()).toBe(0);
    setEquity(9_700);
    expect(v.pnlTodayUsd()).toBe(-300);
  });

  it('a new UTC day takes its first positive reading as the baseline', () => {
    const { v, clock, setEquity } = view();
    setEquity(1_000);
    expect(v.pnlTodayUsd()).toBe(0);
    setEquity(800);
    expect(v.pnlTodayUsd()).toBe(-200);
    clock.advanceMs(86_400_000);
    expect(v.pnlTodayUsd()).toBe(0);
    setEquity(900);
    expect(v.pnlTodayUsd()).toBe(100);
  });
});
