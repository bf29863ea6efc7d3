import { describe, expect, it } from 'vitest';
import { closingOrder } from '../../../src/app/close-on-stop.js';
import { defineStrategy, schema } from '../../../src/strategy/api.js';
import { NEVER } from 'rxjs';

const book = (bid: number, ask: number) => ({ bestBid: () => ({ price: bid, size: 1, orders: 1 }), bestAsk: () => ({ price: ask, size: 1, orders: 1 }) });
const rules = { tickSizeUsd: 0.5, lotSizeBase: 0.001 };

describe('closingOrder', () => {
  it('sells a long, buys a short: reduce-only IOC, the limit rounded towards the mid so it never passes the bound', () => {
    // mid 100 000, 50 bps: the bound is 99 500 / 100 500.
    expect(closingOrder('BTC-USD', 0.003, book(99_999.5, 100_000.5), rules, 50)).toEqual({
      symbol: 'BTC-USD',
      side: 'sell',
      price: 99_500,
      size: 0.003,
      tif: 'IOC',
      reduceOnly: true,
      clientTag: 'close-on-stop:BTC-USD',
    });
    expect(closingOrder('BTC-USD', -0.003, book(99_999.5, 100_000.5), rules, 50)).toMatchObject({ side: 'buy', price: 100_500, size: 0.003, reduceOnly: true });
    // mid 1000.25, 10 bps: 999.24975 rounds up to 999.5 for a sell, 1001.25025 down to 1001 for a buy.
    expect(closingOrder('BTC-USD', 1, book(1000, 1000.5), rules, 10)).toMatchObject({ price: 999.5 });
    expect(closingOrder('BTC-USD', -1, book(1000, 1000.5), rules, 10)).toMatchObject({ price: 1001 });
  });

  it('says why there is no order: flat (below half a lot), or no two-sided book', () => {
    expect(closingOrder('BTC-USD', 0.0004, book(99, 101), rules, 50)).toBe('flat');
    expect(closingOrder('BTC-USD', 1, undefined, rules, 50)).toBe('no two-sided book to bound the price');
    expect(closingOrder('BTC-USD', 1, { bestBid: () => ({ price: 99, size: 1, orders: 1 }), bestAsk: () => undefined }, rules, 50)).toBe(
      'no two-sided book to bound the price',
    );
  });
});

describe('defineStrategy closeOnStop', () => {
  const base = { name: 'x', params: schema.object({}), symbols: () => ['BTC-USD'], create: () => NEVER };

  it('accepts a bound in (0, 1000] bps and refuses others, naming the field', () => {
    expect(defineStrategy({ ...base, closeOnStop: { maxSlippageBps: 25 } }).closeOnStop).toEqual({ maxSlippageBps: 25 });
    for (const bad of [0, -1, 1001, Number.NaN, '5']) {
      expect(() => defineStrategy({ ...base, closeOnStop: { maxSlippageBps: bad as number } })).toThrow(
        /closeOnStop\.maxSlippageBps must be a number > 0 and <= 1000/,
      );
    }
  });

  it('needs symbols: the markets whose position it closes', () => {
    const { symbols: _, ...noSymbols } = base;
    expect(() => defineStrategy({ ...noSymbols, closeOnStop: { maxSlippageBps: 25 } })).toThrow(/closeOnStop needs symbols/);
  });
});
