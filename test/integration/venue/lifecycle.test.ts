import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { parseAccountResponse } from '../../../src/protocol/v1/account.js';
import { Engine } from '../../../src/venue-sim/engine/index.js';
import { MarketFlow } from '../../../src/venue-sim/flow.js';
import type { Venue } from '../../../src/venue-sim/server/index.js';
import { quietVenue, Trader } from './harness.js';

const HOUR_NS = 3_600_000_000_000n;
const oracleKey = Keypair.generate();
const clock = new ManualClock(BigInt(Date.now()) * 1_000_000n);
let venue: Venue;
beforeAll(async () => {
  venue = await quietVenue({ seed: 8, clock, oracleKeys: [oracleKey.publicKey] });
});
afterAll(() => venue.close());

const statusKey = (r: { body: any }, i = 0) => Object.keys(r.body.response.data.statuses[i])[0];

describe('local venue: margin, oracle, funding, liquidation over HTTP', () => {
  const oracle = () => new Trader(venue, oracleKey);
  const setMark = (symbol: string, price: number) => oracle().send({ type: 'oracle', prices: [{ timestamp: clock.nowNs(), symbol, price }] });

  it('working: an order that fills partly rests the rest; rejectedRiskLimit beyond initial margin', async () => {
    const maker = new Trader(venue);
    const t = new Trader(venue);
    await maker.faucet(100_000);
    await t.faucet(1_000);
    await maker.orders(maker.limit('ETH-USD', false, 2000, 0.1));
    const r = await t.orders(t.limit('ETH-USD', true, 2000, 0.3));
    expect(r.body.response.data.statuses[0]).toEqual({ working: { oid: r.orderIds[0], filledSz: 0.1, remainingSz: 0.2, vwap: 2000 } });
    const tooBig = await t.orders(t.limit('ETH-USD', true, 1900, 100));
    expect(statusKey(tooBig)).toBe('rejectedRiskLimit');
    expect(tooBig.body.response.data.statuses[0].rejectedRiskLimit.reason).toMatch(/margin/i);
  });

  it('the oracle action from the oracle key moves the mark; liquidation cancels orders (cancelledRiskLimit) and records the closed position', async () => {
    expect(statusKey(await setMark('SOL-USD', 100))).toBe('oracle');
    const lp = new Trader(venue);
    const victim = new Trader(venue);
    await lp.faucet(1_000_000);
    await victim.faucet(60);
    await lp.orders(lp.limit('SOL-USD', false, 100, 10), lp.limit('SOL-USD', true, 80, 50), lp.limit('SOL-USD', true, 70, 50));
    await victim.send({ type: 'updateUserSettings', settings: { m: [['SOL-USD', 20]] } });
    const open = await victim.orders(victim.market('SOL-USD', true, 10));
    expect(statusKey(open)).toBe('filled');
    const resting = await victim.orders(victim.limit('SOL-USD', false, 150, 1));
    expect(statusKey(resting)).toBe('resting');
    expect(statusKey(await setMark('SOL-USD', 92))).toBe('oracle');
    const history = parseAccountResponse('orderHistory', await victim.query('orderHistory'));
    expect(history.find((h) => h.orderHistory.orderId === resting.orderIds[0])?.orderHistory.status).toBe('cancelledRiskLimit');
    const closed = parseAccountResponse('positions', await victim.query('positions'));
    expect(closed[0]!.positions).toMatchObject({ owner: victim.account, symbol: 'SOL-USD', closeReason: 'liquidation', maxQuantity: 10 });
    expect(parseAccountResponse('fullAccount', await victim.query('fullAccount'))[0]!.fullAccount.positions).toEqual([]);
  });

  it('closing a position normally records closeReason normal', async () => {
    const lp = new Trader(venue);
    const t = new Trader(venue);
    await lp.faucet(1_000_000);
    await t.faucet(10_000);
    await lp.orders(lp.limit('BTC-USD', false, 50_000, 0.01), lp.limit('BTC-USD', true, 49_000, 0.01));
    await t.orders(t.market('BTC-USD', true, 0.01));
    await t.orders(t.market('BTC-USD', false, 0.01, true));
    const closed = parseAccountResponse('positions', await t.query('positions'));
    expect(closed[0]!.positions).toMatchObject({ symbol: 'BTC-USD', closeReason: 'normal', avgOpenPrice: 50_000, avgClosePrice: 49_000, totalVolume: 0.02 });
  });

  it('pays funding each interval between longs and shorts, recorded in fundingHistory', async () => {
    const long = new Trader(venue);
    const short = new Trader(venue);
    await long.faucet(100_000);
    await short.faucet(100_000);
    expect(statusKey(await setMark('ETH-USD', 2000))).toBe('oracle');
    await short.orders(short.limit('ETH-USD', false, 2010, 1));
    await long.orders(long.limit('ETH-USD', true, 2010, 1));
    await long.orders(long.limit('ETH-USD', true, 2005, 1));
    await short.orders(short.limit('ETH-USD', false, 2015, 1));
    clock.set(clock.nowNs() + HOUR_NS + 1n);
    venue.step();
    const paid = parseAccountResponse('fundingHistory', await long.query('fundingHistory'));
    const received = parseAccountResponse('fundingHistory', await short.query('fundingHistory'));
    expect(paid).toHaveLength(1);
    expect(received).toHaveLength(1);
    expect(paid[0]!.fundingPayment).toMatchObject({ owner: long.account, symbol: 'ETH-USD', size: 1 });
    expect(received[0]!.fundingPayment.size).toBe(-1);
    expect(paid[0]!.fundingPayment.payment).toBeLessThan(0);
    expect(paid[0]!.fundingPayment.payment + received[0]!.fundingPayment.payment).toBeCloseTo(0, 9);
  });
});

describe('market flow', () => {
  function run(seed: number): unknown[] {
    const clock = new ManualClock(1_763_770_000_000_000_000n);
    const engine = new Engine({ clock, seed });
    const flow = new MarketFlow(engine, { seed });
    const log: unknown[] = [];
    for (let i = 0; i < 60; i++) {
      clock.advanceMs(250);
      flow.step();
      engine.tick();
      log.push(...engine.drainEvents());
    }
    return log;
  }

  it('is deterministic for a seed, differs across seeds, and trades', () => {
    const a = run(4);
    expect(run(4)).toEqual(a);
    expect(run(5)).not.toEqual(a);
    expect(a.filter((e: any) => e.type === 'fill').length).toBeGreaterThan(10);
  });
});
