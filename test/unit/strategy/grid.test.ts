import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { parse } from '../../../src/core/schema.js';
import type { Intent, OrderEvent, QuoteSpec } from '../../../src/strategy/api.js';
import { MemoryMetrics } from '../../../src/strategy/context.js';
import grid, { GridLevels, gridParams, type GridParams } from '../../../strategies/grid.js';
import { accountState, arrivalOf, book, BTC, fakeContext } from './helpers.js';

const T0 = 1_700_000_000_000;

function params(extra: Record<string, unknown> = {}): GridParams {
  return parse(gridParams, { symbol: 'BTC-USD', lowerPrice: 99_800, upperPrice: 100_200, levels: 5, size: 0.001, ...extra });
}

const bid = (price: number, size = 0.001): QuoteSpec => ({ side: 'buy', price, size, tif: 'ALO' });
const ask = (price: number, size = 0.001): QuoteSpec => ({ side: 'sell', price, size, tif: 'ALO' });
const quoteSet = (quotes: QuoteSpec[], version: number): Intent => ({
  kind: 'quoteSet',
  symbol: 'BTC-USD',
  quotes,
  dataTimeMs: T0,
  dataVersion: version,
  arrivalNs: arrivalOf(version),
});
const at = (mid: number, version: number) => book([[mid - 5, 1]], [[mid + 5, 1]], version);

function order(side: 'buy' | 'sell', price: number, filledSize: number, status: OrderEvent['status'], clientTag?: string): OrderEvent {
  return {
    strategy: 'test',
    orderId: `${side}-${price}`,
    clientTag,
    symbol: 'BTC-USD',
    side,
    price,
    size: 0.001,
    filledSize,
    status,
    reason: undefined,
    timeMs: T0,
  };
}

describe('grid params and levels', () => {
  it('checks the bounds and a grid finer than the tick', () => {
    expect(params()).toMatchObject({ postOnly: true, exitOutsideBand: false, exitSlippageBps: 50 });
    expect(() => parse(gridParams, { symbol: 'BTC-USD', lowerPrice: 2, upperPrice: 1, levels: 2, size: 1 }, 'p')).toThrow(
      'p: upperPrice must be above lowerPrice',
    );
    expect(() => parse(gridParams, { symbol: 'BTC-USD', lowerPrice: 1, upperPrice: 2, levels: 101, size: 1 }, 'p')).toThrow('p.levels');
    expect(() => new GridLevels(params({ lowerPrice: 100, upperPrice: 100.2, levels: 5 }), BTC)).toThrow('closer than a tick');
  });

  it('buys below the mid and sells above, and refills the opposite side one level away', () => {
    const g = new GridLevels(params(), BTC);
    expect(g.prices).toEqual([99_800, 99_900, 100_000, 100_100, 100_200]);
    g.reset(100_000);
    expect(g.quotes('ALO')).toEqual([bid(99_800), bid(99_900), ask(100_100), ask(100_200)]);
    g.fill(g.levelOf(99_900), 'buy', 0.001);
    expect(g.quotes('ALO')).toEqual([bid(99_800), ask(100_000), ask(100_100), ask(100_200)]);
    g.fill(g.levelOf(100_000), 'sell', 0.0004);
    expect(g.quotes('GTC').slice(0, 3)).toEqual([
      { side: 'buy', price: 99_800, size: 0.001, tif: 'GTC' },
      { side: 'buy', price: 99_900, size: 0.0004, tif: 'GTC' },
      { side: 'sell', price: 100_000, size: 0.0006, tif: 'GTC' },
    ]);
    // A sell filled at the top refills a buy below it, which nets with the sell resting there.
    g.fill(g.levelOf(100_200), 'sell', 0.001);
    expect(g.quotes('ALO')).toEqual([bid(99_800), bid(99_900, 0.0004), ask(100_000, 0.0006)]);
    expect(g.levelOf(100_050)).toBe(-1);
  });
});

describe('grid stream (marbles)', () => {
  it('places the grid on the first book inside the band and refills on fills, partial ones included', () => {
    const ts = new TestScheduler((a, e) => expect(a).toEqual(e));
    const metrics = new MemoryMetrics();
    const reports: object[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const books = hot('a 9ms b', { a: at(100_500, 1), b: at(100_000, 2) });
      const orders = hot('20ms p 9ms f 9ms g', {
        p: order('buy', 99_900, 0.0004, 'working'),
        f: order('buy', 99_900, 0.001, 'filled'),
        g: order('sell', 100_000, 0.001, 'filled'),
      });
      const ctx = fakeContext({
        scheduler: ts,
        books: { 'BTC-USD': books },
        orders$: orders,
        state$: cold('s', { s: accountState() }),
        metrics,
        report: (r) => reports.push(r),
      });
      expectObservable(grid.create(ctx, params())).toBe('10ms B 9ms P 9ms F 9ms G', {
        B: quoteSet([bid(99_800), bid(99_900), ask(100_100), ask(100_200)], 2),
        P: quoteSet([bid(99_800), bid(99_900, 0.0006), ask(100_000, 0.0004), ask(100_100), ask(100_200)], 2),
        F: quoteSet([bid(99_800), ask(100_000), ask(100_100), ask(100_200)], 2),
        G: quoteSet([bid(99_800), bid(99_900), ask(100_100), ask(100_200)], 2),
      });
    });
    expect(metrics.value('grid_fills_total', { side: 'buy' })).toBeCloseTo(0.001, 12);
    expect(reports.at(-1)).toEqual({ inBand: true, running: true, buys: 2, sells: 2, fills: 3 });
  });

  it('with exitOutsideBand pulls the grid and closes the position reduce-only when the mid leaves the band, and restarts inside', () => {
    const ts = new TestScheduler((a, e) => expect(a).toEqual(e));
    ts.run(({ hot, expectObservable }) => {
      const books = hot('a 9ms b 9ms c 9ms d 9ms e', { a: at(100_000, 1), b: at(99_700, 2), c: at(99_690, 3), d: at(99_680, 4), e: at(100_050, 5) });
      const state$ = hot('s 14ms t', { s: accountState({ 'BTC-USD': 0.002 }), t: accountState({ 'BTC-USD': 0.001 }) });
      const orders = hot('25ms x', { x: order('sell', 99_201.5, 0.001, 'cancelledIOC', 'grid-exit-1') });
      const ctx = fakeContext({ scheduler: ts, books: { 'BTC-USD': books }, orders$: orders, state$ });
      const exit = (n: number, price: number, size: number, version: number): Intent => ({
        kind: 'place',
        order: { symbol: 'BTC-USD', side: 'sell', price, size, tif: 'IOC', reduceOnly: true, clientTag: `grid-exit-${n}` },
        dataTimeMs: T0,
        dataVersion: version,
        arrivalNs: arrivalOf(version),
      });
      // 99700 × (1 − 0.005) = 99201.5; the second exit waits for the first to end, then sends what is left.
      expectObservable(grid.create(ctx, params({ exitOutsideBand: true }))).toBe('a 9ms (bx) 16ms y 9ms e', {
        a: quoteSet([bid(99_800), bid(99_900), ask(100_100), ask(100_200)], 1),
        b: quoteSet([], 2),
        x: exit(1, 99_201.5, 0.002, 2),
        y: exit(2, 99_181.6, 0.001, 4),
        e: quoteSet([bid(99_800), bid(99_900), bid(100_000), ask(100_100), ask(100_200)], 5),
      });
    });
  });
});
