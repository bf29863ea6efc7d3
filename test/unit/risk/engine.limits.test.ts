import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { TriggerSpec } from '../../../src/core/intent.js';
import { riskConfig, type RiskConfigInput } from '../../../src/risk/config.js';
import { createRiskGate } from '../../../src/risk/engine.js';
import type { RiskDecision, RiskReason } from '../../../src/risk/types.js';
import { cancel, FakeView, NOW_MS, place, record } from './helpers.js';

const LIMITS: RiskConfigInput = {
  maxOrderSizeBase: 2,
  maxOrderSizeBaseBySymbol: { 'ETH-USD': 10 },
  maxOrderNotionalUsd: 1_000,
  maxPositionNotionalUsd: 3_000,
  maxPositionNotionalUsdBySymbol: { 'SOL-USD': 1_500 },
  maxTotalPositionNotionalUsd: 5_000,
  priceBandBps: 100,
  maxOpenOrders: 3,
  orderRate: { perSecond: 2, burst: 3 },
  cancelRate: { perSecond: 5, burst: 6 },
  maxLeverage: 4,
  dailyLossLimitUsd: 100,
  staleInputBudgetMs: 1_000,
  repeatedRejects: { count: 3, windowMs: 10_000 },
  disconnectGraceMs: 5_000,
};

function setup(overrides: RiskConfigInput = {}) {
  const view = new FakeView({ 'BTC-USD': { mark: 100 }, 'ETH-USD': { mark: 10 }, 'SOL-USD': { mark: 1_000 } });
  const clock = new ManualClock(BigInt(NOW_MS) * 1_000_000n);
  // A fresh gate per decision keeps the rate limits out of the way of the other checks.
  const fresh = () => createRiskGate(riskConfig({ ...LIMITS, ...overrides }), view, clock);
  const decide = (op: Parameters<ReturnType<typeof fresh>['check']>[0], nowMs = NOW_MS) => fresh().check(op, nowMs);
  return { view, clock, fresh, decide };
}

function denied(reason: RiskReason) {
  return { ok: false, reason, detail: expect.any(String) as unknown as string };
}
const OK: RiskDecision = { ok: true };

/** A gate whose view lists no symbols (it counts those it has seen), ETH-USD short 250 and BTC-USD long 24. */
function unlistedGate() {
  const { fresh, view } = setup({ maxOrderSizeBaseBySymbol: {}, maxOrderSizeBase: 10 });
  view.listsSymbols = false;
  view.positions.set('ETH-USD', -250);
  view.positions.set('BTC-USD', 24);
  return fresh();
}

describe('risk limits: each reason code fires just past its limit, not at it', () => {
  it('MAX_ORDER_SIZE: default and per-symbol base-unit limits; non-positive sizes', () => {
    const { decide } = setup();
    expect(decide(place({ symbol: 'BTC-USD', size: 2 }))).toEqual(OK);
    expect(decide(place({ symbol: 'BTC-USD', size: 2.0001 }))).toEqual(denied('MAX_ORDER_SIZE'));
    expect(decide(place({ symbol: 'ETH-USD', size: 10 }))).toEqual(OK);
    expect(decide(place({ symbol: 'ETH-USD', size: 10.5 }))).toEqual(denied('MAX_ORDER_SIZE'));
    expect(decide(place({ symbol: 'BTC-USD', size: 0 }))).toEqual(denied('MAX_ORDER_SIZE'));
    expect(decide(place({ symbol: 'BTC-USD', size: Number.NaN }))).toEqual(denied('MAX_ORDER_SIZE'));
  });

  it('no base-unit limit when none is configured', () => {
    const { decide } = setup({ maxOrderSizeBase: undefined, maxOrderSizeBaseBySymbol: {} });
    expect(decide(place({ symbol: 'BTC-USD', size: 9 }))).toEqual(OK);
  });

  it('MAX_ORDER_NOTIONAL: size × limit price, or × mark for a market order', () => {
    const { decide } = setup();
    expect(decide(place({ symbol: 'SOL-USD', size: 1, price: 1_000 }))).toEqual(OK);
    expect(decide(place({ symbol: 'SOL-USD', size: 1.001, price: 1_000 }))).toEqual(denied('MAX_ORDER_NOTIONAL'));
    expect(decide(place({ symbol: 'SOL-USD', size: 0.99, price: 1_009 }))).toEqual(OK);
    expect(decide(place({ symbol: 'SOL-USD', size: 1 }))).toEqual(OK);
    expect(decide(place({ symbol: 'SOL-USD', size: 1.001 }))).toEqual(denied('MAX_ORDER_NOTIONAL'));
  });

  it('PRICE_BAND: limit prices within priceBandBps of the mark on both sides; market orders always pass', () => {
    const { decide, view } = setup();
    expect(decide(place({ symbol: 'BTC-USD', price: 101 }))).toEqual(OK);
    expect(decide(place({ symbol: 'BTC-USD', side: 'sell', price: 99 }))).toEqual(OK);
    expect(decide(place({ symbol: 'BTC-USD', price: 101.01 }))).toEqual(denied('PRICE_BAND'));
    expect(decide(place({ symbol: 'BTC-USD', side: 'sell', price: 98.99 }))).toEqual(denied('PRICE_BAND'));
    expect(decide(place({ symbol: 'BTC-USD', price: -1 }))).toEqual(denied('PRICE_BAND'));
    view.marks.set('BTC-USD', 150);
    expect(decide(place({ symbol: 'BTC-USD', size: 1 }))).toEqual(OK);
  });

  it('TRIGGER_PRICE: a stop or take-profit whose trigger is on the wrong side of the mark (or at it) would fire at once', () => {
    const { decide } = setup();
    const trig = (side: 'buy' | 'sell', kind: 'stop' | 'takeProfit', triggerPrice: number) =>
      place({ symbol: 'BTC-USD', side, trigger: { kind, triggerPrice } });
    expect([trig('sell', 'stop', 99.9), trig('buy', 'stop', 100.1), trig('sell', 'takeProfit', 100.1), trig('buy', 'takeProfit', 99.9)].map(decide)).toEqual([
      OK,
      OK,
      OK,
      OK,
    ]);
    for (const op of [
      trig('sell', 'stop', 100),
      trig('sell', 'stop', 101),
      trig('buy', 'stop', 99),
      trig('sell', 'takeProfit', 99),
      trig('buy', 'takeProfit', 101),
    ])
      expect(decide(op)).toEqual(denied('TRIGGER_PRICE'));
    expect(decide(trig('sell', 'stop', Number.NaN))).toEqual(denied('TRIGGER_PRICE'));
    expect(decide(trig('sell', 'stop', 101))).toMatchObject({ detail: 'a sell stop fires at or below its trigger: 101 must be below mark 100' });
  });

  it("trigger orders: valued at the trigger price; the band applies to a stop-limit's limit around its trigger, not to a stop-market", () => {
    const { decide } = setup({ maxPositionNotionalUsdBySymbol: {} });
    const stop = (over: object) => place({ symbol: 'SOL-USD', side: 'sell', size: 1, trigger: { kind: 'stop', triggerPrice: 500 }, ...over });
    expect(decide(stop({}))).toEqual(OK);
    expect(decide(stop({ price: 495 }))).toEqual(OK);
    expect(decide(stop({ price: 494.9 }))).toEqual(denied('PRICE_BAND'));
    expect(decide(stop({ price: 494.9 }))).toMatchObject({ detail: expect.stringContaining('from trigger 500') });
    expect(decide(stop({ size: 2 }))).toEqual(OK);
    expect(decide(stop({ size: 2, trigger: { kind: 'stop', triggerPrice: 500.5 } }))).toEqual(denied('MAX_ORDER_NOTIONAL'));
    const buyStop = (size: number) => place({ symbol: 'SOL-USD', side: 'buy', size, trigger: { kind: 'stop', triggerPrice: 1_005 } });
    expect(decide(buyStop(0.99))).toEqual(OK);
    expect(decide(buyStop(0.996))).toEqual(denied('MAX_ORDER_NOTIONAL'));
  });

  it('trigger orders count like any order: open orders, and the worst-case position unless reduce-only', () => {
    const { decide, view } = setup({ maxOrderNotionalUsd: 10_000 });
    const buyStop = (reduceOnly: boolean) => place({ symbol: 'SOL-USD', size: 1.6, reduceOnly, trigger: { kind: 'stop', triggerPrice: 1_001 } });
    expect(decide(buyStop(false))).toEqual(denied('MAX_POSITION'));
    view.positions.set('SOL-USD', -1.6);
    expect(decide(buyStop(true))).toEqual(OK);
    view.openCount = 3;
    expect(decide(buyStop(true))).toEqual(denied('MAX_OPEN_ORDERS'));
  });

  it('trailing stops and ranges: valued at the mark, counted as open orders; a range whose bounds do not enclose the mark is TRIGGER_PRICE', () => {
    const { decide, view } = setup({ maxPositionNotionalUsdBySymbol: {} });
    const closing = (trigger: TriggerSpec) => place({ symbol: 'BTC-USD', side: 'sell', reduceOnly: true, trigger });
    const trailing = closing({ kind: 'trailing', trailBps: 100, stepBps: 0 });
    const range = (low: number, high: number) => closing({ kind: 'range', low, high });
    view.positions.set('BTC-USD', 1);
    expect([trailing, range(90, 110)].map(decide)).toEqual([OK, OK]);
    for (const op of [range(100, 110), range(101, 110), range(90, 100)]) expect(decide(op)).toEqual(denied('TRIGGER_PRICE'));
    expect(decide(range(101, 110))).toMatchObject({ detail: 'a range fires at once unless mark 100 lies strictly between 101 and 110' });
    view.openCount = 3;
    expect([trailing, range(90, 110)].map(decide)).toEqual([denied('MAX_OPEN_ORDERS'), denied('MAX_OPEN_ORDERS')]);
  });

  it('NO_MARK_PRICE: every place needs a mark (limit and market)', () => {
    const { decide, view } = setup();
    view.marks.delete('BTC-USD');
    expect(decide(place({ symbol: 'BTC-USD' }))).toEqual(denied('NO_MARK_PRICE'));
    expect(decide(place({ symbol: 'BTC-USD', price: 100 }))).toEqual(denied('NO_MARK_PRICE'));
    view.marks.set('BTC-USD', Number.NaN);
    expect(decide(place({ symbol: 'BTC-USD', price: 100 }))).toEqual(denied('NO_MARK_PRICE'));
  });

  it('UNKNOWN_MARKET: a symbol without market rules', () => {
    const { decide } = setup();
    expect(decide(place({ symbol: 'DOGE-USD', price: 1 }))).toEqual(denied('UNKNOWN_MARKET'));
  });

  it('MAX_OPEN_ORDERS: open plus pending orders, all symbols', () => {
    const { decide, view } = setup();
    view.openCount = 2;
    expect(decide(place({ symbol: 'BTC-USD' }))).toEqual(OK);
    view.openCount = 3;
    expect(decide(place({ symbol: 'BTC-USD' }))).toEqual(denied('MAX_OPEN_ORDERS'));
  });

  it('MAX_POSITION: worst-case position (position + same-side open orders + order) at mark, USD', () => {
    const { decide, view } = setup();
    view.positions.set('BTC-USD', 28);
    expect(decide(place({ symbol: 'BTC-USD', size: 2 }))).toEqual(OK); // 30 × 100 = 3000
    view.open.set('BTC-USD', { buy: 0.5, sell: 0 });
    expect(decide(place({ symbol: 'BTC-USD', size: 2 }))).toEqual(denied('MAX_POSITION'));
    view.open.delete('BTC-USD');
    view.positions.set('BTC-USD', -29);
    expect(decide(place({ symbol: 'BTC-USD', side: 'sell', size: 1 }))).toEqual(OK);
    expect(decide(place({ symbol: 'BTC-USD', side: 'sell', size: 1.5 }))).toEqual(denied('MAX_POSITION'));
    // per-symbol override (SOL-USD: 1500 USD)
    view.positions.set('SOL-USD', 0.5);
    expect(decide(place({ symbol: 'SOL-USD', size: 1 }))).toEqual(OK);
    expect(decide(place({ symbol: 'SOL-USD', size: 1, price: 999 }))).toEqual(OK); // valued at mark
    view.positions.set('SOL-USD', 0.51);
    expect(decide(place({ symbol: 'SOL-USD', size: 1 }))).toEqual(denied('MAX_POSITION'));
  });

  it('MAX_POSITION: an order that does not grow the worst case passes even above the limit', () => {
    const { decide, view } = setup();
    view.positions.set('BTC-USD', 40);
    expect(decide(place({ symbol: 'BTC-USD', side: 'sell', size: 2 }))).toEqual(OK);
    expect(decide(place({ symbol: 'BTC-USD', side: 'buy', size: 0.1 }))).toEqual(denied('MAX_POSITION'));
    expect(decide(place({ symbol: 'BTC-USD', side: 'buy', size: 0.1, reduceOnly: true }))).toEqual(OK);
  });

  it('MAX_TOTAL_POSITION: every symbol the view lists counts at its mark', () => {
    const { decide, view } = setup();
    view.positions.set('ETH-USD', -250); // 2500 USD short
    view.positions.set('BTC-USD', 24); // 2400 USD long
    expect(decide(place({ symbol: 'BTC-USD', size: 1 }))).toEqual(OK); // 4900 + 100 = 5000
    expect(decide(place({ symbol: 'BTC-USD', size: 1.01 }))).toEqual(denied('MAX_TOTAL_POSITION'));
    expect(decide(place({ symbol: 'ETH-USD', side: 'buy', size: 10 }))).toEqual(OK); // reduces the short
    view.marks.delete('ETH-USD');
    expect(decide(place({ symbol: 'BTC-USD', size: 0.5 }))).toEqual(denied('NO_MARK_PRICE'));
  });

  it('MAX_TOTAL_POSITION: without symbols() the gate counts the symbols it has seen', () => {
    const gate = unlistedGate();
    expect(gate.check(place({ symbol: 'BTC-USD', size: 1.01 }), NOW_MS)).toEqual(OK); // ETH-USD not seen yet
    expect(gate.check(cancel('ETH-USD'), NOW_MS)).toEqual(OK);
    expect(gate.check(place({ symbol: 'BTC-USD', size: 1.01 }), NOW_MS)).toEqual(denied('MAX_TOTAL_POSITION'));
  });

  it('LEVERAGE: total worst-case notional / equity against min(market maxLeverage, configured cap)', () => {
    const { decide, view } = setup();
    view.equity = 1_000; // cap 4 → 4000 USD
    view.positions.set('ETH-USD', 200);
    view.positions.set('BTC-USD', 19);
    expect(decide(place({ symbol: 'BTC-USD', size: 1 }))).toEqual(OK);
    expect(decide(place({ symbol: 'BTC-USD', size: 1.01 }))).toEqual(denied('LEVERAGE'));
    view.markets.set('BTC-USD', { maxLeverage: 2 }); // market max below the cap → 2000 USD
    view.positions.set('ETH-USD', 0);
    expect(decide(place({ symbol: 'BTC-USD', size: 1 }))).toEqual(OK);
    expect(decide(place({ symbol: 'BTC-USD', size: 1.01 }))).toEqual(denied('LEVERAGE'));
    expect(decide(place({ symbol: 'BTC-USD', side: 'sell', size: 1 }))).toEqual(OK);
  });

  it('LEVERAGE: unknown or non-positive equity denies orders that grow exposure, not reducing ones', () => {
    const { decide, view } = setup();
    view.positions.set('BTC-USD', 5);
    view.equity = undefined;
    expect(decide(place({ symbol: 'BTC-USD', size: 1 }))).toEqual(denied('LEVERAGE'));
    expect(decide(place({ symbol: 'BTC-USD', side: 'sell', size: 1 }))).toEqual(OK);
    view.equity = 0;
    expect(decide(place({ symbol: 'BTC-USD', size: 1 }))).toEqual(denied('LEVERAGE'));
  });

  it('STALE_INPUT: data older than nowMs - staleInputBudgetMs', () => {
    const { decide } = setup();
    expect(decide(place({ symbol: 'BTC-USD' }, NOW_MS - 1_000))).toEqual(OK);
    expect(decide(place({ symbol: 'BTC-USD' }, NOW_MS - 1_001))).toEqual(denied('STALE_INPUT'));
    expect(decide(place({ symbol: 'BTC-USD', reduceOnly: true }, NOW_MS - 5_000))).toEqual(denied('STALE_INPUT'));
    expect(decide(cancel('BTC-USD'))).toEqual(OK);
  });

  it('DAILY_LOSS: a loss beyond the limit denies orders that do not reduce the position', () => {
    const { decide, view } = setup();
    view.positions.set('BTC-USD', 3);
    view.pnlToday = -100;
    expect(decide(place({ symbol: 'BTC-USD' }))).toEqual(OK);
    view.pnlToday = -100.01;
    expect(decide(place({ symbol: 'BTC-USD' }))).toEqual(denied('DAILY_LOSS'));
    expect(decide(place({ symbol: 'BTC-USD', side: 'sell', size: 2 }))).toEqual(OK);
    view.pnlToday = Number.NaN;
    expect(decide(place({ symbol: 'BTC-USD' }))).toEqual(denied('DAILY_LOSS'));
  });

  it('ORDER_RATE: burst, then refill at perSecond on the nowMs given', () => {
    const { fresh } = setup();
    const gate = fresh();
    const at = (ms: number) => gate.check(place({ symbol: 'BTC-USD' }, ms), ms);
    for (let i = 0; i < 3; i++) expect(at(NOW_MS)).toEqual(OK);
    expect(at(NOW_MS)).toEqual(denied('ORDER_RATE'));
    expect(at(NOW_MS + 499)).toEqual(denied('ORDER_RATE'));
    expect(at(NOW_MS + 500)).toEqual(OK);
    expect(at(NOW_MS + 500)).toEqual(denied('ORDER_RATE'));
    // a long pause refills to the burst, not beyond
    for (let i = 0; i < 3; i++) expect(at(NOW_MS + 60_000)).toEqual(OK);
    expect(at(NOW_MS + 60_000)).toEqual(denied('ORDER_RATE'));
    // time going backwards refills nothing
    expect(at(NOW_MS)).toEqual(denied('ORDER_RATE'));
  });

  it('CANCEL_RATE: cancels have their own budget, untouched by places', () => {
    const { fresh } = setup();
    const gate = fresh();
    for (let i = 0; i < 3; i++) expect(gate.check(place({ symbol: 'BTC-USD' }), NOW_MS)).toEqual(OK);
    expect(gate.check(place({ symbol: 'BTC-USD' }), NOW_MS)).toEqual(denied('ORDER_RATE'));
    for (let i = 0; i < 6; i++) expect(gate.check(cancel('BTC-USD'), NOW_MS)).toEqual(OK);
    expect(gate.check(cancel('BTC-USD'), NOW_MS)).toEqual(denied('CANCEL_RATE'));
    expect(gate.check(cancel('BTC-USD'), NOW_MS + 199)).toEqual(denied('CANCEL_RATE'));
    expect(gate.check(cancel('BTC-USD'), NOW_MS + 200)).toEqual(OK);
    // ...and cancels do not spend the order budget
    expect(gate.check(place({ symbol: 'BTC-USD' }), NOW_MS + 500)).toEqual(OK);
  });

  it('denied operations do not consume tokens', () => {
    const { fresh } = setup();
    const gate = fresh();
    for (let i = 0; i < 10; i++) expect(gate.check(place({ symbol: 'BTC-USD', size: 5 }), NOW_MS).ok).toBe(false);
    for (let i = 0; i < 10; i++) expect(gate.check(place({ symbol: 'BTC-USD' }, NOW_MS - 10_000), NOW_MS).ok).toBe(false);
    for (let i = 0; i < 3; i++) expect(gate.check(place({ symbol: 'BTC-USD' }), NOW_MS)).toEqual(OK);
    expect(gate.check(place({ symbol: 'BTC-USD' }), NOW_MS)).toEqual(denied('ORDER_RATE'));
    // rate-limited denials do not consume either: the next token arrives on schedule
    expect(gate.check(place({ symbol: 'BTC-USD' }), NOW_MS + 250)).toEqual(denied('ORDER_RATE'));
    expect(gate.check(place({ symbol: 'BTC-USD' }), NOW_MS + 500)).toEqual(OK);
  });

  it('details name the numbers and units', () => {
    const { decide } = setup();
    const d = decide(place({ symbol: 'BTC-USD', price: 102 }));
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.detail).toBe('price 102 is 200 bps from mark 100 (band 100 bps)');
  });
});

describe("wouldApprove (keep-warm dry run): check()'s decision, changing nothing", () => {
  it('approves places any number of times without taking an order token', () => {
    const gate = setup({ orderRate: { perSecond: 1, burst: 1 } }).fresh();
    for (let i = 0; i < 20; i++) expect(gate.wouldApprove(place({ symbol: 'BTC-USD' }), NOW_MS)).toEqual(OK);
    expect(gate.check(place({ symbol: 'BTC-USD' }), NOW_MS)).toEqual(OK);
    expect(gate.check(place({ symbol: 'BTC-USD' }), NOW_MS)).toEqual(denied('ORDER_RATE'));
    expect(gate.wouldApprove(place({ symbol: 'BTC-USD' }), NOW_MS)).toEqual(denied('ORDER_RATE'));
  });

  it('approves cancels any number of times without taking a cancel token', () => {
    const gate = setup({ cancelRate: { perSecond: 1, burst: 1 } }).fresh();
    for (let i = 0; i < 20; i++) expect(gate.wouldApprove(cancel('BTC-USD'), NOW_MS)).toEqual(OK);
    expect(gate.check(cancel('BTC-USD'), NOW_MS)).toEqual(OK);
    expect(gate.check(cancel('BTC-USD'), NOW_MS)).toEqual(denied('CANCEL_RATE'));
    expect(gate.wouldApprove(cancel('BTC-USD'), NOW_MS)).toEqual(denied('CANCEL_RATE'));
  });

  it("gives check()'s denial for a limit violation, detail included, and consumes nothing", () => {
    const gate = setup({ orderRate: { perSecond: 1, burst: 1 } }).fresh();
    const tooBig = place({ symbol: 'BTC-USD', size: 2.5 });
    const dry = gate.wouldApprove(tooBig, NOW_MS);
    expect(dry).toEqual({ ok: false, reason: 'MAX_ORDER_SIZE', detail: 'size 2.5 exceeds 2 (base units, BTC-USD)' });
    expect(gate.check(tooBig, NOW_MS)).toEqual(dry);
    expect(gate.check(place({ symbol: 'BTC-USD' }), NOW_MS)).toEqual(OK);
  });

  it('does not evaluate the rules: a breached daily loss changes the state only at check()', () => {
    const { fresh, view } = setup();
    const gate = fresh();
    const states = record(gate);
    view.pnlToday = -150;
    expect(gate.wouldApprove(place({ symbol: 'BTC-USD' }), NOW_MS)).toEqual(denied('DAILY_LOSS'));
    expect(gate.state).toBe('ACTIVE');
    expect(states).toHaveLength(1);
    expect(gate.check(place({ symbol: 'BTC-USD' }), NOW_MS)).toEqual(denied('DAILY_LOSS'));
    expect(gate.state).toBe('REDUCING');
    expect(states).toHaveLength(2);
  });

  it('does not add the symbol to those the gate has seen (they count in the total position)', () => {
    const gate = unlistedGate();
    gate.wouldApprove(cancel('ETH-USD'), NOW_MS);
    gate.wouldApprove(place({ symbol: 'ETH-USD', side: 'buy', size: 1 }), NOW_MS);
    expect(gate.check(place({ symbol: 'BTC-USD', size: 1.01 }), NOW_MS)).toEqual(OK); // as without the dry runs
  });
});
