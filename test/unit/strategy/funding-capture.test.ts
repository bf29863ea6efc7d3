import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { parse } from '../../../src/core/schema.js';
import type { AccountState, Intent, OrderEvent, Ticker } from '../../../src/strategy/api.js';
import { MemoryMetrics } from '../../../src/strategy/context.js';
import fundingCapture, { decide, fundingCaptureParams, stopPrice, type FundingCaptureParams } from '../../../strategies/funding-capture.js';
import { accountState, arrivalOf, book, BTC, fakeContext } from './helpers.js';

const T0 = 1_700_000_000_000;
const params = (extra: Record<string, unknown> = {}): FundingCaptureParams =>
  parse(fundingCaptureParams, { symbol: 'BTC-USD', size: 0.01, minFundingRate: 0.0001, stopLossBps: 100, ...extra });
const tick = (fundingRate: number, markPrice = 100_000): Pick<Ticker, 'fundingRate' | 'markPrice'> => ({ fundingRate, markPrice });
const pos = (size: number, entryPrice = 100_000) => ({ size, entryPrice });

function ticker(fundingRate: number, markPrice = 100_000): Ticker {
  return {
    symbol: 'BTC-USD',
    lastPrice: markPrice,
    markPrice,
    oraclePrice: markPrice,
    fundingRate,
    openInterest: 0,
    volume24h: 0,
    volume24hUsd: 0,
    high24hPrice: markPrice,
    low24hPrice: markPrice,
    venueTimeNs: 0n,
  };
}

function held(size: number, entryPrice = 100_000): AccountState {
  const state = accountState({ 'BTC-USD': size });
  const p = state.positions.get('BTC-USD')!;
  (state.positions as Map<string, typeof p>).set('BTC-USD', { ...p, entryPrice });
  return state;
}

describe('funding capture decisions', () => {
  it('enters the side that receives funding once the rate is past the threshold', () => {
    expect(() => parse(fundingCaptureParams, { symbol: 'BTC-USD', size: 1, minFundingRate: 0.001, exitFundingRate: 0.001, stopLossBps: 10 }, 'p')).toThrow(
      'p: exitFundingRate must be below minFundingRate',
    );
    expect(decide(params(), tick(0.00005), undefined, BTC, false)).toEqual({ kind: 'hold' });
    expect(decide(params(), tick(0.0002), undefined, BTC, false)).toEqual({ kind: 'enter', side: 'sell', size: 0.01 });
    expect(decide(params(), tick(-0.0002), pos(0), BTC, false)).toEqual({ kind: 'enter', side: 'buy', size: 0.01 });
    expect(decide(params(), tick(0.0002), undefined, BTC, true)).toEqual({ kind: 'hold' });
    // A partly filled entry is topped up; a full one held.
    expect(decide(params(), tick(0.0002), pos(-0.004), BTC, false)).toEqual({ kind: 'enter', side: 'sell', size: 0.006 });
    expect(decide(params(), tick(0.00005), pos(-0.01), BTC, false)).toEqual({ kind: 'hold' });
  });

  it('exits reduce-only when the rate flips, and stops out when the mark crosses the stop', () => {
    expect(decide(params(), tick(-0.00001), pos(-0.01), BTC, false)).toEqual({ kind: 'exit', reason: 'rate', side: 'buy', size: 0.01 });
    expect(decide(params(), tick(0.00001), pos(0.01), BTC, false)).toEqual({ kind: 'exit', reason: 'rate', side: 'sell', size: 0.01 });
    expect(stopPrice(-0.01, 100_000, 100)).toBe(101_000);
    expect(stopPrice(0.01, 100_000, 100)).toBe(99_000);
    expect(decide(params(), tick(0.0002, 100_999), pos(-0.01), BTC, false)).toEqual({ kind: 'hold' });
    expect(decide(params(), tick(0.0002, 101_000), pos(-0.01), BTC, false)).toEqual({ kind: 'exit', reason: 'stop', side: 'buy', size: 0.01 });
    expect(decide(params(), tick(-0.0002, 98_900), pos(0.01), BTC, false)).toEqual({ kind: 'exit', reason: 'stop', side: 'sell', size: 0.01 });
    // With the stop resting at the venue, the venue closes: the strategy does not.
    expect(decide(params(), tick(-0.0002, 98_900), pos(0.01), BTC, false, false)).toEqual({ kind: 'hold' });
  });
});

describe('funding capture stream (marbles)', () => {
  const top = book([[99_990, 1]], [[100_010, 1]], 1);
  const place = (side: 'buy' | 'sell', price: number, reduceOnly: boolean, n: number): Intent => ({
    kind: 'place',
    order: { symbol: 'BTC-USD', side, price, size: 0.01, tif: 'IOC', reduceOnly, clientTag: `funding-${n}` },
    dataTimeMs: T0,
    dataVersion: 1,
    arrivalNs: arrivalOf(1),
  });
  const done = (n: number, filledSize: number, side: 'buy' | 'sell' = 'sell'): OrderEvent => ({
    strategy: 'test',
    orderId: `o${n}`,
    clientTag: `funding-${n}`,
    symbol: 'BTC-USD',
    side,
    price: 0,
    size: 0.01,
    filledSize,
    status: filledSize > 0 ? 'filled' : 'cancelledIOC',
    reason: undefined,
    timeMs: T0,
  });

  const stopOrder = (side: 'buy' | 'sell', triggerPrice: number, size = 0.01): Intent => ({
    kind: 'replace',
    ref: { clientTag: 'funding-stop' },
    order: { symbol: 'BTC-USD', side, size, tif: 'GTC', reduceOnly: true, trigger: { kind: 'stop', triggerPrice }, clientTag: 'funding-stop' },
    dataTimeMs: T0,
    dataVersion: 1,
    arrivalNs: arrivalOf(1),
  });

  it('shorts while the rate is positive, one order at a time, protects the short with a stop, and exits when the rate flips', () => {
    const ts = new TestScheduler((a, e) => expect(a).toEqual(e));
    const metrics = new MemoryMetrics();
    ts.run(({ hot, expectObservable }) => {
      const tickers = hot('a 9ms b 19ms c', { a: ticker(0.0002), b: ticker(0.0003), c: ticker(-0.00005) });
      const state$ = hot('s 14ms t 19ms u', { s: accountState(), t: held(-0.01), u: accountState() });
      const orders = hot('12ms x 19ms y', { x: done(1, 0.01), y: done(2, 0.01, 'buy') });
      const ctx = fakeContext({ scheduler: ts, books: { 'BTC-USD': hot('a', { a: top }) }, tickers: { 'BTC-USD': tickers }, state$, orders$: orders, metrics });
      // mid 100000 ± 20 bps: sell at 99800, buy back at 100200; the stop 100 bps above the entry.
      expectObservable(fundingCapture.create(ctx, params())).toBe('a 14ms s 14ms c 4ms x', {
        a: place('sell', 99_800, false, 1),
        s: stopOrder('buy', 101_000),
        c: place('buy', 100_200, true, 2),
        x: { kind: 'cancel', symbol: 'BTC-USD', ref: { clientTag: 'funding-stop' }, dataTimeMs: T0, dataVersion: 1, arrivalNs: arrivalOf(1) },
      });
    });
    expect(metrics.value('funding_entries_total')).toBe(1);
    expect(metrics.value('funding_exits_total', { reason: 'rate' })).toBe(1);
    expect(metrics.value('funding_exits_total', { reason: 'stop' })).toBeUndefined();
  });

  it('counts a fired venue stop as a stop-out and waits cooldownMs before entering again', () => {
    const ts = new TestScheduler((a, e) => expect(a).toEqual(e));
    const metrics = new MemoryMetrics();
    const reports: Array<Record<string, unknown>> = [];
    ts.run(({ hot, expectObservable }) => {
      const tickers = hot('a 19ms b 99ms c', { a: ticker(0.0002), b: ticker(0.0002), c: ticker(0.0002) });
      const state$ = hot('s 14ms t', { s: held(-0.01), t: accountState() });
      const orders = hot('10ms f', { f: { ...done(0, 0.01, 'buy'), clientTag: 'funding-stop', orderId: 'stop' } });
      const ctx = fakeContext({
        scheduler: ts,
        books: { 'BTC-USD': hot('a', { a: top }) },
        tickers: { 'BTC-USD': tickers },
        state$,
        orders$: orders,
        metrics,
        report: (r) => reports.push(r),
      });
      expectObservable(fundingCapture.create(ctx, params({ cooldownMs: 100 }))).toBe('s 119ms c', {
        s: stopOrder('buy', 101_000),
        c: place('sell', 99_800, false, 1),
      });
    });
    expect(metrics.value('funding_exits_total', { reason: 'stop' })).toBe(1);
    expect(reports[0]).toMatchObject({ position: -0.01, stopPriceUsd: 101_000 });
    expect(reports.at(-1)).toMatchObject({ position: 0, coolingDown: false });
  });

  it('after a stop-out waits cooldownMs before entering again', () => {
    const ts = new TestScheduler((a, e) => expect(a).toEqual(e));
    ts.run(({ hot, expectObservable }) => {
      const tickers = hot('a 9ms b 99ms c', { a: ticker(0.0002, 101_500), b: ticker(0.0002, 100_000), c: ticker(0.0002, 100_000) });
      const state$ = hot('s 4ms t', { s: held(-0.01), t: accountState() });
      const orders = hot('2ms x', { x: done(1, 0.01, 'buy') });
      const ctx = fakeContext({ scheduler: ts, books: { 'BTC-USD': hot('a', { a: top }) }, tickers: { 'BTC-USD': tickers }, state$, orders$: orders });
      expectObservable(fundingCapture.create(ctx, params({ cooldownMs: 100 }))).toBe('a 109ms c', {
        a: place('buy', 100_200, true, 1),
        c: place('sell', 99_800, false, 2),
      });
    });
  });
});
