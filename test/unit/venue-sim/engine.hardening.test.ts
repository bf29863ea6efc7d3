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
    refusal(() => engine.setOraclePrices([{ symbol: 'ETH-USD', price: 3000, timestamp: t }, { symbol: 'BTC-USD', price: 1e308, timestamp: t }]), 'prices[1].price');
    refusal(() => engine.setOraclePrices([{ symbol: 'ETH-USD', price: 3000, timestamp: t }, { symbol: 'XRP-USD', price: 1, timestamp: t }]), 'prices[1].symbol');
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
