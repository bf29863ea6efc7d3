import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { riskConfig, type RiskConfigInput } from '../../../src/risk/config.js';
import { createRiskGate } from '../../../src/risk/engine.js';
import { cancel, FakeView, NOW_MS, place, record } from './helpers.js';

const DAY_MS = 86_400_000;

function setup(overrides: RiskConfigInput = {}) {
  const view = new FakeView({ 'ETH-USD': { mark: 10 } });
  const clock = new ManualClock(BigInt(NOW_MS) * 1_000_000n);
  const config = riskConfig({
    maxOrderSizeBase: 10,
    orderRate: { perSecond: 1_000, burst: 1_000 },
    cancelRate: { perSecond: 2, burst: 2 },
    dailyLossLimitUsd: 100,
    repeatedRejects: { count: 3, windowMs: 10_000 },
    disconnectGraceMs: 5_000,
    ...overrides,
  });
  const gate = createRiskGate(config, view, clock);
  const states = record(gate);
  const last = () => states[states.length - 1]!;
  return { view, clock, gate, states, last };
}

describe('trading state', () => {
  it('starts ACTIVE and state$ replays the current state to each subscriber', () => {
    const { gate, states } = setup();
    expect(gate.state).toBe('ACTIVE');
    expect(states).toEqual([{ state: 'ACTIVE', reason: 'started', atMs: NOW_MS }]);
    gate.halt('maintenance');
    expect(record(gate)).toEqual([{ state: 'HALTED', reason: 'maintenance', atMs: NOW_MS }]);
  });

  it('kill switch: halt, reduceOnly and resume record their reasons and the clock time', () => {
    const { gate, clock, states } = setup();
    clock.advanceMs(1_000);
    gate.halt('operator: incident 42');
    gate.halt('operator: incident 42'); // same reason again: no new event
    clock.advanceMs(1_000);
    gate.reduceOnly('operator: wind down');
    clock.advanceMs(1_000);
    gate.resume('operator: all clear');
    expect(states.slice(1)).toEqual([
      { state: 'HALTED', reason: 'operator: incident 42', atMs: NOW_MS + 1_000 },
      { state: 'REDUCING', reason: 'operator: wind down', atMs: NOW_MS + 2_000 },
      { state: 'ACTIVE', reason: 'operator: all clear', atMs: NOW_MS + 3_000 },
    ]);
    gate.resume('again');
    expect(states).toHaveLength(4);
  });

  it('HALTED allows only cancels (limited only by the cancel budget)', () => {
    const { gate, view } = setup();
    view.positions.set('ETH-USD', 5);
    gate.halt('kill');
    expect(gate.check(place({ symbol: 'ETH-USD' }), NOW_MS)).toEqual({ ok: false, reason: 'HALTED', detail: 'trading halted: kill' });
    expect(gate.check(place({ symbol: 'ETH-USD', side: 'sell', size: 1 }), NOW_MS)).toMatchObject({ ok: false, reason: 'HALTED' });
    expect(gate.check(place({ symbol: 'ETH-USD', side: 'sell', size: 1, reduceOnly: true }), NOW_MS)).toMatchObject({ ok: false, reason: 'HALTED' });
    expect(gate.check(cancel('ETH-USD'), NOW_MS)).toEqual({ ok: true });
    expect(gate.check(cancel('UNKNOWN-USD'), NOW_MS)).toEqual({ ok: true });
    expect(gate.check(cancel('ETH-USD'), NOW_MS)).toMatchObject({ ok: false, reason: 'CANCEL_RATE' });
  });

  it('REDUCING allows exactly the orders that reduce the position without flipping it', () => {
    const { gate, view } = setup();
    gate.reduceOnly('wind down');
    const ok = (side: 'buy' | 'sell', size: number, reduceOnly = false) => gate.check(place({ symbol: 'ETH-USD', side, size, reduceOnly }), NOW_MS).ok;

    view.positions.set('ETH-USD', 5);
    expect(ok('sell', 5)).toBe(true);
    expect(ok('sell', 2)).toBe(true);
    expect(ok('sell', 5.5)).toBe(false); // would flip to short
    expect(ok('buy', 1)).toBe(false);
    expect(ok('buy', 1, true)).toBe(true); // reduce-only: the venue never lets it grow the position
    view.open.set('ETH-USD', { buy: 0, sell: 2 }); // resting sells count toward the flip
    expect(ok('sell', 3)).toBe(true);
    expect(ok('sell', 3.5)).toBe(false);
    view.open.delete('ETH-USD');

    view.positions.set('ETH-USD', -5);
    expect(ok('buy', 5)).toBe(true);
    expect(ok('buy', 5.01)).toBe(false);
    expect(ok('sell', 1)).toBe(false);

    view.positions.set('ETH-USD', 0);
    expect(ok('buy', 1)).toBe(false);
    expect(ok('sell', 1)).toBe(false);
    expect(gate.check(place({ symbol: 'ETH-USD' }), NOW_MS)).toEqual({ ok: false, reason: 'REDUCING', detail: 'only position-reducing orders: wind down' });
    expect(gate.check(cancel('ETH-USD'), NOW_MS).ok).toBe(true);
  });

  it('daily loss: beyond the limit → REDUCING for the rest of the UTC day, then ACTIVE again', () => {
    const { gate, view, states, last } = setup();
    view.pnlToday = -100;
    gate.evaluate(NOW_MS);
    expect(gate.state).toBe('ACTIVE');
    view.pnlToday = -150;
    gate.evaluate(NOW_MS + 1);
    expect(last()).toEqual({ state: 'REDUCING', reason: 'daily loss 150 USD beyond the limit of 100 USD', atMs: NOW_MS + 1 });
    gate.evaluate(NOW_MS + 1 + gate.config.dailyLossConfirmMs); // still beyond the limit: confirmed, latched
    view.pnlToday = -50; // recovers within the day: stays REDUCING
    const laterMs = NOW_MS + 2 + gate.config.dailyLossConfirmMs;
    expect(gate.check(place({ symbol: 'ETH-USD' }, laterMs), laterMs)).toMatchObject({ ok: false, reason: 'REDUCING' });
    expect(gate.state).toBe('REDUCING');
    const nextDayMs = (Math.floor(NOW_MS / DAY_MS) + 1) * DAY_MS;
    view.pnlToday = 0;
    expect(gate.check(place({ symbol: 'ETH-USD' }, nextDayMs), nextDayMs)).toEqual({ ok: true });
    expect(last()).toEqual({ state: 'ACTIVE', reason: 'daily loss limit reset at the start of the UTC day', atMs: nextDayMs });
    expect(states.map((s) => s.state)).toEqual(['ACTIVE', 'REDUCING', 'ACTIVE']);
  });

  it('daily loss: the first order past the limit is denied DAILY_LOSS and sets REDUCING; resume re-applies while breached', () => {
    const { gate, view, last } = setup();
    view.positions.set('ETH-USD', 3);
    view.pnlToday = -101;
    expect(gate.check(place({ symbol: 'ETH-USD' }), NOW_MS)).toMatchObject({ ok: false, reason: 'DAILY_LOSS' });
    expect(gate.state).toBe('REDUCING');
    expect(gate.check(place({ symbol: 'ETH-USD', side: 'sell', size: 3 }), NOW_MS).ok).toBe(true);
    gate.resume('operator');
    expect(last().state).toBe('ACTIVE');
    gate.evaluate(NOW_MS + 1);
    expect(last()).toMatchObject({ state: 'REDUCING', reason: 'daily loss 101 USD beyond the limit of 100 USD' });
  });

  it('repeated venue rejects within the window → HALTED until resume; ignored statuses do not count', () => {
    const { gate, last } = setup();
    gate.onVenueReject('rejectedInvalid', NOW_MS);
    gate.onVenueReject('rejectedRiskLimit', NOW_MS + 1_000);
    for (let i = 0; i < 10; i++) gate.onVenueReject('rejectedCrossing', NOW_MS + 1_000); // post-only: ignored by default
    expect(gate.state).toBe('ACTIVE');
    gate.onVenueReject('rejectedInvalid', NOW_MS + 10_000); // the first one is exactly at the window's edge
    expect(last()).toEqual({ state: 'HALTED', reason: '3 venue rejections within 10000 ms (last: rejectedInvalid)', atMs: NOW_MS + 10_000 });
    gate.onVenueReject('rejectedInvalid', NOW_MS + 10_001);
    expect(last().reason).toBe('3 venue rejections within 10000 ms (last: rejectedInvalid)');
    gate.resume('checked the venue');
    expect(last()).toMatchObject({ state: 'ACTIVE', reason: 'checked the venue' });
    gate.onVenueReject('rejectedInvalid', NOW_MS + 10_002); // history was cleared by resume
    expect(gate.state).toBe('ACTIVE');
  });

  it('repeated rejects: rejections spread beyond the window do not halt', () => {
    const { gate } = setup();
    gate.onVenueReject('rejectedInvalid', NOW_MS);
    gate.onVenueReject('rejectedInvalid', NOW_MS + 5_000);
    gate.onVenueReject('rejectedInvalid', NOW_MS + 10_001);
    gate.onVenueReject('rejectedInvalid', NOW_MS + 20_002);
    expect(gate.state).toBe('ACTIVE');
  });

  it('disconnection: HALTED once the connection has been lost for the grace period; restored → ACTIVE', () => {
    const { gate, states, last } = setup();
    gate.onConnection(false, NOW_MS);
    gate.onConnection(false, NOW_MS + 1_000); // repeated reports keep the first time
    expect(gate.check(place({ symbol: 'ETH-USD' }, NOW_MS + 4_999), NOW_MS + 4_999).ok).toBe(true);
    expect(gate.state).toBe('ACTIVE');
    expect(gate.check(place({ symbol: 'ETH-USD' }, NOW_MS + 5_000), NOW_MS + 5_000)).toMatchObject({ ok: false, reason: 'HALTED' });
    expect(last()).toEqual({ state: 'HALTED', reason: 'venue connection lost for 5000 ms (grace 5000 ms)', atMs: NOW_MS + 5_000 });
    gate.resume('operator'); // a lost connection is a fact: resume does not lift it
    expect(gate.state).toBe('HALTED');
    gate.onConnection(true, NOW_MS + 6_000);
    expect(last()).toEqual({ state: 'ACTIVE', reason: 'venue connection restored', atMs: NOW_MS + 6_000 });
    expect(states.map((s) => s.state)).toEqual(['ACTIVE', 'HALTED', 'ACTIVE']);
  });

  it('disconnection: a blip shorter than the grace period changes nothing; grace 0 halts at once', () => {
    const a = setup();
    a.gate.onConnection(false, NOW_MS);
    a.gate.onConnection(true, NOW_MS + 4_999);
    a.gate.evaluate(NOW_MS + 60_000);
    expect(a.states).toHaveLength(1);
    const b = setup({ disconnectGraceMs: 0 });
    b.gate.onConnection(false, NOW_MS);
    expect(b.gate.state).toBe('HALTED');
  });

  it('the most severe condition rules; lifting one reveals the next with its own reason', () => {
    const { gate, view, last, states } = setup();
    view.pnlToday = -200;
    gate.evaluate(NOW_MS);
    expect(last().state).toBe('REDUCING');
    gate.onConnection(false, NOW_MS);
    gate.evaluate(NOW_MS + 5_000);
    expect(last()).toMatchObject({ state: 'HALTED', reason: expect.stringContaining('connection lost') });
    gate.halt('kill file');
    expect(last()).toMatchObject({ state: 'HALTED', reason: 'kill file' });
    gate.onConnection(true, NOW_MS + 6_000); // kill still in force
    expect(last()).toMatchObject({ state: 'HALTED', reason: 'kill file' });
    gate.onConnection(false, NOW_MS + 7_000);
    gate.evaluate(NOW_MS + 12_000);
    gate.resume('kill file removed'); // the lost connection still halts
    expect(last()).toMatchObject({ state: 'HALTED', reason: expect.stringContaining('connection lost') });
    const before = states.length;
    gate.onConnection(true, NOW_MS + 13_000); // resume lifted the loss latch; the same evaluation re-applies it
    expect(states.slice(before)).toEqual([{ state: 'REDUCING', reason: 'daily loss 200 USD beyond the limit of 100 USD', atMs: NOW_MS + 13_000 }]);
    view.pnlToday = 0;
    gate.resume('operator');
    gate.evaluate(NOW_MS + 13_001);
    expect(last()).toMatchObject({ state: 'ACTIVE', reason: 'operator' });
  });
});
