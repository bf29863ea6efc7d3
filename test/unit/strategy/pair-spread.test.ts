import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { parse } from '../../../src/core/schema.js';
import type { Intent, OrderEvent } from '../../../src/strategy/api.js';
import pairSpread, { legOrder, nextRegime, pairSpreadParams, RollingStats, type PairSpreadParams } from '../../../strategies/pair-spread.js';
import { accountState, arrivalOf, book, BTC, ETH, fakeContext } from './helpers.js';

const T0 = 1_700_000_000_000;
const params = (extra: Record<string, unknown> = {}): PairSpreadParams =>
  parse(pairSpreadParams, { legA: { symbol: 'BTC-USD', size: 0.001 }, legB: { symbol: 'ETH-USD', size: 0.1 }, window: 5, sampleMs: 10, ...extra });
const btc = (mid: number, version: number) => book([[mid - 5, 1]], [[mid + 5, 1]], version, T0, 'BTC-USD');
const eth = book([[999.99, 1]], [[1_000.01, 1]], 1, T0, 'ETH-USD');

describe('pair spread pieces', () => {
  it('checks the legs and the thresholds', () => {
    const base = { legA: { symbol: 'BTC-USD', size: 1 }, legB: { symbol: 'ETH-USD', size: 1 } };
    expect(() => parse(pairSpreadParams, { ...base, legB: { symbol: 'BTC-USD', size: 1 } }, 'p')).toThrow('p: legA and legB must be different markets');
    expect(() => parse(pairSpreadParams, { ...base, entryZ: 1, exitZ: 1 }, 'p')).toThrow('p: exitZ must be below entryZ');
    expect(() => parse(pairSpreadParams, { ...base, legB: { symbol: 'ETH-USD', size: 2, maxPosition: 1 } }, 'p')).toThrow(
      'p: legB.size must not exceed legB.maxPosition',
    );
  });

  it('keeps the mean and sample standard deviation of the last window values', () => {
    const r = new RollingStats(3);
    r.push(1);
    r.push(2);
    expect(r.stats()).toBeUndefined();
    r.push(3);
    expect(r.stats()).toEqual({ mean: 2, std: 1 });
    r.push(6);
    expect(r.stats()).toEqual({ mean: 11 / 3, std: Math.sqrt(((2 - 11 / 3) ** 2 + (3 - 11 / 3) ** 2 + (6 - 11 / 3) ** 2) / 2) });
  });

  it('enters beyond entryZ, leaves within exitZ and holds in between', () => {
    const p = { entryZ: 2, exitZ: 0.5 };
    expect(nextRegime(2, 0, p)).toBe(-1);
    expect(nextRegime(-2.5, 0, p)).toBe(1);
    expect(nextRegime(1, -1, p)).toBe(-1);
    expect(nextRegime(1, 0, p)).toBe(0);
    expect(nextRegime(-0.4, 1, p)).toBe(0);
  });

  it('sizes a leg order within the leg position limit, reduce-only when going towards flat', () => {
    const top = btc(100_000, 1);
    expect(legOrder(0.002, 0, 0.001, top, 20, BTC)).toEqual({ symbol: 'BTC-USD', side: 'buy', price: 100_200, size: 0.001, tif: 'IOC', reduceOnly: false });
    expect(legOrder(0.002, 0.001, 0.001, top, 20, BTC)).toBeUndefined();
    expect(legOrder(0, -0.001, 0.001, top, 20, BTC)).toMatchObject({ side: 'buy', size: 0.001, reduceOnly: true });
    expect(legOrder(-0.001, 0.001, 0.001, top, 20, BTC)).toMatchObject({ side: 'sell', price: 99_800, size: 0.002, reduceOnly: false });
    expect(legOrder(0.001, 0, 0.01, book([[1, 1]], [[1.02, 1]], 1, T0, 'ETH-USD'), 20, ETH)).toBeUndefined();
  });
});

describe('pair spread stream (marbles)', () => {
  it('waits for a full window, shorts A and buys B when the spread is rich, and goes flat when it reverts', () => {
    const ts = new TestScheduler((a, e) => expect(a).toEqual(e));
    ts.run(({ hot, expectObservable }) => {
      const a = hot('5ms a 9ms b 9ms c 9ms d 9ms e 9ms f 9ms g', {
        a: btc(100_000, 1),
        b: btc(100_010, 2),
        c: btc(99_990, 3),
        d: btc(100_005, 4),
        e: btc(99_995, 5),
        f: btc(100_500, 6),
        g: btc(100_000, 7),
      });
      const state$ = hot('s 64ms t', { s: accountState(), t: accountState({ 'BTC-USD': -0.001, 'ETH-USD': 0.1 }) });
      const ended = (symbol: string, side: 'buy' | 'sell', n: number, filledSize: number): OrderEvent => ({
        strategy: 'test',
        orderId: `o${n}`,
        clientTag: `pair-${n}`,
        symbol,
        side,
        price: 0,
        size: filledSize,
        filledSize,
        status: 'filled',
        reason: undefined,
        timeMs: T0,
      });
      const orders = hot('62ms (xy)', { x: ended('BTC-USD', 'sell', 1, 0.001), y: ended('ETH-USD', 'buy', 2, 0.1) });
      const ctx = fakeContext({ scheduler: ts, books: { 'BTC-USD': a, 'ETH-USD': hot('e', { e: eth }) }, state$, orders$: orders });
      const place = (symbol: string, side: 'buy' | 'sell', price: number, size: number, reduceOnly: boolean, n: number, version: number): Intent => ({
        kind: 'place',
        order: { symbol, side, price, size, tif: 'IOC', reduceOnly, clientTag: `pair-${n}` },
        dataTimeMs: T0,
        dataVersion: version,
        arrivalNs: arrivalOf(version),
      });
      expectObservable(pairSpread.create(ctx, params()), '^ 79ms !').toBe('60ms (ab) 6ms (cd)', {
        a: place('BTC-USD', 'sell', 100_299, 0.001, false, 1, 6),
        b: place('ETH-USD', 'buy', 1_002, 0.1, false, 2, 1),
        c: place('BTC-USD', 'buy', 100_200, 0.001, true, 3, 7),
        d: place('ETH-USD', 'sell', 998, 0.1, true, 4, 1),
      });
    });
  });
});
