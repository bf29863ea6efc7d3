import { EMPTY } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { StrategyError } from '../../../src/core/errors.js';
import { parse } from '../../../src/core/schema.js';
import { L2Book } from '../../../src/market/book.js';
import { intentSchema } from '../../../src/strategy/intent-schema.js';
import {
  closingTrigger,
  defineStrategy,
  inventory,
  isStrategyDefinition,
  mid,
  PendingOrders,
  positionOf,
  roundToLot,
  roundToStep,
  roundToTick,
  schema as s,
  spread,
  stamp,
  STRATEGY_BRAND,
  triggersAbove,
  withDefault,
  type OrderEvent,
} from '../../../src/strategy/api.js';
import { accountState, book } from './helpers.js';

describe('rounding helpers', () => {
  it('rounds prices to the tick down, up and to the nearest, printing exact decimals', () => {
    expect(roundToTick(100.07, 0.1, 'down')).toBe(100);
    expect(roundToTick(100.07, 0.1, 'up')).toBe(100.1);
    expect(roundToTick(100.07, 0.1)).toBe(100.1);
    expect(roundToTick(100.04, 0.1)).toBe(100);
    expect(roundToTick(0.1 + 0.2, 0.1, 'down')).toBe(0.3);
    expect(roundToTick(0.3, 0.1, 'up')).toBe(0.3);
    expect(roundToTick(100_000.3, 0.1, 'down')).toBe(100_000.3);
    expect(roundToTick(100_000.3, 0.1, 'up')).toBe(100_000.3);
    expect(roundToTick(1.23456789, 1e-7, 'down')).toBe(1.2345678);
    expect(roundToTick(1234, 5, 'up')).toBe(1235);
    expect(roundToTick(-0.04, 0.1)).toBe(0);
    expect(Object.is(roundToTick(-0.04, 0.1), -0)).toBe(false);
  });

  it('rounds sizes down to the lot by default', () => {
    expect(roundToLot(0.01239, 0.0001)).toBe(0.0123);
    expect(roundToLot(0.00009, 0.0001)).toBe(0);
    expect(roundToLot(0.07, 0.01)).toBe(0.07);
    expect(roundToLot(0.3 - 0.1, 0.1)).toBe(0.2);
    expect(roundToLot(0.01231, 0.0001, 'up')).toBe(0.0124);
  });

  it("lands on the grid, exact at the step's decimals, on the side the mode asks (random values and steps)", () => {
    const steps: [number, number][] = [
      [1, 0],
      [5, 0],
      [0.5, 1],
      [0.25, 2],
      [0.1, 1],
      [0.01, 2],
      [0.001, 3],
      [1e-4, 4],
      [1e-7, 7],
      [2.5e-7, 8],
      [0.05, 2],
      [100, 0],
    ];
    for (let i = 0; i < 20_000; i++) {
      const [step, decimals] = steps[i % steps.length]!;
      const value = (Math.random() - 0.3) * step * 10 ** Math.floor(Math.random() * 9);
      const down = roundToStep(value, step, 'down');
      const up = roundToStep(value, step, 'up');
      const nearest = roundToStep(value, step);
      for (const r of [down, up, nearest]) {
        expect(Number(r.toFixed(decimals))).toBe(r);
        expect(Math.abs(r / step - Math.round(r / step))).toBeLessThan(1e-6);
      }
      const slack = Math.abs(value) * 1e-12 + 1e-9 * step;
      expect(down <= value + slack && down > value - step - slack).toBe(true);
      expect(up >= value - slack && up < value + step + slack).toBe(true);
      expect(nearest === down || nearest === up).toBe(true);
    }
  });

  it('throws RangeError for a step that is not > 0', () => {
    expect(() => roundToStep(1, 0)).toThrow(RangeError);
    expect(() => roundToStep(1, -0.1)).toThrow(RangeError);
    expect(() => roundToStep(1, NaN)).toThrow(RangeError);
  });
});

describe('book helpers', () => {
  it('mid and spread need both sides', () => {
    const b = book([[99, 1]], [[101, 1]], 7, 1234);
    expect(mid(b)).toBe(100);
    expect(spread(b)).toEqual({ abs: 2, bps: 200 });
    expect(mid(book([[99, 1]], []))).toBeUndefined();
    expect(spread(book([], [[101, 1]]))).toBeUndefined();
  });

  it('stamp carries the book venue time (ms), version and arrival time (ns)', () => {
    expect(stamp(book([[99, 1]], [[101, 1]], 7, 1234))).toEqual({ dataTimeMs: 1234, dataVersion: 7, arrivalNs: 7_000n });
  });

  it('stamp of a live book carries the arrival time of the update it applied last', () => {
    const b = new L2Book('BTC-USD');
    b.apply({
      kind: 'snapshot',
      symbol: 'BTC-USD',
      bids: [{ price: 99, size: 1, orders: 1 }],
      asks: [{ price: 101, size: 1, orders: 1 }],
      venueTimeMs: 1234,
      arrivalNs: 5_000_000_123n,
    });
    b.apply({ kind: 'delta', symbol: 'BTC-USD', bids: [{ price: 99, size: 2, orders: 1 }], asks: [], venueTimeMs: 1235, arrivalNs: 5_000_000_456n });
    expect(stamp(b)).toEqual({ dataTimeMs: 1235, dataVersion: 2, arrivalNs: 5_000_000_456n });
  });
});

describe('position helpers', () => {
  it('positionOf reads the signed size, 0 when absent', () => {
    expect(positionOf(accountState({ 'BTC-USD': -0.5 }), 'BTC-USD')).toBe(-0.5);
    expect(positionOf(accountState(), 'BTC-USD')).toBe(0);
    expect(positionOf(undefined, 'BTC-USD')).toBe(0);
  });

  it('inventory measures the position against a target and the maximum', () => {
    expect(inventory(0.5, { max: 2 })).toEqual({ deviation: 0.5, ratio: 0.25, buyCapacity: 1.5, sellCapacity: 2.5 });
    expect(inventory(1, { target: 1, max: 2 })).toMatchObject({ deviation: 0, ratio: 0 });
    expect(inventory(-3, { max: 2 })).toEqual({ deviation: -3, ratio: -1, buyCapacity: 5, sellCapacity: 0 });
    expect(() => inventory(0, { max: 0 })).toThrow(RangeError);
  });
});

describe('defineStrategy', () => {
  const params = s.object({ n: withDefault(s.number({ min: 0 }), 3) });

  it('brands the definition so the loader can tell it from look-alikes', () => {
    const def = defineStrategy({ name: 'my-strategy', params, create: () => EMPTY });
    expect(isStrategyDefinition(def)).toBe(true);
    expect(def[STRATEGY_BRAND]).toBe(1);
    expect(Object.isFrozen(def)).toBe(true);
    expect(isStrategyDefinition({ name: 'x', params, create: () => EMPTY })).toBe(false);
    expect(isStrategyDefinition(null)).toBe(false);
    // The brand is a registered symbol: a definition from another copy of the API module is recognised.
    expect(isStrategyDefinition({ [Symbol.for('perpbot.strategy-definition')]: 1, name: 'x', params, create: () => EMPTY })).toBe(true);
  });

  it('refuses malformed definitions with StrategyError', () => {
    expect(() => defineStrategy({ name: 'My Strategy', params, create: () => EMPTY })).toThrow(StrategyError);
    expect(() => defineStrategy({ name: 'x', params: {} as never, create: () => EMPTY })).toThrow('strategy x: params must be a schema');
    expect(() => defineStrategy({ name: 'x', params, create: 1 as never })).toThrow('strategy x: create must be a function');
  });

  it('withDefault fills an absent param and validates a given one', () => {
    expect(parse(params, {})).toEqual({ n: 3 });
    expect(parse(params, { n: 0 })).toEqual({ n: 0 });
    expect(() => parse(params, { n: -1 }, 'p')).toThrow('p.n: must be >= 0, got -1');
  });
});

describe('PendingOrders', () => {
  const ev = (clientTag: string, status: OrderEvent['status'], filledSize: number, side: 'buy' | 'sell' = 'buy'): OrderEvent => ({
    strategy: 's',
    orderId: 'o',
    clientTag,
    symbol: 'BTC-USD',
    side,
    price: 1,
    size: 1,
    filledSize,
    status,
    reason: undefined,
    timeMs: 0,
  });

  it('holds a market from the send until the position shows the fills, whichever of the two comes first', () => {
    const pending = new PendingOrders(1_000);
    expect(pending.busy('BTC-USD', 0, 0)).toBe(false);
    pending.sent('BTC-USD', 't1', 0.5);
    expect(pending.busy('BTC-USD', 0.5, 0)).toBe(true);
    expect(pending.update(ev('other', 'filled', 1), 0)).toBe(false);
    expect(pending.update(ev('t1', 'working', 0.2), 0)).toBe(false);
    expect(pending.update(ev('t1', 'cancelledIOC', 0.25, 'sell'), 10)).toBe(true);
    expect(pending.busy('BTC-USD', 0.5, 20)).toBe(true);
    expect(pending.busy('BTC-USD', 0.25, 20)).toBe(false);
    // The state first: the position already moved when the order's end arrives.
    pending.sent('BTC-USD', 't2', 0.25);
    expect(pending.update(ev('t2', 'filled', 0.75), 30)).toBe(true);
    expect(pending.busy('BTC-USD', 1, 30)).toBe(false);
  });

  it('frees a market at once when nothing filled, and after timeoutMs when the fills never show', () => {
    const pending = new PendingOrders(1_000);
    pending.sent('BTC-USD', 't1', 0);
    pending.update(ev('t1', 'cancelledIOC', 0), 0);
    expect(pending.busy('BTC-USD', 0, 0)).toBe(false);
    pending.sent('BTC-USD', 't2', 0);
    pending.update(ev('t2', 'filled', 1), 100);
    expect(pending.busy('BTC-USD', 0, 1_099)).toBe(true);
    expect(pending.busy('BTC-USD', 0, 1_100)).toBe(false);
  });
});

describe('conditional intents', () => {
  it('closingTrigger: reduce-only, the opposite side of the position, its whole size, GTC; a valid intent', () => {
    const stop = closingTrigger('BTC-USD', 0.3, { kind: 'stop', triggerPrice: 95 });
    expect(stop).toEqual({ symbol: 'BTC-USD', side: 'sell', size: 0.3, tif: 'GTC', reduceOnly: true, trigger: { kind: 'stop', triggerPrice: 95 } });
    const tp = closingTrigger('BTC-USD', -2, { kind: 'takeProfit', triggerPrice: 90 }, { limitPrice: 89.5, clientTag: 'tp' });
    expect(tp).toMatchObject({ side: 'buy', size: 2, price: 89.5, clientTag: 'tp' });
    for (const order of [stop, tp]) expect(parse(intentSchema, { kind: 'place', dataTimeMs: 1, dataVersion: 1, order })).toBeDefined();
    expect(() => closingTrigger('BTC-USD', 0, { kind: 'stop', triggerPrice: 95 })).toThrow('positionBase: no position to close in BTC-USD (0)');
  });

  it('triggersAbove: a sell stop and a buy take-profit fire at or below their trigger, a buy stop and a sell take-profit at or above', () => {
    expect([triggersAbove('sell', 'stop'), triggersAbove('buy', 'takeProfit'), triggersAbove('buy', 'stop'), triggersAbove('sell', 'takeProfit')]).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });
});
