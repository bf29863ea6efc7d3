// Engine hardening: oracle input that would corrupt state is refused whole, and collateral stays exact.
// Invariant: every refused call changes nothing (no events, same market state, same ledger).

import { describe, expect, it } from 'vitest';
import { ConfigError, ValidationError } from '../../../src/core/errors.js';
import type { Engine } from '../../../src/venue-sim/engine/index.js';
import { ALICE, BOB, limit, makeEngine, market, place, statusKey } from './helpers.js';

const U64_MAX = (1n << 64n) - 1n;
const SECOND_NS = 1_000_000_000n;

/** Throws unless `fn` throws a ValidationError naming `field`; returns its message. */
function refusal(fn: () => unknown, field: string): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).field).toBe(field);
    return (e as Error).message;
  }
  throw new Error(`expected a ValidationError naming ${field}`);
}

/** Everything an oracle call could change, for before/after comparison. */
function snapshot(engine: Engine) {
  return {
    state: engine.markets().map((m) => engine.marketState(m.symbol)),
    alice: engine.orderHistory(ALICE),
    positions: engine.fullAccount(ALICE).positions,
    audit: engine.audit(),
    slot: engine.slot,
  };
}

/** A funded long on BTC-USD at 50 000 with the oracle there; events drained. */
function withLong(opts: Parameters<typeof makeEngine>[0] = {}) {
  const made = makeEngine(opts);
  const { engine } = made;
  engine.faucet(ALICE, 10_000);
  engine.faucet(BOB, 1_000_000);
  engine.setOraclePrice('BTC-USD', 50_000);
  place(engine, BOB, limit('BTC-USD', false, 50_000, 1));
  expect(statusKey(place(engine, ALICE, market('BTC-USD', true, 0.5))[0])).toBe('filled');
  engine.drainEvents();
  return made;
}

describe('oracle input bounds', () => {
  it('refuses a price of 1e308 (or any non-finite one) whole, changing nothing: no liquidation at infinity, no null in history', () => {
    const { engine } = withLong();
    const before = snapshot(engine);
    for (const price of [1e308, Number.POSITIVE_INFINITY, Number.NaN, -1, 0]) {
      expect(refusal(() => engine.setOraclePrices([{ symbol: 'BTC-USD', price, timestamp: engine.nowNs }]), 'prices[0].price')).toMatch(/BTC-USD/);
    }
    expect(engine.drainEvents()).toEqual([]);
    expect(snapshot(engine)).toEqual(before);
  });

  it('refuses a price outside the absolute band [tick, 10^12 ticks] even with no oracle price yet', () => {
    const { engine } = makeEngine();
    refusal(() => engine.setOraclePrice('BTC-USD', 0.05), 'prices[0].price');
    refusal(() => engine.setOraclePrice('BTC-USD', 1e11 + 1e6), 'prices[0].price');
    expect(engine.setOraclePrice('BTC-USD', 1e10)).toEqual({ oracle: { count: 1 } });
  });

  it('refuses a move beyond oracleMaxMove of the current oracle price (default: at most ×2 or ÷2 per update)', () => {
    const { engine } = withLong();
    const before = snapshot(engine);
    expect(refusal(() => engine.setOraclePrice('BTC-USD', 100_000.1), 'prices[0].price')).toMatch(/oracleMaxMove/);
    expect(refusal(() => engine.setOraclePrice('BTC-USD', 24_999.9), 'prices[0].price')).toMatch(/oracleMaxMove/);
    expect(snapshot(engine)).toEqual(before);
    expect(engine.setOraclePrice('BTC-USD', 100_000)).toEqual({ oracle: { count: 1 } });
    const tight = makeEngine({ oracleMaxMove: 0.1 }).engine;
    tight.setOraclePrice('ETH-USD', 3000);
    refusal(() => tight.setOraclePrice('ETH-USD', 3301), 'prices[0].price');
    expect(tight.setOraclePrice('ETH-USD', 3299)).toEqual({ oracle: { count: 1 } });
  });

  it('refuses the whole action when one entry is bad (all or nothing)', () => {
    const { engine } = withLong();
    const before = snapshot(engine);
    const t = engine.nowNs;
    refusal(
      () =>
        engine.setOraclePrices([
          { symbol: 'ETH-USD', price: 3000, timestamp: t },
          { symbol: 'BTC-USD', price: 1e308, timestamp: t },
        ]),
      'prices[1].price',
    );
    refusal(
      () =>
        engine.setOraclePrices([
          { symbol: 'ETH-USD', price: 3000, timestamp: t },
          { symbol: 'XRP-USD', price: 1, timestamp: t },
        ]),
      'prices[1].symbol',
    );
    expect(snapshot(engine)).toEqual(before);
  });

  it('refuses a timestamp of 2^64−1 (or any more than oracleMaxSkewNs from the venue clock), so the symbol never freezes', () => {
    const { engine, clock } = withLong();
    const before = snapshot(engine);
    expect(refusal(() => engine.setOraclePrice('BTC-USD', 51_000, U64_MAX), 'prices[0].timestamp')).toMatch(/venue clock/);
    refusal(() => engine.setOraclePrice('BTC-USD', 51_000, clock.ns - 301n * SECOND_NS), 'prices[0].timestamp');
    refusal(() => engine.setOraclePrice('BTC-USD', 51_000, clock.ns + 301n * SECOND_NS), 'prices[0].timestamp');
    expect(snapshot(engine)).toEqual(before);
    clock.advance(SECOND_NS);
    expect(engine.setOraclePrice('BTC-USD', 51_000)).toEqual({ oracle: { count: 1 } });
    expect(engine.marketState('BTC-USD')!.oraclePrice).toBe(51_000);
    const strict = makeEngine({ oracleMaxSkewNs: SECOND_NS });
    refusal(() => strict.engine.setOraclePrice('BTC-USD', 51_000, strict.clock.ns + 2n * SECOND_NS), 'prices[0].timestamp');
  });

  it('rejects bad settings with the key named', () => {
    expect(() => makeEngine({ oracleMaxMove: 0 })).toThrow(ConfigError);
    expect(() => makeEngine({ oracleMaxMove: Number.NaN })).toThrow(/oracleMaxMove/);
    expect(() => makeEngine({ oracleMaxSkewNs: 0n })).toThrow(/oracleMaxSkewNs/);
  });
});

describe('collateral exactness past 2^53 quote units', () => {
  const ledger = (engine: Engine) => {
    const a = engine.audit();
    return { deposits: BigInt(a.depositsUnits), balances: BigInt(a.balancesUnits), fees: BigInt(a.feesCollectedUnits), openCost: BigInt(a.openCostUnits) };
  };

  it('a 1-unit deposit after 10^16 units of faucet credits is kept exactly', () => {
    const { engine } = makeEngine();
    for (let i = 0; i < 10; i++) engine.faucet(ALICE, 1e9);
    for (let i = 0; i < 3; i++) expect(engine.faucet(ALICE, 0.000001)).toEqual({ deposit: { amount: 0.000001 } });
    expect(ledger(engine)).toMatchObject({ deposits: 10_000_000_000_000_003n, balances: 10_000_000_000_000_003n });
    // biome-ignore lint/correctness/noPrecisionLoss: the exact decimal is meant; toBe compares its nearest double
    expect(engine.marginSummary(ALICE).totalBalance).toBe(10_000_000_000.000003);
  });

  it('trading positions whose entry value passes 2^53 units keeps deposits = balances + fees − open cost exactly', () => {
    const { engine } = makeEngine();
    for (const a of [ALICE, BOB]) for (let i = 0; i < 20; i++) engine.faucet(a, 1e9);
    engine.setOraclePrice('BTC-USD', 50_000);
    // ten opening trades of 19 000.0001 BTC at prices one tick apart: entry value ≈ 9.5 × 10^15 units
    for (let i = 0; i < 10; i++) {
      const px = (500_000 + i) / 10;
      place(engine, BOB, limit('BTC-USD', false, px, 19_000.0001));
      expect(statusKey(place(engine, ALICE, limit('BTC-USD', true, px, 19_000.0001, 'IOC'))[0])).toBe('filled');
    }
    expect(ledger(engine).openCost).toBe(0n);
    const long = engine.fullAccount(ALICE).positions[0]!;
    expect(long.price * long.size * 1e6).toBeGreaterThan(2 ** 53);
    // partial closes of odd sizes at odd prices split the entry value by rounding
    for (const [px, sz] of [
      [50_000.3, 3_333.3333],
      [49_999.7, 7_777.7777],
      [50_001.1, 1.0001],
    ] as const) {
      place(engine, BOB, limit('BTC-USD', true, px, sz));
      expect(statusKey(place(engine, ALICE, limit('BTC-USD', false, px, sz, 'IOC'))[0])).toBe('filled');
      const l = ledger(engine);
      expect(l.balances + l.fees - l.openCost).toBe(l.deposits);
    }
    expect(engine.selfCheck()).toEqual([]);
  });
});
