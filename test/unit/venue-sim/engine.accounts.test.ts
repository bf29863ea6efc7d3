import { createHash } from 'node:crypto';
import { base58Encode } from '../../../src/protocol/base58.js';
import { subAccountKey } from '../../../src/venue-sim/engine/index.js';
import { describe, expect, it } from 'vitest';
import { ConfigError, ValidationError } from '../../../src/core/errors.js';
import { DEFAULT_MARKETS, HOUR_NS } from '../../../src/venue-sim/engine/index.js';
import { ALICE, BOB, CAROL, limit, makeEngine, place } from './helpers.js';

const AGENT = 'Agent111111111111111111111111111111111111';

describe('faucet and collateral', () => {
  it('credits USDC (default amount, explicit amount) and reports it in marginSummary.positions', () => {
    const { engine } = makeEngine();
    expect(engine.faucet(ALICE)).toEqual({ deposit: { amount: 10_000 } });
    expect(engine.faucet(ALICE, 2.5)).toEqual({ deposit: { amount: 2.5 } });
    expect(engine.fullAccount(ALICE).marginSummary).toEqual({ positions: [{ coin: 'USDC', size: 10_002.5 }] });
    expect(engine.drainEvents().filter((e) => e.type === 'marginUpdate')).toHaveLength(2);
  });

  it('refuses bad amounts and claims inside the cooldown, changing nothing', () => {
    const { engine, clock } = makeEngine({ faucetCooldownNs: 24n * HOUR_NS, faucetMaxUsd: 1e6 });
    expect(engine.faucet(ALICE, -1)).toEqual({ depositFailed: { message: 'amount must be a positive number' } });
    expect(engine.faucet(ALICE, Number.NaN)).toEqual({ depositFailed: { message: 'amount must be a positive number' } });
    expect(engine.faucet(ALICE, 2e6)).toMatchObject({ depositFailed: {} });
    expect(engine.faucet(ALICE)).toEqual({ deposit: { amount: 10_000 } });
    clock.advance(HOUR_NS);
    expect(engine.faucet(ALICE)).toEqual({ depositFailed: { message: 'Rate limit exceeded' } });
    clock.advance(23n * HOUR_NS);
    expect(engine.faucet(ALICE)).toEqual({ deposit: { amount: 10_000 } });
    expect(engine.audit().depositsUnits).toBe(20_000_000_000n);
  });

  it('an unknown account has an empty snapshot', () => {
    const { engine } = makeEngine();
    expect(engine.fullAccount(CAROL)).toEqual({
      positions: [],
      openOrders: [],
      marginSummary: { positions: [{ coin: 'USDC', size: 0 }] },
      settings: {
        maxLeverage: [
          ['BTC-USD', 10],
          ['ETH-USD', 10],
          ['SOL-USD', 10],
        ],
      },
    });
    for (const type of ['openOrders', 'fills', 'positions', 'fundingHistory', 'orderHistory'] as const) expect(engine.query(type, CAROL)).toEqual([]);
  });
});

describe('leverage settings', () => {
  it('clamps to 1..50 and to the market maximum without an error', () => {
    const { engine } = makeEngine();
    const r = engine.setLeverage(ALICE, [
      ['BTC-USD', 0.5],
      ['ETH-USD', 100],
      ['SOL-USD', 7.5],
      ['BTC-USD', 60],
    ]);
    expect(r).toEqual({
      settings: {
        maxLeverage: [
          ['BTC-USD', 1],
          ['ETH-USD', 25],
          ['SOL-USD', 7.5],
          ['BTC-USD', 50],
        ],
      },
    });
    expect(engine.fullAccount(ALICE).settings.maxLeverage).toEqual([
      ['BTC-USD', 50],
      ['ETH-USD', 25],
      ['SOL-USD', 7.5],
    ]);
    expect(engine.drainEvents().find((e) => e.type === 'leverageUpdate')).toMatchObject({
      account: ALICE,
      leverage: r && 'settings' in r ? r.settings.maxLeverage : [],
    });
  });

  it('answers an error and changes nothing for an unknown symbol or a non-finite value', () => {
    const { engine } = makeEngine();
    expect(
      engine.setLeverage(ALICE, [
        ['BTC-USD', 2],
        ['XRP-USD', 3],
      ]),
    ).toEqual({ error: { message: 'unknown symbol XRP-USD' } });
    expect(engine.setLeverage(ALICE, [['BTC-USD', Number.NaN]])).toMatchObject({ error: {} });
    expect(engine.fullAccount(ALICE).settings.maxLeverage[0]).toEqual(['BTC-USD', 10]);
  });

  it('higher leverage allows more exposure for the same collateral', () => {
    const { engine } = makeEngine();
    engine.faucet(ALICE, 1000);
    expect(Object.keys(place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.5))[0])).toEqual(['rejectedRiskLimit']);
    engine.setLeverage(ALICE, [['BTC-USD', 50]]);
    expect(Object.keys(place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.5))[0])).toEqual(['resting']);
    expect(engine.marginSummary(ALICE)).toMatchObject({ totalBalance: 1000, marginUsed: 500, availableBalance: 500 });
  });
});

describe('agent wallets', () => {
  it('registers and removes agents; answers whether a signer is authorized', () => {
    const { engine } = makeEngine();
    expect(engine.isAuthorized(ALICE, ALICE)).toBe(true);
    expect(engine.isAuthorized(ALICE, AGENT)).toBe(false);
    expect(engine.setAgent(ALICE, AGENT, false)).toEqual({ agentWallet: { agent: AGENT, delete: false } });
    expect(engine.isAuthorized(ALICE, AGENT)).toBe(true);
    expect(engine.isAuthorized(BOB, AGENT)).toBe(false);
    expect(engine.agents(ALICE)).toEqual([AGENT]);
    expect(engine.setAgent(ALICE, AGENT, true)).toEqual({ agentWallet: { agent: AGENT, delete: true } });
    expect(engine.isAuthorized(ALICE, AGENT)).toBe(false);
    expect(engine.setAgent(ALICE, AGENT, true)).toEqual({ error: { message: 'not an agent of this account' } });
    expect(engine.setAgent(ALICE, ALICE, false)).toEqual({ error: { message: 'an account cannot be its own agent' } });
  });

  it('caps the number of agents per account', () => {
    const { engine } = makeEngine({ maxAgentsPerAccount: 2 });
    engine.setAgent(ALICE, 'a1', false);
    engine.setAgent(ALICE, 'a2', false);
    expect(engine.setAgent(ALICE, 'a3', false)).toEqual({ error: { message: 'at most 2 agents per account' } });
    expect(engine.setAgent(ALICE, 'a2', false)).toEqual({ agentWallet: { agent: 'a2', delete: false } });
  });
});

describe('positions and closed-position history', () => {
  it('keeps signed size, entry price, realized PnL, fees; records the closed position', () => {
    const { engine, clock } = makeEngine();
    engine.faucet(ALICE, 100_000);
    engine.faucet(BOB, 100_000);
    const openNs = clock.ns;
    place(engine, BOB, limit('BTC-USD', false, 50_000, 0.1));
    place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.1));
    expect(engine.fullAccount(ALICE).positions).toEqual([{ coin: 'BTC-USD', size: 0.1, price: 50_000, realizedPnl: 0, leverage: 10 }]);
    expect(engine.fullAccount(BOB).positions).toEqual([{ coin: 'BTC-USD', size: -0.1, price: 50_000, realizedPnl: 0, leverage: 10 }]);
    clock.advance(1_000_000);
    place(engine, BOB, limit('BTC-USD', true, 51_000, 0.1));
    place(engine, ALICE, limit('BTC-USD', false, 51_000, 0.1));
    expect(engine.fullAccount(ALICE).positions).toEqual([]);
    expect(engine.closedPositions(ALICE)).toEqual([
      {
        owner: ALICE,
        symbol: 'BTC-USD',
        maxQuantity: 0.1,
        totalVolume: 0.2,
        avgOpenPrice: 50_000,
        avgClosePrice: 51_000,
        realizedPnl: 100,
        fees: 3.535,
        funding: 0,
        openTime: openNs,
        closeTime: clock.ns,
        closeReason: 'normal',
      },
    ]);
    expect(engine.closedPositions(BOB)[0]).toMatchObject({ realizedPnl: -100, fees: 2.02, closeReason: 'normal' });
    expect(engine.fullAccount(ALICE).marginSummary.positions[0]!.size).toBe(100_000 + 100 - 3.535);
    expect(engine.query('positions', ALICE)).toEqual([{ positions: engine.closedPositions(ALICE)[0] }]);
  });

  it('a flip closes one position and opens the other', () => {
    const { engine } = makeEngine();
    engine.faucet(ALICE, 100_000);
    engine.faucet(BOB, 100_000);
    place(engine, BOB, limit('ETH-USD', false, 3000, 1));
    place(engine, ALICE, limit('ETH-USD', true, 3000, 1));
    place(engine, BOB, limit('ETH-USD', true, 3100, 3));
    place(engine, ALICE, limit('ETH-USD', false, 3100, 3));
    expect(engine.fullAccount(ALICE).positions).toEqual([{ coin: 'ETH-USD', size: -2, price: 3100, realizedPnl: 0, leverage: 10 }]);
    expect(engine.closedPositions(ALICE)[0]).toMatchObject({ maxQuantity: 1, totalVolume: 2, avgOpenPrice: 3000, avgClosePrice: 3100, realizedPnl: 100 });
  });
});

describe('history limits', () => {
  it('keeps only the newest historyLimit rows of each kind, newest first', () => {
    const { engine, clock } = makeEngine({ historyLimit: 3 });
    engine.faucet(ALICE, 1_000_000);
    engine.faucet(BOB, 1_000_000);
    engine.setOraclePrice('SOL-USD', 100);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      place(engine, BOB, limit('SOL-USD', false, 100 + i, 1));
      ids.push(place(engine, ALICE, limit('SOL-USD', true, 100 + i, 1))[1]);
      place(engine, BOB, limit('SOL-USD', true, 100 + i, 1));
      place(engine, ALICE, limit('SOL-USD', false, 100 + i, 1));
    }
    expect(engine.orderHistory(ALICE)).toHaveLength(3);
    expect(engine.fills(ALICE).map((f) => f.price)).toEqual([104, 104, 103]);
    expect(engine.closedPositions(ALICE).map((p) => p.avgOpenPrice)).toEqual([104, 103, 102]);
    place(engine, BOB, limit('SOL-USD', false, 100, 1));
    place(engine, ALICE, limit('SOL-USD', true, 100, 1));
    for (let i = 0; i < 5; i++) {
      clock.advance(HOUR_NS);
      engine.tick();
    }
    const funding = engine.fundingHistory(ALICE);
    expect(funding).toHaveLength(3);
    expect(funding[0]!.timestamp > funding[1]!.timestamp).toBe(true);
    // an id that fell out of the kept window is no longer a duplicate
    expect(Object.keys(place(engine, ALICE, limit('SOL-USD', true, 90, 1), ids[0])[0])).toEqual(['resting']);
  });
});

describe('configuration', () => {
  it('lists the default markets with their steps', () => {
    const { engine } = makeEngine();
    expect(engine.markets().map((m) => [m.symbol, m.tickSize, m.lotSize, m.minNotional, m.maxLeverage])).toEqual([
      ['BTC-USD', 0.1, 0.0001, 10, 50],
      ['ETH-USD', 0.01, 0.001, 10, 25],
      ['SOL-USD', 0.001, 0.01, 10, 20],
    ]);
    expect(engine.marketInfo('DOGE-USD')).toBeUndefined();
  });

  it('rejects bad market configs and oversized batches', () => {
    expect(() => makeEngine({ markets: [{ ...DEFAULT_MARKETS[0]!, symbol: 'btc' }] })).toThrow(ConfigError);
    expect(() => makeEngine({ markets: [DEFAULT_MARKETS[0]!, DEFAULT_MARKETS[0]!] })).toThrow(ConfigError);
    expect(() => makeEngine({ markets: [{ ...DEFAULT_MARKETS[0]!, tickSize: -1 }] })).toThrow(ConfigError);
    const { engine } = makeEngine({ maxBatchItems: 2 });
    expect(() => engine.applyOrderAction(ALICE, [limit('BTC-USD', true, 1, 1), limit('BTC-USD', true, 1, 1), limit('BTC-USD', true, 1, 1)])).toThrow(
      ValidationError,
    );
  });
});

describe("sub-account keys (the local venue's derivation; the real venue's is NOT FOUND)", () => {
  it('sha256("perpbot local venue sub-account" ‖ master ‖ u64 n ‖ u32 attempt), the first canonical point', () => {
    const master = base58Encode(new Uint8Array(32).fill(5));
    const expected = base58Encode(
      createHash('sha256')
        .update(Buffer.concat([Buffer.from('perpbot local venue sub-account'), Buffer.alloc(32, 5), Buffer.from([3, 0, 0, 0, 0, 0, 0, 0]), Buffer.alloc(4)]))
        .digest(),
    );
    expect(subAccountKey(master, 3)).toBe(expected);
    expect(subAccountKey(master, 4)).not.toBe(expected);
  });
});
