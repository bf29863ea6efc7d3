import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/core/errors.js';
import { parse } from '../../../../src/core/schema.js';
import { currentExchangeInfoSchema } from '../../../../src/protocol/current/inbound-market.js';
import { bookSchema } from '../../../../src/protocol/v1/stream.js';

// The only published example values (venue-protocol §8.2, §10.4).
const btc = {
  symbol: 'BTC-USD',
  baseAsset: 'BTC',
  quoteAsset: 'USDC',
  status: 'TRADING',
  pricePrecision: 1,
  sizePrecision: 8,
  tickSize: 0.5,
  lotSize: 0.001,
  minNotional: 10,
  maxLeverage: 10,
  orderTypes: ['LIMIT', 'MARKET', 'STOP', 'STOP_LIMIT', 'TAKE_PROFIT', 'RANGE', 'TRIGGER', 'TRAILING'],
  timeInForces: ['GTC', 'IOC', 'ALO'],
};
const eth = { ...btc, symbol: 'ETH-USD', baseAsset: 'ETH', status: 'SUSPENDED', tickSize: 0.01 };

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).field;
  }
  throw new Error('expected a ValidationError');
}

describe('current GET /exchangeInfo (venue-protocol §8.2)', () => {
  it('reads the array shape (OpenAPI) and the {symbols, markets} shape (Python docs) to the same markets', () => {
    expect(parse(currentExchangeInfoSchema, [btc, eth])).toEqual([btc, eth]);
    expect(parse(currentExchangeInfoSchema, { symbols: ['BTC-USD', 'ETH-USD'], markets: { 'BTC-USD': btc, 'ETH-USD': eth } })).toEqual([btc, eth]);
  });

  it('needs only the steps, limits and status; descriptive fields are checked when present', () => {
    const { baseAsset: _b, quoteAsset: _q, pricePrecision: _p, sizePrecision: _s, orderTypes: _o, timeInForces: _t, ...bare } = btc;
    expect(parse(currentExchangeInfoSchema, [bare])).toEqual([bare]);
  });

  it('rejects a broken market naming the field', () => {
    expect(fieldOf(() => parse(currentExchangeInfoSchema, [btc, { ...eth, tickSize: 0 }]))).toBe('[1].tickSize');
    expect(fieldOf(() => parse(currentExchangeInfoSchema, [{ ...btc, status: 'HALTED' }]))).toBe('[0].status');
    expect(fieldOf(() => parse(currentExchangeInfoSchema, { markets: { 'BTC-USD': { ...btc, maxLeverage: 12.5 } } }))).toBe('markets.BTC-USD.maxLeverage');
  });
});

describe('current GET /l2book (venue-protocol §8.2)', () => {
  it('answers the v1 book shape: bids descending, asks ascending, ms timestamp', () => {
    const book = {
      updateType: 'snapshot',
      symbol: 'BTC-USD',
      levels: [
        [
          { px: 100, sz: 1, n: 2 },
          { px: 99.5, sz: 3, n: 1 },
        ],
        [{ px: 100.5, sz: 2, n: 1 }],
      ],
      timestamp: 1770918312787,
    };
    expect(parse(bookSchema, book)).toEqual(book);
    expect(fieldOf(() => parse(bookSchema, { ...book, levels: [[{ px: 100, sz: 1 }], []] }))).toBe('levels[0][0].n');
  });
});
