import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { parse } from '../../../src/core/schema.js';
import type { Fill, Intent, OrderEvent, Trade } from '../../../src/strategy/api.js';
import { MemoryMetrics } from '../../../src/strategy/context.js';
import twap, { childPrice, childSize, twapParams, type TwapParams } from '../../../strategies/twap.js';
import { accountState, arrivalOf, book, BTC, fakeContext } from './helpers.js';

const T0 = 1_700_000_000_000;
const params = (extra: Record<string, unknown> = {}): TwapParams =>
  parse(twapParams, { symbol: 'BTC-USD', side: 'buy', size: 0.004, durationMs: 4_000, slices: 4, ...extra });
const top = book([[99_990, 1]], [[100_010, 1]], 1);

const child = (n: number, size: number, price = 100_010): Intent => ({
  kind: 'place',
  order: { symbol: 'BTC-USD', side: 'buy', price, size, tif: 'IOC', reduceOnly: false, clientTag: `twap-${n}` },
  dataTimeMs: T0,
  dataVersion: 1,
  arrivalNs: arrivalOf(1),
});
const event = (n: number, filledSize: number, status: OrderEvent['status']): OrderEvent => ({
  strategy: 'test',
  orderId: `o${n}`,
  clientTag: `twap-${n}`,
  symbol: 'BTC-USD',
  side: 'buy',
  price: 100_010,
  size: 0.001,
  filledSize,
  status,
  reason: undefined,
  timeMs: T0,
});
const fill = (n: number, price: number, size: number): Fill => ({
  symbol: 'BTC-USD',
  orderId: `o${n}`,
  side: 'buy',
  price,
  size,
  feeUsd: 0,
  maker: false,
  cause: 'trade',
  venueTimeNs: 1n,
});

describe('twap slicing', () => {
  it('asks each slice for what keeps the fills on schedule, within the child and participation caps', () => {
    expect(childSize(params(), 0, 0, 0, BTC)).toBe(0.001);
    expect(childSize(params(), 2, 0.001, 0, BTC)).toBe(0.002);
    expect(childSize(params(), 9, 0.0035, 0, BTC)).toBe(0.0005);
    expect(childSize(params(), 3, 0.004, 0, BTC)).toBe(0);
    expect(childSize(params({ maxChildSize: 0.0015 }), 3, 0, 0, BTC)).toBe(0.0015);
    expect(childSize(params({ maxParticipation: 0.1 }), 3, 0.0005, 0.01, BTC)).toBe(0.0005);
    expect(childSize(params({ maxParticipation: 0.1 }), 3, 0.001, 0.01, BTC)).toBe(0);
  });

  it('prices a child at the touch, never past the limit price', () => {
    expect(childPrice(params(), top, 1)).toBe(100_010);
    expect(childPrice(params({ limitPrice: 100_000 }), top, 1)).toBeUndefined();
    expect(childPrice(params({ childTif: 'GTC' }), top, 1)).toBe(99_990);
    expect(childPrice(params({ childTif: 'GTC', limitPrice: 99_980 }), top, 1)).toBe(99_980);
    expect(childPrice(params({ side: 'sell', limitPrice: 99_990 }), top, 1)).toBe(99_990);
    expect(childPrice(params({ side: 'sell', childTif: 'GTC', limitPrice: 100_020 }), top, 1)).toBe(100_020);
    expect(childPrice(params(), book([], [], 1), 1)).toBeUndefined();
  });

  it('an IOC child with slippageBps reaches that far past the touch, on the tick grid and never past the limit price', () => {
    expect(childPrice(params({ slippageBps: 10 }), top, 1)).toBe(100_110);
    expect(childPrice(params({ side: 'sell', slippageBps: 10 }), top, 1)).toBe(99_891);
    expect(childPrice(params({ slippageBps: 10 }), top, 7)).toBe(100_107);
    expect(childPrice(params({ slippageBps: 10, limitPrice: 100_050 }), top, 1)).toBe(100_050);
    expect(childPrice(params({ childTif: 'GTC', slippageBps: 10 }), top, 1)).toBe(99_990);
  });
});

describe('twap stream (marbles)', () => {
  it('sends one IOC child a slice, reports progress and average price, and completes once filled', () => {
    const ts = new TestScheduler((a, e) => expect(a).toEqual(e));
    const metrics = new MemoryMetrics();
    const reports: Array<Record<string, unknown>> = [];
    ts.run(({ hot, expectObservable }) => {
      const orders = hot('10ms a 999ms b 999ms c 999ms d', {
        a: event(1, 0.001, 'filled'),
        b: event(2, 0.001, 'filled'),
        c: event(3, 0.001, 'filled'),
        d: event(4, 0.001, 'filled'),
      });
      // The first fill arrives before its order's event.
      const fills = hot('5ms a 1004ms b 999ms c 999ms d', {
        a: fill(1, 100_000, 0.001),
        b: fill(2, 100_010, 0.001),
        c: fill(3, 100_020, 0.001),
        d: fill(4, 100_030, 0.001),
      });
      const ctx = fakeContext({
        scheduler: ts,
        books: { 'BTC-USD': hot('a', { a: top }) },
        orders$: orders,
        fills$: fills,
        metrics,
        report: (r) => reports.push(r),
      });
      expectObservable(twap.create(ctx, params())).toBe('a 999ms b 999ms c 999ms d 9ms |', {
        a: child(1, 0.001),
        b: child(2, 0.001),
        c: child(3, 0.001),
        d: child(4, 0.001),
      });
    });
    expect(reports.at(-1)).toMatchObject({ state: 'filled', side: 'buy', size: 0.004, filledSize: 0.004, progress: 1, children: 4 });
    expect(reports.at(-1)?.avgPriceUsd).toBeCloseTo(100_015, 6);
    expect(metrics.value('twap_progress_ratio')).toBe(1);
    expect(metrics.value('twap_avg_price_usd')).toBeCloseTo(100_015, 6);
    expect(metrics.value('twap_children_total')).toBe(4);
  });

  it('sends nothing until the market traded enough for the participation cap', () => {
    const ts = new TestScheduler((a, e) => expect(a).toEqual(e));
    ts.run(({ hot, expectObservable }) => {
      const trade: Trade = { symbol: 'BTC-USD', price: 100_000, size: 0.004, takerSide: 'buy', timeMs: T0, maker: 'm', taker: 't', liquidation: false };
      const ctx = fakeContext({ scheduler: ts, books: { 'BTC-USD': hot('a', { a: top }) }, trades: { 'BTC-USD': hot('500ms t', { t: trade }) } });
      expectObservable(twap.create(ctx, params({ maxParticipation: 0.5 })), '^ 1500ms !').toBe('1000ms b', { b: child(1, 0.002) });
    });
  });

  it('as an iceberg rests one GTC child at its own best price, resized each slice, and pulls it at the end', () => {
    const ts = new TestScheduler((a, e) => expect(a).toEqual(e));
    const reports: Array<Record<string, unknown>> = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const ctx = fakeContext({
        scheduler: ts,
        books: { 'BTC-USD': hot('a', { a: top }) },
        state$: cold('s', { s: accountState() }),
        report: (r) => reports.push(r),
      });
      const set = (size?: number): Intent => ({
        kind: 'quoteSet',
        symbol: 'BTC-USD',
        quotes: size === undefined ? [] : [{ side: 'buy', price: 99_990, size, tif: 'GTC' }],
        dataTimeMs: T0,
        dataVersion: 1,
        arrivalNs: arrivalOf(1),
      });
      expectObservable(twap.create(ctx, params({ slices: 2, durationMs: 2_000, childTif: 'GTC' }))).toBe('a 999ms b 999ms (c|)', {
        a: set(0.002),
        b: set(0.004),
        c: set(),
      });
    });
    expect(reports.at(-1)).toMatchObject({ state: 'expired', filledSize: 0, avgPriceUsd: null });
  });
});
