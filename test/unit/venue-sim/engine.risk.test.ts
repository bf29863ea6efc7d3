import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../src/venue-sim/engine/index.js';
import { HOUR_NS } from '../../../src/venue-sim/engine/index.js';
import { ALICE, BOB, CAROL, DAVE, T0, limit, makeEngine, place } from './helpers.js';

function ofType<T extends EngineEvent['type']>(events: EngineEvent[], type: T): Extract<EngineEvent, { type: T }>[] {
  return events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);
}

const NEXT_HOUR = (T0 / HOUR_NS + 1n) * HOUR_NS;

describe('mark price', () => {
  it('is the oracle price when set, else the book mid, else the last trade', () => {
    const { engine } = makeEngine();
    engine.faucet(ALICE, 100_000);
    engine.faucet(BOB, 100_000);
    place(engine, ALICE, limit('ETH-USD', true, 2990, 1));
    place(engine, BOB, limit('ETH-USD', false, 3010, 1));
    expect(engine.marketState('ETH-USD')!.markPrice).toBe(3000);
    engine.setOraclePrice('ETH-USD', 3005);
    expect(engine.marketState('ETH-USD')).toMatchObject({ markPrice: 3005, oraclePrice: 3005, midPrice: 3000, bestBid: 2990, bestAsk: 3010 });
  });
});

describe('funding', () => {
  function setup() {
    const ctx = makeEngine();
    const { engine } = ctx;
    for (const a of [ALICE, BOB, CAROL]) engine.faucet(a, 1_000_000);
    place(engine, BOB, limit('BTC-USD', false, 50_000, 0.1));
    place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.1));
    place(engine, CAROL, limit('BTC-USD', true, 50_100, 0.01));
    place(engine, CAROL, limit('BTC-USD', false, 50_200, 0.01));
    return ctx;
  }

  it('pays rate = premium + clamp(interest − premium, ±0.05%) from longs to shorts, once per interval', () => {
    const { engine, clock } = setup();
    engine.setOraclePrice('BTC-USD', 50_000); // mid 50 150: premium 0.3 %
    const premium = (50_150 - 50_000) / 50_000;
    const rate = premium - 0.0005;
    expect(engine.predictedFundingRate('BTC-USD')).toBeCloseTo(rate, 12);
    engine.drainEvents();
    clock.ns = NEXT_HOUR - 1n;
    engine.tick();
    expect(engine.fundingHistory(ALICE)).toEqual([]);
    clock.ns = NEXT_HOUR + 5n;
    engine.tick();
    const paid = 0.1 * 50_000 * rate;
    const [alice] = engine.fundingHistory(ALICE);
    expect(alice).toMatchObject({ owner: ALICE, symbol: 'BTC-USD', size: 0.1, fundingRate: rate, markPrice: 50_000, timestamp: NEXT_HOUR });
    expect(alice!.payment).toBeCloseTo(-paid, 6);
    expect(engine.fundingHistory(BOB)[0]).toMatchObject({ size: -0.1 });
    expect(engine.fundingHistory(BOB)[0]!.payment).toBeCloseTo(paid, 6);
    expect(engine.fundingHistory(CAROL)).toEqual([]);
    expect(ofType(engine.drainEvents(), 'funding')).toHaveLength(2);
    expect(engine.audit().fundingNetUnits).toBe(0n);
    expect(engine.marginSummary(ALICE).funding).toBeCloseTo(-paid, 6);
    // a second tick in the same interval pays nothing more
    engine.tick();
    expect(engine.fundingHistory(ALICE)).toHaveLength(1);
    expect(engine.marketState('BTC-USD')!.nextFundingNs).toBe(NEXT_HOUR + HOUR_NS);
  });

  it('without a premium pays the interest rate; a negative premium makes shorts pay longs', () => {
    const { engine, clock } = setup();
    engine.setOraclePrice('BTC-USD', 50_600); // mid below index
    clock.ns = NEXT_HOUR;
    engine.tick();
    const rate = engine.fundingHistory(ALICE)[0]!.fundingRate;
    expect(rate).toBeCloseTo((50_150 - 50_600) / 50_600 + 0.0005, 12);
    expect(engine.fundingHistory(ALICE)[0]!.payment).toBeGreaterThan(0);
    expect(engine.fundingHistory(BOB)[0]!.payment).toBeLessThan(0);
  });

  it('without an index price there is no premium: the rate is the interest (0.01 % per 8 h)', () => {
    const { engine, clock } = setup();
    clock.ns = NEXT_HOUR;
    engine.tick();
    expect(engine.fundingHistory(ALICE)[0]).toMatchObject({ fundingRate: 0.0001 / 8, markPrice: 50_150 });
  });

  it('splits the payment among several receivers so that it sums to exactly zero', () => {
    const { engine, clock } = makeEngine();
    for (const a of [ALICE, BOB, CAROL, DAVE]) engine.faucet(a, 1_000_000);
    engine.setOraclePrice('SOL-USD', 100.003);
    place(engine, ALICE, limit('SOL-USD', true, 100, 10));
    place(engine, BOB, limit('SOL-USD', false, 100, 3.33));
    place(engine, CAROL, limit('SOL-USD', false, 100, 3.33));
    place(engine, DAVE, limit('SOL-USD', false, 100, 3.34));
    clock.ns = NEXT_HOUR;
    engine.tick();
    const total = [ALICE, BOB, CAROL, DAVE].reduce((s, a) => s + Math.round(engine.fundingHistory(a)[0]!.payment * 1e6), 0);
    expect(total).toBe(0);
    expect(engine.audit().fundingNetUnits).toBe(0n);
  });
});

describe('liquidation and auto-deleveraging', () => {
  it('pulls the orders (cancelledRiskLimit) and closes the position against the book', () => {
    const { engine } = makeEngine();
    engine.faucet(ALICE, 1000);
    for (const a of [BOB, CAROL]) engine.faucet(a, 1_000_000);
    engine.setOraclePrice('BTC-USD', 50_000);
    place(engine, BOB, limit('BTC-USD', false, 50_000, 0.19));
    place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.19));
    const [, resting] = place(engine, ALICE, limit('BTC-USD', true, 40_000, 0.001));
    place(engine, CAROL, limit('BTC-USD', true, 44_900, 0.1));
    place(engine, CAROL, limit('BTC-USD', true, 44_800, 0.09));
    engine.drainEvents();
    engine.setOraclePrice('BTC-USD', 45_500); // equity still above maintenance
    expect(engine.fullAccount(ALICE).positions).toHaveLength(1);
    engine.setOraclePrice('BTC-USD', 45_000);
    const events = engine.drainEvents();
    expect(ofType(events, 'orderUpdate').find((e) => e.orderId === resting)).toMatchObject({ status: 'cancelledRiskLimit', reason: 'liquidation' });
    expect(engine.fullAccount(ALICE)).toMatchObject({ positions: [], openOrders: [] });
    expect(engine.closedPositions(ALICE)[0]).toMatchObject({
      closeReason: 'liquidation',
      maxQuantity: 0.19,
      avgClosePrice: (44_900 * 0.1 + 44_800 * 0.09) / 0.19,
    });
    expect(engine.fullAccount(CAROL).positions[0]).toMatchObject({ size: 0.19 });
    const [liq] = ofType(events, 'liquidation');
    expect(liq).toMatchObject({ account: ALICE, symbol: 'BTC-USD', size: 0.19, isBuy: false });
    expect(liq!.marginAfter).toBeLessThan(liq!.marginPrior);
    expect(ofType(events, 'fill').every((f) => f.fill.reason === 'liquidation')).toBe(true);
    expect(engine.orderHistory(ALICE)[0]).toMatchObject({ orderType: 'market', status: 'filled', reduceOnly: true, reason: 'liquidation' });
    expect(engine.selfCheck()).toEqual([]);
  });

  it('auto-deleverages the most profitable opposite positions when the book cannot absorb', () => {
    const { engine } = makeEngine();
    engine.faucet(ALICE, 1000);
    for (const a of [BOB, CAROL, DAVE]) engine.faucet(a, 1_000_000);
    engine.setOraclePrice('BTC-USD', 50_000);
    place(engine, BOB, limit('BTC-USD', false, 50_000, 0.14));
    place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.14));
    place(engine, DAVE, limit('BTC-USD', false, 46_000, 0.05));
    place(engine, ALICE, limit('BTC-USD', true, 46_000, 0.05));
    place(engine, CAROL, limit('BTC-USD', true, 40_000, 0.5)); // outside the 5 % sweep band
    engine.drainEvents();
    engine.setOraclePrice('BTC-USD', 44_000);
    const events = engine.drainEvents();
    expect(ofType(events, 'adl').map((e) => [e.account, e.size, e.price, e.isBuy])).toEqual([
      [BOB, 0.14, 44_000, true],
      [DAVE, 0.05, 44_000, true],
    ]);
    expect(engine.closedPositions(ALICE)[0]).toMatchObject({ closeReason: 'liquidation', avgClosePrice: 44_000 });
    expect(engine.closedPositions(BOB)[0]).toMatchObject({ closeReason: 'adl', avgClosePrice: 44_000, realizedPnl: 840, fees: 1.4 });
    expect(engine.closedPositions(DAVE)[0]).toMatchObject({ closeReason: 'adl', realizedPnl: 100, fees: 0.46 });
    // riskHistory: the liquidation of Alice's position, and each deleveraged position (closed at mark: its equity unchanged).
    expect(engine.riskHistory(ALICE).map((r) => [r.eventType, r.amount, r.price, r.isBuy])).toEqual([['liquidation', 0.19, 44_000, false]]);
    for (const [a, size] of [
      [BOB, 0.14],
      [DAVE, 0.05],
    ] as const) {
      const [row, ...rest] = engine.riskHistory(a);
      expect(rest).toEqual([]);
      expect(row).toMatchObject({ owner: a, symbol: 'BTC-USD', eventType: 'adl', amount: size, price: 44_000, isBuy: true });
      expect(row!.marginAfter).toBeCloseTo(row!.marginPrior, 6);
      expect(row!.marginAfter).toBeCloseTo(engine.marginSummary(a).totalBalance + engine.marginSummary(a).unrealizedPnl, 6);
    }
    expect(engine.fullAccount(CAROL).positions).toEqual([]);
    expect(engine.book('BTC-USD')!.bids).toEqual([{ px: 40_000, sz: 0.5, n: 1 }]);
    const audit = engine.audit();
    expect(audit.balancesUnits + audit.feesCollectedUnits - audit.openCostUnits).toBe(audit.depositsUnits);
    expect(engine.selfCheck()).toEqual([]);
  });

  it('liquidates on tick when the book mid moves the mark (no oracle)', () => {
    const { engine } = makeEngine();
    engine.faucet(ALICE, 500);
    for (const a of [BOB, CAROL]) engine.faucet(a, 1_000_000);
    place(engine, BOB, limit('SOL-USD', false, 100, 49));
    place(engine, ALICE, limit('SOL-USD', true, 100, 49));
    place(engine, CAROL, limit('SOL-USD', true, 90, 100));
    place(engine, CAROL, limit('SOL-USD', false, 91, 100));
    engine.tick();
    expect(engine.fullAccount(ALICE).positions).toEqual([]);
    expect(engine.closedPositions(ALICE)[0]).toMatchObject({ closeReason: 'liquidation', avgClosePrice: 90 });
  });
});
