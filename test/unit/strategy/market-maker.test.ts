import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { parse } from '../../../src/core/schema.js';
import type { Intent, QuoteSpec } from '../../../src/strategy/api.js';
import { MemoryMetrics } from '../../../src/strategy/context.js';
import marketMaker, { marketMakerParams, MidVolatility, quotesFor, riskBps, withinTicks, type MarketMakerParams } from '../../../strategies/market-maker.js';
import { accountState, arrivalOf, book, BTC, ETH, fakeContext, recordingLogger } from './helpers.js';

const T0 = 1_700_000_000_000;

function params(extra: Record<string, unknown> = {}): MarketMakerParams {
  return parse(marketMakerParams, { symbol: 'BTC-USD', size: 0.01, halfSpreadBps: 10, maxPosition: 0.05, ...extra });
}

const bid = (price: number, size = 0.01): QuoteSpec => ({ side: 'buy', price, size, tif: 'ALO' });
const ask = (price: number, size = 0.01): QuoteSpec => ({ side: 'sell', price, size, tif: 'ALO' });

function quoteSet(quotes: QuoteSpec[], version: number, timeMs = T0): Intent {
  return { kind: 'quoteSet', symbol: 'BTC-USD', quotes, dataTimeMs: timeMs, dataVersion: version, arrivalNs: arrivalOf(version) };
}

function scheduler() {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('market maker params', () => {
  it('fills defaults and rejects both spread units at once, naming the path', () => {
    expect(params()).toMatchObject({
      levels: 1,
      levelSpacing: 1,
      skew: 0.5,
      minIntervalMs: 250,
      postOnly: true,
      riskAversion: 0,
      requoteTicks: 0,
      maxDataAgeMs: 0,
      jumpBps: 0,
    });
    expect(() =>
      parse(marketMakerParams, { symbol: 'BTC-USD', size: 1, maxPosition: 1, halfSpreadBps: 5, halfSpreadTicks: 2 }, 'strategies[0].params'),
    ).toThrow('strategies[0].params: give halfSpreadBps or halfSpreadTicks, not both');
    expect(() => parse(marketMakerParams, { symbol: 'BTC-USD', size: 0, maxPosition: 1 }, 'p')).toThrow('p.size: must be > 0');
    expect(() => parse(marketMakerParams, { symbol: 'BTC-USD', size: 1, maxPosition: 1, spread: 3 }, 'p')).toThrow('p.spread: unknown field');
  });

  it('declares its market', () => {
    expect(marketMaker.symbols?.(params())).toEqual(['BTC-USD']);
  });
});

describe('quotesFor', () => {
  const a = book([[99_990, 1]], [[100_010, 1]]);

  it('quotes half the spread around the mid, bids rounded down and asks up to the tick', () => {
    expect(quotesFor(a, 0, params(), BTC)).toEqual({ quotes: [bid(99_900), ask(100_100)], belowMinNotional: false });
    // mid 100005, half-spread 100.005: 99904.995 → 99904.9 and 100105.005 → 100105.1, exactly.
    expect(quotesFor(book([[99_995, 1]], [[100_015, 1]]), 0, params(), BTC).quotes).toEqual([bid(99_904.9), ask(100_105.1)]);
  });

  it('quotes nothing on a one-sided or crossed book', () => {
    expect(quotesFor(book([[99_990, 1]], []), 0, params(), BTC).quotes).toEqual([]);
    expect(quotesFor(book([], [[100_010, 1]]), 0, params(), BTC).quotes).toEqual([]);
    expect(quotesFor(book([[100_010, 1]], [[100_000, 1]]), 0, params(), BTC).quotes).toEqual([]);
  });

  it('places levels in ticks, best first, sizes rounded down to the lot', () => {
    const p = params({ halfSpreadBps: undefined, halfSpreadTicks: 5, levels: 3, size: 0.01234, postOnly: false });
    const gtc = (side: 'buy' | 'sell', price: number): QuoteSpec => ({ side, price, size: 0.0123, tif: 'GTC' });
    expect(quotesFor(a, 0, p, BTC).quotes).toEqual([
      gtc('buy', 99_999.5),
      gtc('buy', 99_999),
      gtc('buy', 99_998.5),
      gtc('sell', 100_000.5),
      gtc('sell', 100_001),
      gtc('sell', 100_001.5),
    ]);
  });

  it('keeps levels at least a tick apart when the spacing is below a tick', () => {
    const p = params({ halfSpreadBps: undefined, halfSpreadTicks: 1, levels: 3, levelSpacing: 0.1 });
    expect(quotesFor(a, 0, p, BTC).quotes.map((q) => q.price)).toEqual([99_999.9, 99_999.8, 99_999.7, 100_000.1, 100_000.2, 100_000.3]);
  });

  it('skews against the position and quotes only the reducing side at the maximum', () => {
    // ratio 0.5, skew 0.5: the centre moves down by a quarter of the half-spread (25 USD).
    expect(quotesFor(a, 0.025, params(), BTC).quotes).toEqual([bid(99_875), ask(100_075)]);
    expect(quotesFor(a, -0.025, params(), BTC).quotes).toEqual([bid(99_925), ask(100_125)]);
    expect(quotesFor(a, 0.05, params(), BTC).quotes).toEqual([ask(100_050)]);
    expect(quotesFor(a, -0.05, params(), BTC).quotes).toEqual([bid(99_950)]);
    // Near the maximum only the room left is bid.
    expect(quotesFor(a, 0.045, params(), BTC).quotes[0]).toEqual(bid(99_855, 0.005));
  });

  it('never crosses the book, however strong the skew', () => {
    const tight = book([[100_000, 1]], [[100_000.1, 1]]);
    const p = params({ halfSpreadBps: undefined, halfSpreadTicks: 1, skew: 4 });
    expect(quotesFor(tight, 0.05, p, BTC).quotes).toEqual([ask(100_000.1)]);
    expect(quotesFor(tight, -0.05, p, BTC).quotes).toEqual([bid(100_000)]);
  });

  it('leaves out quotes below the minimum notional', () => {
    const eth = book([[1_999, 1]], [[2_001, 1]], 1, T0, 'ETH-USD');
    const p = params({ symbol: 'ETH-USD', size: 0.001 });
    expect(quotesFor(eth, 0, p, { ...ETH, minNotionalUsd: 10 })).toEqual({ quotes: [], belowMinNotional: true });
    // 0.005 ETH: the bid (1998 × 0.005 = 9.99 USD) is left out, the ask (10.01 USD) stays.
    expect(quotesFor(eth, 0, { ...p, size: 0.005 }, { ...ETH, minNotionalUsd: 10 })).toEqual({
      quotes: [{ side: 'sell', price: 2_002, size: 0.005, tif: 'ALO' }],
      belowMinNotional: true,
    });
  });
});

describe('market maker stream (marbles)', () => {
  it('quotes on the first book, then at most once per minIntervalMs with the newest book, stamped with its data', () => {
    const ts = scheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const books = hot('a 99ms b 49ms c 300ms d', {
        a: book([[99_990, 1]], [[100_010, 1]], 1, T0),
        b: book([[99_995, 1]], [[100_015, 1]], 2, T0 + 100),
        c: book([[100_000, 1]], [[100_020, 1]], 3, T0 + 150),
        d: book([[100_090, 1]], [[100_110, 1]], 4, T0 + 451),
      });
      const ctx = fakeContext({ scheduler: ts, symbols: ['BTC-USD'], books: { 'BTC-USD': books }, state$: cold('s', { s: accountState() }) });
      expectObservable(marketMaker.create(ctx, params())).toBe('A 249ms C 249ms D', {
        A: quoteSet([bid(99_900), ask(100_100)], 1, T0),
        C: quoteSet([bid(99_909.9), ask(100_110.1)], 3, T0 + 150),
        D: quoteSet([bid(99_999.9), ask(100_200.1)], 4, T0 + 451),
      });
    });
  });

  it('waits for both sides, and pulls its quotes with an empty set when a side disappears', () => {
    const ts = scheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const books = hot('a 9ms b 9ms c 9ms d', {
        a: book([[99_990, 1]], [], 1),
        b: book([[99_990, 1]], [[100_010, 1]], 2),
        c: book([], [[100_010, 1]], 3),
        d: book([], [[100_020, 1]], 4),
      });
      const ctx = fakeContext({ scheduler: ts, books: { 'BTC-USD': books }, state$: cold('s', { s: accountState() }) });
      expectObservable(marketMaker.create(ctx, params({ minIntervalMs: 0 }))).toBe('10ms B 9ms C', {
        B: quoteSet([bid(99_900), ask(100_100)], 2),
        C: quoteSet([], 3),
      });
    });
  });

  it('emits nothing when a book change leaves the quotes unchanged', () => {
    const ts = scheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const books = hot('a 299ms b 299ms c', {
        a: book([[99_990, 1]], [[100_010, 1]], 1),
        b: book([[99_990, 5]], [[100_010, 2]], 2),
        c: book([[99_990.02, 5]], [[100_009.98, 2]], 3),
      });
      const ctx = fakeContext({ scheduler: ts, books: { 'BTC-USD': books }, state$: cold('s', { s: accountState() }) });
      expectObservable(marketMaker.create(ctx, params())).toBe('A', { A: quoteSet([bid(99_900), ask(100_100)], 1) });
    });
  });

  it('waits for the account state and re-quotes when the position changes', () => {
    const ts = scheduler();
    ts.run(({ hot, expectObservable }) => {
      const books = hot('a', { a: book([[99_990, 1]], [[100_010, 1]], 7) });
      const state$ = hot('5ms s 299ms t 299ms u', {
        s: accountState(),
        t: accountState({ 'BTC-USD': 0.025, 'ETH-USD': 3 }),
        u: accountState({ 'BTC-USD': 0.05 }),
      });
      const ctx = fakeContext({ scheduler: ts, books: { 'BTC-USD': books }, state$ });
      expectObservable(marketMaker.create(ctx, params())).toBe('5ms S 299ms T 299ms U', {
        S: quoteSet([bid(99_900), ask(100_100)], 7),
        T: quoteSet([bid(99_875), ask(100_075)], 7),
        U: quoteSet([ask(100_050)], 7),
      });
    });
  });

  it('counts quote sets and warns once about quotes below the minimum notional', () => {
    const ts = scheduler();
    const metrics = new MemoryMetrics();
    const log = recordingLogger();
    ts.run(({ hot, cold, expectObservable }) => {
      const books = hot('a 9ms b 9ms c', {
        a: book([[1_999, 1]], [[2_001, 1]], 1, T0, 'ETH-USD'),
        b: book([[1_997, 1]], [[2_001, 1]], 2, T0, 'ETH-USD'),
        c: book([[1_000, 1]], [[1_002, 1]], 3, T0, 'ETH-USD'),
      });
      const ctx = fakeContext({ scheduler: ts, books: { 'ETH-USD': books }, state$: cold('s', { s: accountState() }), metrics, log });
      // 0.006 ETH is 12 USD at 2000 (quoted) but 6 USD at 1000 (left out): the set empties.
      const p = params({ symbol: 'ETH-USD', size: 0.006, minIntervalMs: 0 });
      expectObservable(marketMaker.create(ctx, p)).toBe('a 9ms b 9ms c', {
        a: { kind: 'quoteSet', symbol: 'ETH-USD', quotes: [bid(1_998, 0.006), ask(2_002, 0.006)], dataTimeMs: T0, dataVersion: 1, arrivalNs: arrivalOf(1) },
        b: { kind: 'quoteSet', symbol: 'ETH-USD', quotes: [bid(1_997, 0.006), ask(2_001, 0.006)], dataTimeMs: T0, dataVersion: 2, arrivalNs: arrivalOf(2) },
        c: { kind: 'quoteSet', symbol: 'ETH-USD', quotes: [], dataTimeMs: T0, dataVersion: 3, arrivalNs: arrivalOf(3) },
      });
    });
    expect(metrics.value('quote_sets_total')).toBe(3);
    expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
  });
});

describe('volatility and the Avellaneda–Stoikov terms', () => {
  it('estimates the variance rate of mid returns as a time-weighted EWMA', () => {
    const v = new MidVolatility(1_000);
    v.observe(100, 0);
    expect(v.varianceRate).toBe(0);
    // One return of ln(1.01) over one half-life: half of r² per second.
    v.observe(101, 1_000);
    expect(v.varianceRate).toBeCloseTo(0.5 * Math.log(1.01) ** 2, 12);
    // Returns at the same data time count r²/τ each.
    const w = new MidVolatility(1_000);
    w.observe(100, 5);
    w.observe(101, 5);
    expect(w.varianceRate).toBeCloseTo((Math.log(1.01) ** 2 * Math.LN2) / 1, 12);
    // Calm returns decay it.
    v.observe(101, 3_000);
    expect(v.varianceRate).toBeCloseTo(0.125 * Math.log(1.01) ** 2, 12);
  });

  it('turns the variance over the horizon into a capped risk term, γ × σ² in bps', () => {
    // σ over 60 s = 10 bps: σ² = 100 bp².
    const rate = 100 / (60 * 1e8);
    expect(riskBps(rate, { riskAversion: 0.01, horizonMs: 60_000, maxRiskBps: 100 })).toBeCloseTo(1, 9);
    expect(riskBps(rate, { riskAversion: 0, horizonMs: 60_000, maxRiskBps: 100 })).toBe(0);
    expect(riskBps(rate * 1e6, { riskAversion: 0.01, horizonMs: 60_000, maxRiskBps: 100 })).toBe(100);
  });

  it('widens the spread by half the risk term and moves the reservation price against the position by all of it', () => {
    const a = book([[99_990, 1]], [[100_010, 1]]);
    const p = params({ riskAversion: 0.01 });
    const rate = 100 / (60 * 1e8); // risk term 1 bp = 10 USD: half-spread 100 + 5
    expect(quotesFor(a, 0, p, BTC, rate).quotes).toEqual([bid(99_895), ask(100_105)]);
    // ratio 0.5: centre moves by 0.5 × (0.5 × 105 + 10) = 31.25 USD.
    expect(quotesFor(a, 0.025, p, BTC, rate).quotes).toEqual([bid(99_863.7), ask(100_073.8)]);
    expect(quotesFor(a, -0.025, p, BTC, rate).quotes).toEqual([bid(99_926.2), ask(100_136.3)]);
  });

  it('compares quote sets within a threshold of ticks', () => {
    const q = [bid(100), ask(101)];
    expect(withinTicks(q, [bid(100), ask(101)], 0, 0.1)).toBe(true);
    expect(withinTicks(q, [bid(100.1), ask(101)], 0, 0.1)).toBe(false);
    expect(withinTicks(q, [bid(100.4), ask(100.6)], 5, 0.1)).toBe(true);
    expect(withinTicks(q, [bid(100.5), ask(101)], 5, 0.1)).toBe(false);
    expect(withinTicks(q, [bid(100, 0.02), ask(101)], 5, 0.1)).toBe(false);
    expect(withinTicks(q, [bid(100)], 5, 0.1)).toBe(false);
  });
});

describe('market maker guards (marbles)', () => {
  it('requotes only when a quote moved by requoteTicks ticks', () => {
    const ts = scheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const books = hot('a 9ms b 9ms c', {
        a: book([[99_990, 1]], [[100_010, 1]], 1),
        b: book([[99_990.2, 1]], [[100_010.2, 1]], 2),
        c: book([[99_991, 1]], [[100_011, 1]], 3),
      });
      const ctx = fakeContext({ scheduler: ts, books: { 'BTC-USD': books }, state$: cold('s', { s: accountState() }) });
      expectObservable(marketMaker.create(ctx, params({ minIntervalMs: 0, requoteTicks: 5 }))).toBe('a 19ms c', {
        a: quoteSet([bid(99_900), ask(100_100)], 1),
        c: quoteSet([bid(99_900.9), ask(100_101.1)], 3),
      });
    });
  });

  it('pulls its quotes when the mid jumps and quotes again after the pause', () => {
    const ts = scheduler();
    const metrics = new MemoryMetrics();
    ts.run(({ hot, cold, expectObservable }) => {
      const books = hot('a 9ms b 39ms c 149ms d', {
        a: book([[99_990, 1]], [[100_010, 1]], 1),
        b: book([[100_990, 1]], [[101_010, 1]], 2),
        c: book([[100_991, 1]], [[101_011, 1]], 3),
        d: book([[100_992, 1]], [[101_012, 1]], 4),
      });
      const ctx = fakeContext({ scheduler: ts, books: { 'BTC-USD': books }, state$: cold('s', { s: accountState() }), metrics });
      expectObservable(marketMaker.create(ctx, params({ minIntervalMs: 0, jumpBps: 50, jumpPauseMs: 100 }))).toBe('a 9ms b 189ms d', {
        a: quoteSet([bid(99_900), ask(100_100)], 1),
        b: quoteSet([], 2),
        d: quoteSet([bid(100_900.9), ask(101_103.1)], 4),
      });
    });
    expect(metrics.value('quotes_pulled_total', { reason: 'jump' })).toBe(1);
  });

  it('pulls its quotes when no book change came for maxDataAgeMs, or the data lags the clock by more', () => {
    const ts = scheduler();
    const metrics = new MemoryMetrics();
    ts.run(({ hot, cold, expectObservable }) => {
      const books = hot('a 49ms b 249ms c 99ms d', {
        a: book([[99_990, 1]], [[100_010, 1]], 1, 0),
        b: book([[99_990, 2]], [[100_010, 2]], 2, 50),
        c: book([[99_990, 2]], [[100_010, 2]], 3, 100),
        d: book([[99_990, 2]], [[100_010, 2]], 4, 400),
      });
      const ctx = fakeContext({ scheduler: ts, books: { 'BTC-USD': books }, state$: cold('s', { s: accountState() }), metrics });
      const intents = marketMaker.create(ctx, params({ minIntervalMs: 0, maxDataAgeMs: 100 }));
      expectObservable(intents, '^ 499ms !').toBe('a 174ms s 224ms d', {
        a: quoteSet([bid(99_900), ask(100_100)], 1, 0),
        s: quoteSet([], 2, 50),
        d: quoteSet([bid(99_900), ask(100_100)], 4, 400),
      });
    });
    expect(metrics.value('quotes_pulled_total', { reason: 'stale' })).toBe(1);
  });
});
