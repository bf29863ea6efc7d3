import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { riskConfig } from '../../../src/risk/config.js';
import { createRiskGate } from '../../../src/risk/engine.js';
import { FakeView, NOW_MS, place, record } from './helpers.js';

function setup() {
  const view = new FakeView({ 'ETH-USD': { mark: 10 } });
  view.equity = 1_000;
  const gate = createRiskGate(
    riskConfig({ dailyLossLimitUsd: 100, orderRate: { perSecond: 1_000, burst: 1_000 } }),
    view,
    new ManualClock(BigInt(NOW_MS) * 1_000_000n),
  );
  return { view, gate, states: record(gate) };
}

describe('daily loss rule: a reading the next update contradicts does not latch', () => {
  it('equity read as 0 for a moment (venue restart, then re-credit): REDUCING while it lasts, ACTIVE again once the reading is back', () => {
    const { view, gate, states } = setup();
    view.equity = 0;
    view.pnlToday = -1_000;
    gate.evaluate(NOW_MS);
    expect(gate.state).toBe('REDUCING');
    expect(gate.check(place({ symbol: 'ETH-USD' }), NOW_MS + 500)).toMatchObject({ ok: false, reason: 'DAILY_LOSS' });
    view.equity = 1_000;
    view.pnlToday = 0;
    gate.evaluate(NOW_MS + 2_000);
    expect(gate.state).toBe('ACTIVE');
    expect(states.at(-1)).toMatchObject({ state: 'ACTIVE', reason: expect.stringMatching(/recovered/) });
    expect(gate.check(place({ symbol: 'ETH-USD' }, NOW_MS + 2_001), NOW_MS + 2_001)).toEqual({ ok: true });
  });

  it('a loss that holds past the confirmation time latches until the next UTC day', () => {
    const { view, gate } = setup();
    view.pnlToday = -150;
    gate.evaluate(NOW_MS);
    gate.evaluate(NOW_MS + gate.config.dailyLossConfirmMs);
    view.pnlToday = -20;
    gate.evaluate(NOW_MS + gate.config.dailyLossConfirmMs + 1_000);
    expect(gate.state).toBe('REDUCING');
  });
});
