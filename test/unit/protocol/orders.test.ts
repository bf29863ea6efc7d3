import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.js';
import type { OrderSpec } from '../../../src/core/intent.js';
import { codecFor } from '../../../src/protocol/codecs.js';
import type { EncodeInput } from '../../../src/protocol/dialect.js';
import { currentOrderActions, v1OrderActions } from '../../../src/protocol/orders.js';
import { ACCOUNT, NONCE, SIGNER } from './v1/fixtures.js';

const base = { symbol: 'BTC-USD', size: 0.25, tif: 'GTC', reduceOnly: true } as const;
const sellStop: OrderSpec = { ...base, side: 'sell', trigger: { kind: 'stop', triggerPrice: 95_000 } };
const sellStopLimit: OrderSpec = { ...sellStop, price: 94_990.5 };
const buyTakeProfit: OrderSpec = { ...base, side: 'buy', trigger: { kind: 'takeProfit', triggerPrice: 95_000 } };
const place = (spec: OrderSpec) => ({ kind: 'place', spec, cloid: undefined }) as const;

function input(actions: unknown): EncodeInput {
  return { actions, account: ACCOUNT.b58, signer: SIGNER.b58, nonce: NONCE, network: 'testnet', mode: 'raw' };
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('trigger orders in v1 (spec: t = {trigger: {is_market, triggerPx}}; gaps §2: is_market false is a stop-limit)', () => {
  it('a stop-market is px 0.0 with is_market true at its trigger; a stop-limit carries its limit as px', () => {
    expect(v1OrderActions([place(sellStop), place(sellStopLimit)])).toEqual({
      type: 'order',
      orders: [
        { order: { c: 'BTC-USD', b: false, px: 0, sz: 0.25, r: true, t: { trigger: { is_market: true, triggerPx: 95_000 } } } },
        { order: { c: 'BTC-USD', b: false, px: 94_990.5, sz: 0.25, r: true, t: { trigger: { is_market: false, triggerPx: 95_000 } } } },
      ],
    });
  });

  it('signs them with orderType 1 ‖ is_market ‖ f64 triggerPx (gaps §1), one predicted id each; encodeTrusted gives the same bytes', () => {
    const codec = codecFor('v1');
    const actions = codec.orderActions([place(sellStop), place(sellStopLimit)]);
    const encoded = codec.encode(input(actions));
    const item = (pxHex: string, isMarket: string) =>
      // order item 0 ‖ "BTC-USD" ‖ sell ‖ px ‖ sz 0.25 ‖ reduce-only ‖ trigger ‖ is_market ‖ triggerPx 95000 ‖ no cloid
      '00000000' + '0700000000000000' + '4254432d555344' + '00' + pxHex + '000000000000d03f' + '01' + '01000000' + isMarket + '000000008031f740' + '00';
    expect(hex(encoded.signable)).toContain(item('0000000000000000', '01') + item('00000000e830f740', '00'));
    expect(encoded.orderIds.every((id) => typeof id === 'string')).toBe(true);
    expect(hex(codec.encodeTrusted(input(actions)).signable)).toBe(hex(encoded.signable));
  });
});

describe('trigger orders in the current dialect (venue-protocol §4.2: st / tp {c, d, sz, tr, lim?, i})', () => {
  it('a stop is st and a take-profit tp; d is true when the mark must rise to the trigger; lim is the stop-limit', () => {
    expect(currentOrderActions([place(sellStop), place(sellStopLimit), place(buyTakeProfit), place({ ...sellStop, side: 'buy' })])).toEqual([
      { st: { c: 'BTC-USD', d: false, sz: 0.25, tr: 95_000, i: false } },
      { st: { c: 'BTC-USD', d: false, sz: 0.25, tr: 95_000, lim: 94_990.5, i: false } },
      { tp: { c: 'BTC-USD', d: false, sz: 0.25, tr: 95_000, i: false } },
      { st: { c: 'BTC-USD', d: true, sz: 0.25, tr: 95_000, i: false } },
    ]);
    expect(currentOrderActions([place({ ...buyTakeProfit, side: 'sell' })])).toEqual([{ tp: { c: 'BTC-USD', d: true, sz: 0.25, tr: 95_000, i: false } }]);
  });

  it('the codec validates and signs them (variant 5 and 6) and gives each its conditional order id', () => {
    const codec = codecFor('current');
    const encoded = codec.encode(input(codec.orderActions([place(sellStopLimit), place(buyTakeProfit)])));
    expect(encoded.orderIds.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(encoded.orderIds).size).toBe(2);
    expect(hex(encoded.signable)).toMatch(/05000000.*06000000/);
  });

  it('refuses a trigger order that is not reduce-only (st and tp carry no side or reduce-only flag), naming reduceOnly', () => {
    let error: unknown;
    try {
      currentOrderActions([place({ ...sellStop, reduceOnly: false })]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('reduceOnly');
  });
});

describe('trailing stops and ranges (venue-protocol §4.2: trl {c, b, sz, trb, stb, lim?, i}, rng {c, d, sz, pmin, pmax, lmin?, lmax?, i})', () => {
  const trailing: OrderSpec = { ...base, side: 'sell', trigger: { kind: 'trailing', trailBps: 150, stepBps: 10 } };
  const range: OrderSpec = { ...base, side: 'buy', trigger: { kind: 'range', low: 90_000, high: 110_000 } };

  it('current: a trailing stop is trl and a range rng, b / d true when they protect a long (a sell); signed as variants 9 and 7 with ids', () => {
    const codec = codecFor('current');
    const actions = codec.orderActions([place(trailing), place(range)]);
    expect(actions).toEqual([
      { trl: { c: 'BTC-USD', b: true, sz: 0.25, trb: 150, stb: 10, i: false } },
      { rng: { c: 'BTC-USD', d: false, sz: 0.25, pmin: 90_000, pmax: 110_000, i: false } },
    ]);
    const encoded = codec.encode(input(actions));
    expect(hex(encoded.signable)).toMatch(/09000000.*07000000/);
    expect(encoded.orderIds.every((id) => typeof id === 'string')).toBe(true);
  });

  it('v1 has neither: ValidationError naming trigger.kind', () => {
    for (const spec of [trailing, range]) {
      expect(() => v1OrderActions([place(spec)])).toThrow(ValidationError);
      expect(() => v1OrderActions([place(spec)])).toThrow(/trigger\.kind: the v1 dialect has no (trailing|range) orders/);
    }
  });
});

describe('on-fill orders (venue-protocol §4.2: of {trigger: m | l, actions})', () => {
  const entry: OrderSpec = { symbol: 'BTC-USD', side: 'buy', size: 0.25, price: 100_000, tif: 'GTC', reduceOnly: false };
  const onFill: OrderSpec = { ...entry, onFill: [sellStop, { ...base, side: 'sell', trigger: { kind: 'takeProfit', triggerPrice: 105_000 } }] };

  it('current: an order with onFill is one of action, its children in order; the codec gives the children ids', () => {
    const actions = currentOrderActions([place(onFill)]);
    expect(actions).toEqual([
      {
        of: {
          trigger: { l: { c: 'BTC-USD', b: true, px: 100_000, sz: 0.25, tif: 'GTC', r: false, i: false } },
          actions: [{ st: { c: 'BTC-USD', d: false, sz: 0.25, tr: 95_000, i: false } }, { tp: { c: 'BTC-USD', d: true, sz: 0.25, tr: 105_000, i: false } }],
        },
      },
    ]);
    const encoded = codecFor('current').encode(input(actions));
    expect(encoded.childOrderIds[0]).toHaveLength(2);
    expect(encoded.childOrderIds[0]!.every((id) => typeof id === 'string')).toBe(true);
  });

  it('refused with a ValidationError naming the field: in v1, on a trigger order, empty, and on a child', () => {
    const field = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof ValidationError ? e.field : e;
      }
      return undefined;
    };
    expect(field(() => v1OrderActions([place(onFill)]))).toBe('onFill');
    expect(field(() => currentOrderActions([place({ ...sellStop, onFill: [entry] })]))).toBe('onFill');
    expect(field(() => currentOrderActions([place({ ...entry, onFill: [] })]))).toBe('onFill');
    expect(field(() => currentOrderActions([place({ ...entry, onFill: [sellStop, onFill] })]))).toBe('onFill[1].onFill');
  });
});

describe('orders parked until a mark price (venue-protocol §4.2: trig {c, d, tr, actions})', () => {
  const dip: OrderSpec = {
    symbol: 'BTC-USD',
    side: 'buy',
    size: 0.25,
    price: 94_000,
    tif: 'GTC',
    reduceOnly: false,
    whenMark: { above: false, price: 95_000 },
  };

  it('current: a trig of the one order; the codec gives the order its nested id under the basket id', () => {
    const actions = currentOrderActions([place(dip)]);
    expect(actions).toEqual([
      { trig: { c: 'BTC-USD', d: false, tr: 95_000, actions: [{ l: { c: 'BTC-USD', b: true, px: 94_000, sz: 0.25, tif: 'GTC', r: false, i: false } }] } },
    ]);
    const encoded = codecFor('current').encode(input(actions));
    expect(encoded.childOrderIds[0]).toEqual([expect.any(String)]);
    expect(encoded.childOrderIds[0]![0]).not.toBe(encoded.orderIds[0]);
  });

  it('refused naming whenMark: in v1, with a trigger, with onFill', () => {
    expect(() => v1OrderActions([place(dip)])).toThrow(/^whenMark: /);
    expect(() => currentOrderActions([place({ ...dip, ...sellStop, whenMark: dip.whenMark })])).toThrow(/^whenMark: /);
    expect(() => currentOrderActions([place({ ...dip, onFill: [sellStop] })])).toThrow(/^whenMark: /);
  });

  const breakout = { kind: 'basket', symbol: 'BTC-USD', whenMark: { above: true, price: 105_000 } } as const;
  const entry: OrderSpec = { ...dip, price: 105_500, whenMark: undefined };
  const market: OrderSpec = { ...entry, symbol: 'ETH-USD', price: undefined, tif: 'IOC' };

  it('current: a basket of several orders is one trig, each order with its nested id under the basket id', () => {
    const actions = currentOrderActions([{ ...breakout, specs: [entry, market] }]);
    expect(actions).toEqual([
      {
        trig: {
          c: 'BTC-USD',
          d: true,
          tr: 105_000,
          actions: [
            { l: { c: 'BTC-USD', b: true, px: 105_500, sz: 0.25, tif: 'GTC', r: false, i: false } },
            { m: { c: 'ETH-USD', b: true, sz: 0.25, r: false, i: false } },
          ],
        },
      },
    ]);
    const encoded = codecFor('current').encode(input(actions));
    const [a, b] = encoded.childOrderIds[0]!;
    expect(new Set([a, b, encoded.orderIds[0]]).size).toBe(3);
  });

  it('a basket is refused naming the field: in v1, empty, an order with a trigger, onFill or a whenMark of its own', () => {
    expect(() => v1OrderActions([{ ...breakout, specs: [entry] }])).toThrow(/^basket: the v1 dialect has no trigger baskets/);
    expect(() => currentOrderActions([{ ...breakout, specs: [] }])).toThrow(/^orders: /);
    expect(() => currentOrderActions([{ ...breakout, specs: [entry, sellStop] }])).toThrow(/^orders\[1\]: /);
    expect(() => currentOrderActions([{ ...breakout, specs: [{ ...entry, onFill: [sellStop] }, entry] }])).toThrow(/^orders\[0\]: /);
    expect(() => currentOrderActions([{ ...breakout, specs: [entry, dip] }])).toThrow(/^orders\[1\]\.whenMark: /);
  });
});
