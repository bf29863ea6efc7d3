import { describe, expect, it } from 'vitest';
import type { OrderUpdateEvent } from '../../../src/venue-sim/engine/index.js';
import { ALICE, BOB, CAROL, limit, makeEngine, market, oid, place, statusKey, trigger } from './helpers.js';

function funded() {
  const ctx = makeEngine();
  for (const a of [ALICE, BOB, CAROL]) ctx.engine.faucet(a, 1_000_000);
  ctx.engine.drainEvents();
  return ctx;
}

function orderEvents(events: readonly { type: string }[], id?: string): OrderUpdateEvent[] {
  return events.filter((e): e is OrderUpdateEvent => e.type === 'orderUpdate' && (id === undefined || (e as OrderUpdateEvent).orderId === id));
}

describe('order statuses (gaps §6 and the status table)', () => {
  it('a GTC order that does not cross rests: placed / resting{oid}', () => {
    const { engine } = funded();
    const [s, id] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.1));
    expect(s).toEqual({ resting: { oid: id } });
    const ev = orderEvents(engine.drainEvents(), id);
    expect(ev.map((e) => e.status)).toEqual(['placed']);
    expect(engine.openOrders(ALICE)).toEqual([
      {
        symbol: 'BTC-USD',
        orderId: id,
        price: 50_000,
        originalSize: 0.1,
        size: 0.1,
        filledSize: 0,
        vwap: 0,
        isBuy: true,
        maker: true,
        reduceOnly: false,
        tif: 'gtc',
        status: 'placed',
        timestamp: engine.nowNs,
      },
    ]);
  });

  it('a GTC order that partly fills rests as working with filledSz, remainingSz, vwap', () => {
    const { engine } = funded();
    const [, maker] = place(engine, BOB, limit('BTC-USD', false, 50_000, 0.1));
    const [s, id] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.3));
    expect(s).toEqual({ working: { oid: id, filledSz: 0.1, remainingSz: 0.2, vwap: 50_000 } });
    const events = engine.drainEvents();
    expect(orderEvents(events, maker).map((e) => e.status)).toEqual(['placed', 'filled']);
    expect(orderEvents(events, id).map((e) => e.status)).toEqual(['working']);
    expect(engine.book('BTC-USD')!.bids).toEqual([{ px: 50_000, sz: 0.2, n: 1 }]);
    expect(engine.book('BTC-USD')!.asks).toEqual([]);
  });

  it('a resting order moves placed → working → filled as it is hit', () => {
    const { engine } = funded();
    const [, id] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.3));
    place(engine, BOB, limit('BTC-USD', false, 50_000, 0.1, 'IOC'));
    place(engine, BOB, limit('BTC-USD', false, 49_000, 0.2, 'IOC'));
    expect(orderEvents(engine.drainEvents(), id).map((e) => [e.status, e.size, e.filledSize])).toEqual([
      ['placed', 0.3, 0],
      ['working', 0.2, 0.1],
      ['filled', 0, 0.3],
    ]);
    expect(engine.orderHistory(ALICE)[0]).toMatchObject({
      orderId: id,
      status: 'filled',
      executedSize: 0.3,
      vwap: 50_000,
      side: 'buy',
      orderType: 'limit',
      tif: 'gtc',
    });
  });

  it('a fully filled new order ends filled{totalSz, avgPx} with the exact vwap', () => {
    const { engine } = funded();
    place(engine, BOB, limit('BTC-USD', false, 50_000, 0.1));
    place(engine, BOB, limit('BTC-USD', false, 50_000.1, 0.2));
    const [s, id] = place(engine, ALICE, limit('BTC-USD', true, 50_001, 0.3));
    // vwap = Σ ticks × lots / Σ lots, divided once: the double nearest the exact value
    expect(s).toEqual({ filled: { oid: id, totalSz: 0.3, avgPx: (500_000 * 1000 + 500_001 * 2000) / (3000 * 10) } });
  });

  it('IOC: unfilled rest is cancelled as cancelledIOC with filledSz (0 or more)', () => {
    const { engine } = funded();
    let [s, id] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.1, 'IOC'));
    expect(s).toEqual({ cancelledIOC: { oid: id, filledSz: 0 } });
    place(engine, BOB, limit('BTC-USD', false, 50_000, 0.1));
    [s, id] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.25, 'IOC'));
    expect(s).toEqual({ cancelledIOC: { oid: id, filledSz: 0.1 } });
    [s, id] = place(engine, BOB, limit('BTC-USD', false, 50_000, 0.1));
    const [s2, id2] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.1, 'IOC'));
    expect(s2).toEqual({ filled: { oid: id2, totalSz: 0.1, avgPx: 50_000 } });
    expect(engine.book('BTC-USD')!.asks).toEqual([]);
  });

  it('ALO rests when it would not cross and is rejectedCrossing when it would', () => {
    const { engine } = funded();
    place(engine, BOB, limit('BTC-USD', false, 50_000, 0.1));
    let [s, id] = place(engine, ALICE, limit('BTC-USD', true, 49_999.9, 0.1, 'ALO'));
    expect(s).toEqual({ resting: { oid: id } });
    [s, id] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.1, 'ALO'));
    expect(s).toEqual({ rejectedCrossing: { oid: id } });
    expect(engine.book('BTC-USD')!.asks).toEqual([{ px: 50_000, sz: 0.1, n: 1 }]);
    expect(engine.orderHistory(ALICE)[0]).toMatchObject({ orderId: id, status: 'rejectedCrossing', tif: 'alo' });
  });

  it('market orders sweep the book: filled, or partiallyFilled when the book runs out', () => {
    const { engine } = funded();
    place(engine, BOB, limit('ETH-USD', false, 3000, 1));
    place(engine, BOB, limit('ETH-USD', false, 3001, 1));
    let [s, id] = place(engine, ALICE, market('ETH-USD', true, 1.5));
    expect(s).toEqual({ filled: { oid: id, totalSz: 1.5, avgPx: (3000 + 0.5 * 3001) / 1.5 } });
    [s, id] = place(engine, ALICE, market('ETH-USD', true, 2));
    expect(s).toEqual({ partiallyFilled: { oid: id, totalSz: 0.5, avgPx: 3001 } });
    [s, id] = place(engine, ALICE, market('ETH-USD', true, 2));
    expect(s).toEqual({ partiallyFilled: { oid: id, totalSz: 0, avgPx: 0 } });
    expect(engine.orderHistory(ALICE).map((r) => [r.orderType, r.status])).toEqual([
      ['market', 'partiallyFilled'],
      ['market', 'partiallyFilled'],
      ['market', 'filled'],
    ]);
  });

  it('self-trade prevention cancels the incoming order; the resting order stays', () => {
    const { engine } = funded();
    const [, resting] = place(engine, ALICE, limit('BTC-USD', false, 50_000, 0.1));
    const [s, id] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.1));
    expect(s).toEqual({ cancelledSelfCrossing: { oid: id } });
    expect(engine.openOrders(ALICE).map((o) => o.orderId)).toEqual([resting]);
    // partly filled against someone else first, then reaches its own order
    place(engine, BOB, limit('BTC-USD', false, 49_999, 0.1));
    const [s2, id2] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.3));
    expect(s2).toEqual({ cancelledSelfCrossing: { oid: id2 } });
    expect(engine.orderHistory(ALICE)[0]).toMatchObject({ orderId: id2, status: 'cancelledSelfCrossing', executedSize: 0.1 });
    expect(engine.fullAccount(ALICE).positions).toEqual([{ coin: 'BTC-USD', size: 0.1, price: 49_999, realizedPnl: 0, leverage: 10 }]);
  });

  it('reduce-only: cancelledReduceOnly when it would increase the position; fills are capped at the position', () => {
    const { engine } = funded();
    let [s, id] = place(engine, ALICE, limit('BTC-USD', false, 50_000, 0.1, 'GTC', { r: true }));
    expect(s).toEqual({ cancelledReduceOnly: { oid: id } });
    place(engine, BOB, limit('BTC-USD', false, 50_000, 0.2));
    place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.2, 'IOC'));
    [s, id] = place(engine, ALICE, limit('BTC-USD', true, 51_000, 0.1, 'GTC', { r: true }));
    expect(s).toEqual({ cancelledReduceOnly: { oid: id } });
    // long 0.2: a reduce-only sell of 0.5 against 0.5 of bids fills 0.2 then stops
    place(engine, BOB, limit('BTC-USD', true, 49_000, 0.5));
    [s, id] = place(engine, ALICE, limit('BTC-USD', false, 49_000, 0.5, 'GTC', { r: true }));
    expect(s).toEqual({ cancelledReduceOnly: { oid: id } });
    expect(engine.orderHistory(ALICE)[0]).toMatchObject({ orderId: id, executedSize: 0.2, status: 'cancelledReduceOnly' });
    expect(engine.fullAccount(ALICE).positions).toEqual([]);
  });

  it('a resting reduce-only order is cancelledReduceOnly once it would increase the position', () => {
    const { engine } = funded();
    place(engine, BOB, limit('BTC-USD', false, 50_000, 0.2));
    place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.2, 'IOC'));
    const [s, ro] = place(engine, ALICE, limit('BTC-USD', false, 52_000, 0.2, 'GTC', { r: true }));
    expect(s).toEqual({ resting: { oid: ro } });
    place(engine, BOB, limit('BTC-USD', true, 49_000, 0.2));
    place(engine, ALICE, limit('BTC-USD', false, 49_000, 0.2, 'IOC')); // closes the position normally
    const events = engine.drainEvents();
    expect(orderEvents(events, ro).map((e) => e.status)).toEqual(['placed', 'cancelledReduceOnly']);
    expect(engine.openOrders(ALICE)).toEqual([]);
    expect(engine.book('BTC-USD')!.asks).toEqual([]);
  });

  it('duplicate order ids and client ids end rejectedDuplicate', () => {
    const { engine } = funded();
    const [, id] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.1));
    engine.drainEvents();
    expect(place(engine, ALICE, limit('BTC-USD', true, 49_000, 0.1), id)[0]).toEqual({ rejectedDuplicate: { oid: id } });
    // the live order is untouched and no orderUpdate claims it ended
    expect(orderEvents(engine.drainEvents())).toEqual([]);
    expect(engine.openOrders(ALICE)[0]).toMatchObject({ orderId: id, price: 50_000 });
    // a terminal order's id is remembered too
    const [, ioc] = place(engine, ALICE, limit('BTC-USD', true, 40_000, 0.1, 'IOC'));
    expect(place(engine, ALICE, limit('BTC-USD', true, 40_000, 0.1, 'IOC'), ioc)[0]).toEqual({ rejectedDuplicate: { oid: ioc } });
    // two identical ids in one batch
    const dup = oid();
    const r = engine.applyOrderAction(ALICE, [limit('BTC-USD', true, 45_000, 0.1), limit('BTC-USD', true, 45_000, 0.1)], { ids: [dup, dup] });
    expect(r.statuses).toEqual([{ resting: { oid: dup } }, { rejectedDuplicate: { oid: dup } }]);
    // client order id of a live order
    const cloid = 'Cl0id1111111111111111111111111111111111111';
    const [first] = place(engine, ALICE, limit('BTC-USD', true, 44_000, 0.1, 'GTC', { cloid }));
    expect(statusKey(first)).toBe('resting');
    const [again, againId] = place(engine, ALICE, limit('BTC-USD', true, 43_000, 0.1, 'GTC', { cloid }));
    expect(again).toEqual({ rejectedDuplicate: { oid: againId } });
    expect(engine.orderHistory(ALICE)[0]).toMatchObject({ orderId: againId, status: 'rejectedDuplicate' });
  });

  it('invalid parameters end rejectedInvalid with a reason', () => {
    const { engine } = funded();
    const cases: [Parameters<typeof limit>, string][] = [
      [['DOGE-USD', true, 1, 100], 'unknown symbol'],
      [['BTC-USD', true, 50_000, 0.00015], 'size is not a multiple of the lot size'],
      [['BTC-USD', true, 50_000.05, 0.1], 'price is not a multiple of the tick size'],
      [['BTC-USD', true, Number.NaN, 0.1], 'price is not a finite number'],
      [['BTC-USD', true, 50_000, Number.POSITIVE_INFINITY], 'size is not a finite number'],
      [['BTC-USD', true, 50_000, 0], 'size must be positive'],
      [['BTC-USD', true, -1, 0.1], 'price must be positive'],
      [['BTC-USD', true, 50_000, 0.0001], 'below minimum notional'],
    ];
    for (const [args, reason] of cases) {
      const [s, id] = place(engine, ALICE, limit(...args));
      expect(s).toEqual({ rejectedInvalid: { oid: id, reason } });
    }
    const [s, id] = place(engine, ALICE, {
      order: { c: 'BTC-USD', b: true, px: 50_000, sz: 0.1, r: false, t: { trigger: { is_market: true, triggerPx: 0 } } },
    });
    expect(s).toEqual({ rejectedInvalid: { oid: id, reason: 'market order price must be 0' } });
    const events = orderEvents(engine.drainEvents());
    expect(events).toHaveLength(cases.length + 1);
    expect(events.every((e) => e.status === 'rejectedInvalid' && e.reason !== null)).toBe(true);
    // every pushed rejection is in the history, the unknown symbol's under the symbol it named
    const history = engine.orderHistory(ALICE);
    expect(history).toHaveLength(cases.length + 1);
    expect(history[0]).toMatchObject({ status: 'rejectedInvalid', price: 50_000, originalSize: 0.1, reason: 'market order price must be 0' });
    expect(history.at(-1)).toMatchObject({ symbol: 'DOGE-USD', status: 'rejectedInvalid', price: 1, originalSize: 100, reason: 'unknown symbol' });
  });

  it('orders beyond initial margin end rejectedRiskLimit; reduce-only and reducing orders pass', () => {
    const { engine } = makeEngine();
    engine.faucet(ALICE, 1000);
    engine.faucet(BOB, 1_000_000);
    // default leverage 10: 1000 USD allows 10 000 USD of exposure
    let [s, id] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.21));
    expect(s).toEqual({ rejectedRiskLimit: { oid: id, reason: 'insufficient margin' } });
    [s, id] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.19));
    expect(statusKey(s)).toBe('resting');
    // another buy would exceed, a sell of the same size only offsets the worst case
    expect(statusKey(place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.02))[0])).toBe('rejectedRiskLimit');
    expect(statusKey(place(engine, ALICE, limit('BTC-USD', false, 60_000, 0.19))[0])).toBe('resting');
    expect(statusKey(place(engine, CAROL, limit('BTC-USD', true, 50_000, 0.1))[0])).toBe('rejectedRiskLimit');
  });

  it('cancel by order id; cancelAll by symbols or all; one cancelled status per cancelled order', () => {
    const { engine } = funded();
    const ids = [
      place(engine, ALICE, limit('BTC-USD', true, 49_000, 0.1))[1],
      place(engine, ALICE, limit('ETH-USD', true, 2_000, 1))[1],
      place(engine, ALICE, limit('SOL-USD', true, 100, 1))[1],
      place(engine, ALICE, limit('SOL-USD', false, 200, 1))[1],
    ];
    let r = engine.applyOrderAction(ALICE, [
      { cancel: { c: 'BTC-USD', oid: ids[0]! } },
      { cancel: { c: 'BTC-USD', oid: ids[0]! } },
      { cancel: { c: 'BTC-USD', oid: ids[1]! } },
    ]);
    expect(r.statuses).toEqual([{ cancelled: { oid: ids[0] } }, { error: { message: 'order not found' } }, { error: { message: 'order not found' } }]);
    // another account cannot cancel it
    expect(engine.applyOrderAction(BOB, [{ cancel: { c: 'ETH-USD', oid: ids[1]! } }]).statuses).toEqual([{ error: { message: 'order not found' } }]);
    r = engine.applyOrderAction(ALICE, [{ cancelAll: { c: ['SOL-USD'] } }]);
    expect(r.statuses).toEqual([{ cancelled: { oid: ids[2] } }, { cancelled: { oid: ids[3] } }]);
    r = engine.applyOrderAction(ALICE, [{ cancelAll: { c: [] } }, { cancelAll: { c: [] } }]);
    expect(r.statuses).toEqual([{ cancelled: { oid: ids[1] } }]);
    expect(engine.openOrders(ALICE)).toEqual([]);
    expect(engine.orderHistory(ALICE).map((h) => h.status)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled']);
  });

  it('batch items apply in order (cancel then place at the same price)', () => {
    const { engine } = funded();
    const [, a] = place(engine, ALICE, limit('BTC-USD', true, 49_000, 0.1));
    const b = oid();
    const r = engine.applyOrderAction(ALICE, [{ cancel: { c: 'BTC-USD', oid: a } }, limit('BTC-USD', true, 49_000, 0.2)], { ids: [undefined, b] });
    expect(r.statuses).toEqual([{ cancelled: { oid: a } }, { resting: { oid: b } }]);
    expect(engine.book('BTC-USD')!.bids).toEqual([{ px: 49_000, sz: 0.2, n: 1 }]);
  });

  it('generated ids are base58 32-byte hashes and depend only on the seed', () => {
    const one = makeEngine({ seed: 3 }).engine;
    const two = makeEngine({ seed: 3 }).engine;
    one.faucet(ALICE, 10_000);
    two.faucet(ALICE, 10_000);
    const a = one.applyOrderAction(ALICE, [limit('BTC-USD', true, 49_000, 0.1)]).statuses[0] as { resting: { oid: string } };
    const b = two.applyOrderAction(ALICE, [limit('BTC-USD', true, 49_000, 0.1)]).statuses[0] as { resting: { oid: string } };
    expect(a.resting.oid).toBe(b.resting.oid);
    expect(a.resting.oid).toMatch(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/);
  });

  it('fills record maker/taker, fees, slot and timestamp; both accounts see the fill', () => {
    const { engine, clock } = funded();
    const [, m] = place(engine, BOB, limit('BTC-USD', false, 50_000, 0.1));
    clock.advance(5);
    const [, t] = place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.1));
    const expected = {
      maker: BOB,
      taker: ALICE,
      orderIdMaker: m,
      orderIdTaker: t,
      isBuy: true,
      symbol: 'BTC-USD',
      amount: 0.1,
      price: 50_000,
      makerFee: 1,
      takerFee: 1.75,
      slot: engine.slot,
      timestamp: engine.nowNs,
    };
    expect(engine.fills(ALICE)).toEqual([expected]);
    expect(engine.fills(BOB)).toEqual([expected]);
    expect(engine.marginSummary(BOB).fees).toBe(1);
    expect(engine.fullAccount(ALICE).marginSummary.positions).toEqual([{ coin: 'USDC', size: 1_000_000 - 1.75 }]);
    expect(engine.query('fills', ALICE)).toEqual([{ fills: expected }]);
  });

  it('every status change is one orderUpdate, in the order applied', () => {
    const { engine } = funded();
    const [, m1] = place(engine, BOB, limit('BTC-USD', false, 50_000, 0.1));
    const [, m2] = place(engine, CAROL, limit('BTC-USD', false, 50_000.5, 0.1));
    engine.drainEvents();
    const [, t] = place(engine, ALICE, limit('BTC-USD', true, 50_001, 0.15));
    const events = engine.drainEvents();
    const seq = events.map((e) => (e.type === 'orderUpdate' ? `${e.orderId}:${e.status}` : e.type));
    expect(seq).toEqual([
      'fill',
      `${m1}:filled`,
      'bookLevel',
      'fill',
      `${m2}:working`,
      'bookLevel',
      `${t}:filled`,
      'positionUpdate',
      'marginUpdate',
      'positionUpdate',
      'marginUpdate',
      'positionUpdate',
      'marginUpdate',
    ]);
    expect(events.filter((e) => e.type === 'bookLevel')).toEqual([
      { type: 'bookLevel', symbol: 'BTC-USD', isBid: false, px: 50_000, sz: 0, n: 0, timestamp: engine.nowNs },
      { type: 'bookLevel', symbol: 'BTC-USD', isBid: false, px: 50_000.5, sz: 0.05, n: 1, timestamp: engine.nowNs },
    ]);
  });
});

describe('trigger orders (fired by the mark price)', () => {
  it('a market stop rests parked, fires when the oracle mark crosses, and fills against the book', () => {
    const { engine } = funded();
    engine.setOraclePrice('BTC-USD', 50_000);
    place(engine, BOB, limit('BTC-USD', false, 52_000, 0.1));
    const [s, id] = place(engine, ALICE, trigger('BTC-USD', true, 0.1, 51_000));
    expect(s).toEqual({ resting: { oid: id } });
    expect(engine.openOrders(ALICE)).toHaveLength(1);
    engine.setOraclePrice('BTC-USD', 50_900);
    expect(engine.openOrders(ALICE)).toHaveLength(1);
    engine.drainEvents();
    engine.setOraclePrice('BTC-USD', 51_000);
    expect(orderEvents(engine.drainEvents(), id).map((e) => e.status)).toEqual(['filled']);
    expect(engine.fullAccount(ALICE).positions[0]).toMatchObject({ coin: 'BTC-USD', size: 0.1, price: 52_000 });
    expect(engine.orderHistory(ALICE)[0]).toMatchObject({ orderId: id, orderType: 'trigger', status: 'filled' });
  });

  it('a buy trailing stop follows the lowest mark down (in steps of stepBps) and fires when the mark rises trailBps above it', () => {
    const { engine } = funded();
    engine.setOraclePrice('BTC-USD', 50_000);
    place(engine, BOB, limit('BTC-USD', false, 52_000, 0.1));
    const trailing = {
      order: { c: 'BTC-USD', b: true, px: 0, sz: 0.1, r: false, t: { trigger: { is_market: true, triggerPx: 0, trailBps: 100, stepBps: 50 } } },
    };
    const [s, id] = place(engine, ALICE, trailing);
    expect(s).toEqual({ resting: { oid: id } });
    engine.setOraclePrice('BTC-USD', 49_800); // 0.4%: under the 0.5% step, the trigger stays at 50,500
    engine.setOraclePrice('BTC-USD', 50_400);
    expect(engine.openOrders(ALICE)).toHaveLength(1);
    engine.setOraclePrice('BTC-USD', 49_000); // trigger 49,490
    engine.setOraclePrice('BTC-USD', 49_400);
    expect(engine.openOrders(ALICE)).toHaveLength(1);
    engine.drainEvents();
    engine.setOraclePrice('BTC-USD', 49_490);
    expect(orderEvents(engine.drainEvents(), id).map((e) => e.status)).toEqual(['filled']);
  });

  it('a range fires at either bound; a high bound not above the low one is rejectedInvalid', () => {
    const { engine } = funded();
    engine.setOraclePrice('ETH-USD', 3000);
    const range = (lo: number, hi: number) => ({
      order: { c: 'ETH-USD', b: false, px: 0, sz: 1, r: false, t: { trigger: { is_market: true, triggerPx: lo, highPx: hi } } },
    });
    const [, id] = place(engine, ALICE, range(2900, 3100));
    engine.setOraclePrice('ETH-USD', 3099);
    expect(engine.openOrders(ALICE).map((o) => o.orderId)).toEqual([id]);
    engine.setOraclePrice('ETH-USD', 3100);
    expect(engine.openOrders(ALICE)).toEqual([]);
    expect(place(engine, ALICE, range(3100, 3100))[0]).toMatchObject({ rejectedInvalid: { reason: 'range high price must be above its low price' } });
  });

  it('a stop-limit becomes a GTC limit at px when the mark falls through triggerPx', () => {
    const { engine } = funded();
    engine.setOraclePrice('ETH-USD', 3000);
    const [s, id] = place(engine, ALICE, trigger('ETH-USD', false, 1, 2900, 2890));
    expect(s).toEqual({ resting: { oid: id } });
    expect(engine.book('ETH-USD')!.asks).toEqual([]);
    engine.setOraclePrice('ETH-USD', 2899);
    expect(engine.book('ETH-USD')!.asks).toEqual([{ px: 2890, sz: 1, n: 1 }]);
    expect(engine.openOrders(ALICE)[0]).toMatchObject({ orderId: id, status: 'placed', price: 2890, tif: 'gtc' });
  });

  it('a reduce-only trigger with no position to reduce is cancelledReduceOnly when it fires', () => {
    const { engine } = funded();
    engine.setOraclePrice('SOL-USD', 100);
    place(engine, BOB, limit('SOL-USD', false, 100, 1));
    place(engine, ALICE, limit('SOL-USD', true, 100, 1, 'IOC'));
    const [, id] = place(engine, ALICE, trigger('SOL-USD', false, 1, 95, 0, { r: true }));
    place(engine, BOB, limit('SOL-USD', true, 99, 1));
    place(engine, ALICE, limit('SOL-USD', false, 99, 1, 'IOC'));
    engine.drainEvents();
    engine.setOraclePrice('SOL-USD', 94);
    expect(orderEvents(engine.drainEvents(), id).map((e) => e.status)).toEqual(['cancelledReduceOnly']);
  });
});
