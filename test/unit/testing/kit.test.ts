import { interval, map, merge } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { defineStrategy, schema as s, symbolSchema, type Intent } from '../../../src/strategy/api.js';
import { testStrategy } from '../../../src/testing/index.js';
import marketMaker from '../../../strategies/market-maker.js';

const T0 = 1_700_000_000_000;

/** Every `everyMs` a market buy of `size`; echoes each order event and fill as a cancel of that order. */
const ticking = defineStrategy({
  name: 'ticking',
  params: s.object({ symbol: symbolSchema, size: s.number({ gt: 0 }), everyMs: s.number({ gt: 0 }) }, { strict: true }),
  symbols: (p) => [p.symbol],
  create: (ctx, p) =>
    merge(
      interval(p.everyMs, ctx.scheduler).pipe(
        map(
          (): Intent => ({
            kind: 'place',
            order: { symbol: p.symbol, side: 'buy', size: p.size, tif: 'IOC', reduceOnly: false },
            dataTimeMs: ctx.clock.nowMs(),
            dataVersion: 0,
          }),
        ),
      ),
      ctx.account.orders$.pipe(map((e): Intent => ({ kind: 'cancel', symbol: e.symbol, ref: { orderId: e.orderId }, dataTimeMs: e.timeMs, dataVersion: 0 }))),
    ),
});

describe('testStrategy', () => {
  it('runs the market maker on a scripted book, quoting against the position the fills build', () => {
    const t = testStrategy(marketMaker, { symbol: 'BTC-USD', size: 0.001, halfSpreadBps: 10, maxPosition: 0.002, minIntervalMs: 0 });
    expect(t.status.state).toBe('running');
    t.book('BTC-USD', [[99_990, 1]], [[100_010, 1]]);
    t.advance(0);
    expect(t.quotes('BTC-USD')).toEqual([
      { side: 'buy', price: 99_900, size: 0.001, tif: 'ALO' },
      { side: 'sell', price: 100_100, size: 0.001, tif: 'ALO' },
    ]);
    expect(t.last()).toMatchObject({ kind: 'quoteSet', dataTimeMs: T0, dataVersion: 1 });
    t.fill({ symbol: 'BTC-USD', side: 'buy', price: 99_900, size: 0.002 });
    t.book('BTC-USD', [[99_990, 1]], [[100_010, 1]]).advance(0);
    expect(t.quotes('BTC-USD')?.map((q) => q.side)).toEqual(['sell']);
  });

  it('runs timers in virtual time and routes order events to the strategy', () => {
    const t = testStrategy(ticking, { symbol: 'BTC-USD', size: 0.01, everyMs: 1000 });
    t.advance(999);
    expect(t.intents).toEqual([]);
    t.at(T0 + 1500, (x) => x.order({ symbol: 'BTC-USD', side: 'buy', price: 100_000, size: 0.01, status: 'filled', orderId: 'o-1' }));
    t.advance(1001);
    expect(t.nowMs).toBe(T0 + 2000);
    expect(t.placed()).toHaveLength(2);
    expect(t.take().map((i) => [i.kind, i.dataTimeMs])).toEqual([
      ['place', T0 + 1000],
      ['cancel', T0 + 1500],
      ['place', T0 + 2000],
    ]);
    expect(t.placed()).toEqual([]);
  });

  it('fails the strategy on an invalid intent, as the daemon does, and refuses bad params by key', async () => {
    const t = testStrategy(ticking, { symbol: 'BTC-USD', size: 0.01, everyMs: 1000 }, { name: 'other' });
    t.order({ symbol: 'ETH-USD', side: 'buy', price: 3_500, size: 0.01, status: 'working', orderId: 'x' });
    expect(t.status).toMatchObject({ state: 'failed', reason: expect.stringContaining('ETH-USD is not one of the strategy') });
    expect(t.logs.some((l) => l.level === 'error' && l.message.includes('failed'))).toBe(true);
    expect(() => testStrategy(ticking, { symbol: 'BTC-USD', size: 0, everyMs: 1 })).toThrow('params.size: must be > 0');
    const u = testStrategy(ticking, { symbol: 'BTC-USD', size: 0.01, everyMs: 1000 });
    await u.stop();
    expect(u.status.state).toBe('stopped');
    expect(u.advance(5000).intents).toEqual([]);
  });

  it('counts the orders of a basket among the placed ones', () => {
    const stop = { symbol: 'BTC-USD', side: 'sell', size: 0.01, tif: 'IOC', reduceOnly: true } as const;
    const basket = defineStrategy({
      name: 'basket',
      params: s.object({ symbol: symbolSchema }, { strict: true }),
      symbols: (p) => [p.symbol],
      create: (ctx, p) =>
        interval(1000, ctx.scheduler).pipe(
          map(
            (): Intent => ({
              kind: 'basket',
              symbol: p.symbol,
              whenMark: { above: false, price: 95_000 },
              orders: [stop, { ...stop, side: 'buy' }],
              dataTimeMs: ctx.clock.nowMs(),
              dataVersion: 0,
            }),
          ),
        ),
    });
    const t = testStrategy(basket, { symbol: 'BTC-USD' }).advance(1000);
    expect(t.placed()).toEqual([stop, { ...stop, side: 'buy' }]);
  });
});
