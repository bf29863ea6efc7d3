import { describe, expect, it } from 'vitest';
import { parse, safeParse } from '../../../src/core/schema.js';
import type { Intent } from '../../../src/core/intent.js';
import { intentSchema, intentSymbols, MAX_QUOTES } from '../../../src/strategy/intent-schema.js';

const st = { dataTimeMs: 1_700_000_000_000, dataVersion: 3 };
const order = { symbol: 'BTC-USD', side: 'buy', price: 100_000, size: 0.01, tif: 'GTC', reduceOnly: false, clientTag: 'bid-0' } as const;

const valid: Intent[] = [
  { kind: 'place', ...st, order },
  { kind: 'place', ...st, order: { symbol: 'BTC-USD', side: 'sell', size: 0.01, tif: 'IOC', reduceOnly: true } },
  { kind: 'cancel', ...st, symbol: 'BTC-USD', ref: { orderId: '5Hq4' } },
  { kind: 'cancel', ...st, symbol: 'BTC-USD', ref: { clientTag: 'bid-0' } },
  { kind: 'cancelAll', ...st },
  { kind: 'cancelAll', ...st, symbols: ['BTC-USD', 'ETH-USD'] },
  { kind: 'replace', ...st, ref: { clientTag: 'bid-0' }, order },
  { kind: 'quoteSet', ...st, symbol: 'BTC-USD', quotes: [] },
  {
    kind: 'quoteSet',
    ...st,
    symbol: 'BTC-USD',
    quotes: [
      { side: 'buy', price: 99, size: 1, tif: 'ALO' },
      { side: 'sell', price: 101, size: 1 },
    ],
  },
  { kind: 'quoteSet', ...st, arrivalNs: 0n, symbol: 'BTC-USD', quotes: [] },
  { kind: 'cancelAll', ...st, arrivalNs: 1_700_000_000_000_000_000n },
  { kind: 'place', ...st, order: { ...order, side: 'sell', price: undefined, reduceOnly: true, trigger: { kind: 'stop', triggerPrice: 95_000 } } },
  { kind: 'place', ...st, order: { ...order, price: 99_000, trigger: { kind: 'takeProfit', triggerPrice: 99_500 } } },
];

function reason(value: unknown): string | undefined {
  const r = safeParse(intentSchema, value, 'intent');
  return r.ok ? undefined : r.error.message;
}

describe('intentSchema', () => {
  it('accepts every intent kind and returns the value itself', () => {
    for (const intent of valid) expect(parse(intentSchema, intent)).toBe(intent);
  });

  it('trigger orders: a known kind, a positive trigger price, tif GTC; each error names its field', () => {
    const place = (over: object) => ({ kind: 'place', ...st, order: { ...order, trigger: { kind: 'stop', triggerPrice: 95_000 }, ...over } });
    expect(reason(place({ trigger: { kind: 'stopLoss', triggerPrice: 1 } }))).toMatch(/^intent\.order\.trigger\.kind: /);
    expect(reason(place({ trigger: { kind: 'stop', triggerPrice: 0 } }))).toMatch(/^intent\.order\.trigger\.triggerPrice: /);
    expect(reason(place({ trigger: { kind: 'stop' } }))).toMatch(/^intent\.order\.trigger\.triggerPrice: /);
    expect(reason(place({ trigger: { kind: 'stop', triggerPrice: 1, isMarket: true } }))).toMatch(/^intent\.order\.trigger\.isMarket: /);
    expect(reason(place({ tif: 'IOC' }))).toMatch(/^intent\.order: a trigger order waits parked until fired: tif must be GTC, got IOC/);
  });

  it('trailing and range triggers: whole basis points, high above low, no limit price; each error names its field', () => {
    const place = (trigger: object, over: object = {}) => ({ kind: 'place', ...st, order: { ...order, price: undefined, trigger, ...over } });
    expect(reason(place({ kind: 'trailing', trailBps: 100, stepBps: 0 }))).toBeUndefined();
    expect(reason(place({ kind: 'range', low: 90_000, high: 110_000 }))).toBeUndefined();
    expect(reason(place({ kind: 'trailing', trailBps: 0, stepBps: 0 }))).toMatch(/^intent\.order\.trigger\.trailBps: /);
    expect(reason(place({ kind: 'trailing', trailBps: 1.5, stepBps: 0 }))).toMatch(/^intent\.order\.trigger\.trailBps: /);
    expect(reason(place({ kind: 'trailing', trailBps: 100 }))).toMatch(/^intent\.order\.trigger\.stepBps: /);
    expect(reason(place({ kind: 'range', low: 110_000, high: 90_000 }))).toMatch(/^intent\.order\.trigger: high must be above low/);
    expect(reason(place({ kind: 'range', low: 90_000, high: 110_000 }, { price: 100_000 }))).toMatch(
      /^intent\.order: a range trigger fires as a market order: price must be absent/,
    );
  });

  it('onFill: 1..10 orders without children of their own, not on a trigger order; each error names its field', () => {
    const tp = { ...order, side: 'sell', price: undefined, reduceOnly: true, trigger: { kind: 'takeProfit', triggerPrice: 110_000 } };
    const place = (over: object) => ({ kind: 'place', ...st, order: { ...order, ...over } });
    expect(reason(place({ onFill: [tp] }))).toBeUndefined();
    expect(reason(place({ onFill: [] }))).toMatch(/^intent\.order\.onFill: /);
    expect(reason(place({ onFill: [{ ...tp, onFill: [tp] }] }))).toBe('intent.order.onFill[0].onFill: unknown field');
    expect(reason(place({ onFill: [{ ...tp, tif: 'IOC' }] }))).toMatch(/^intent\.order\.onFill\[0\]: a trigger order waits parked/);
    expect(reason(place({ price: undefined, reduceOnly: true, trigger: { kind: 'stop', triggerPrice: 1 }, onFill: [tp] }))).toMatch(
      /^intent\.order: a trigger order cannot have onFill orders/,
    );
    expect(reason(place({ whenMark: { above: true, price: 101_000 } }))).toBeUndefined();
    expect(reason(place({ whenMark: { above: true, price: 0 } }))).toMatch(/^intent\.order\.whenMark\.price: /);
    expect(reason(place({ whenMark: { above: true, price: 101_000 }, onFill: [tp] }))).toMatch(/^intent\.order: an order parked until a mark price/);
  });

  it('basket: 1..10 market or limit orders sharing one whenMark on the mark of symbol; each error names its field', () => {
    const basket = (over: object) => ({ kind: 'basket', ...st, symbol: 'BTC-USD', whenMark: { above: true, price: 101_000 }, orders: [order, order], ...over });
    expect(reason(basket({}))).toBeUndefined();
    expect(reason(basket({ orders: [] }))).toMatch(/^intent\.orders: /);
    expect(reason(basket({ orders: Array(11).fill(order) }))).toMatch(/^intent\.orders: /);
    expect(reason(basket({ whenMark: { above: true } }))).toMatch(/^intent\.whenMark\.price: /);
    expect(reason(basket({ orders: [order, { ...order, price: undefined, reduceOnly: true, trigger: { kind: 'stop', triggerPrice: 1 } }] }))).toMatch(
      /^intent\.orders\[1\]: a basket's orders are market or limit orders: no trigger/,
    );
    expect(reason(basket({ orders: [{ ...order, whenMark: { above: true, price: 1 } }] }))).toBe('intent.orders[0].whenMark: unknown field');
    expect(intentSymbols(basket({ orders: [order, { ...order, symbol: 'ETH-USD' }] }) as Intent)).toEqual([
      { field: 'symbol', symbol: 'BTC-USD' },
      { field: 'orders[0].symbol', symbol: 'BTC-USD' },
      { field: 'orders[1].symbol', symbol: 'ETH-USD' },
    ]);
  });

  it('rejects unknown fields, bad numbers and impossible orders, naming the field', () => {
    expect(reason({ kind: 'cancelAll', ...st, extra: 1 })).toBe('intent.extra: unknown field');
    expect(reason({ kind: 'cancelAll', dataTimeMs: 1 })).toBe('intent.dataVersion: missing field');
    expect(reason({ kind: 'cancelAll', ...st, dataVersion: 1.5 })).toBe('intent.dataVersion: expected an integer, got 1.5');
    expect(reason({ kind: 'cancelAll', ...st, arrivalNs: -1n })).toBe('intent.arrivalNs: must be >= 0, got -1');
    expect(reason({ kind: 'cancelAll', ...st, arrivalNs: 5 })).toBe('intent.arrivalNs: expected a bigint, got number');
    expect(reason({ kind: 'cancelAll', ...st, symbols: [] })).toBe('intent.symbols: array shorter than 1');
    expect(reason({ kind: 'place', ...st, order: { ...order, size: 0 } })).toBe('intent.order.size: must be > 0, got 0');
    expect(reason({ kind: 'place', ...st, order: { ...order, price: Infinity } })).toBe('intent.order.price: expected a finite number, got Infinity');
    expect(reason({ kind: 'place', ...st, order: { ...order, symbol: 'btc' } })).toMatch(/^intent\.order\.symbol: expected a symbol of the form <BASE>-USD/);
    expect(reason({ kind: 'place', ...st, order: { ...order, price: undefined, tif: 'ALO' } })).toBe('intent.order: a market order (no price) cannot be ALO');
    expect(reason({ kind: 'replace', ...st, ref: { orderId: 'a', clientTag: 'b' }, order })).toMatch(/^intent\.ref\.(clientTag|orderId): unknown field/);
    expect(reason({ kind: 'quoteSet', ...st, symbol: 'BTC-USD', quotes: [{ side: 'buy', price: 1, size: 1, tif: 'IOC' }] })).toBe(
      'intent.quotes[0].tif: expected "GTC" | "ALO", got "IOC"',
    );
    const many = Array.from({ length: MAX_QUOTES + 1 }, (_, i) => ({ side: 'buy', price: i + 1, size: 1 }));
    expect(reason({ kind: 'quoteSet', ...st, symbol: 'BTC-USD', quotes: many })).toBe(`intent.quotes: array longer than ${MAX_QUOTES}`);
  });

  it('lists the markets an intent touches with the field naming each', () => {
    expect(intentSymbols(valid[0]!)).toEqual([{ field: 'order.symbol', symbol: 'BTC-USD' }]);
    expect(intentSymbols(valid[4]!)).toEqual([]);
    expect(intentSymbols(valid[5]!)).toEqual([
      { field: 'symbols[0]', symbol: 'BTC-USD' },
      { field: 'symbols[1]', symbol: 'ETH-USD' },
    ]);
    expect(intentSymbols(valid[7]!)).toEqual([{ field: 'symbol', symbol: 'BTC-USD' }]);
  });
});
