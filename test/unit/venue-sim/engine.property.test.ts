import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine, ItemStatus, OrderActionItem } from '../../../src/venue-sim/engine/index.js';
import { HOUR_NS } from '../../../src/venue-sim/engine/index.js';
import { ManualClock, makeEngine } from './helpers.js';

const ACCOUNTS = ['Acct1', 'Acct2', 'Acct3', 'Acct4'];
const SYMBOLS = [
  { symbol: 'BTC-USD', price: (off: number) => (500_000 + off * 100) / 10, size: (k: number) => k / 1000, oracle: 50_000 },
  { symbol: 'SOL-USD', price: (off: number) => (200 + off) / 2, size: (k: number) => k / 10, oracle: 100 },
];

type Op =
  | { k: 'place'; acct: number; sym: number; buy: boolean; off: number; lots: number; type: number; ro: boolean; cloid: number }
  | { k: 'cancel'; acct: number; pick: number }
  | { k: 'cancelAll'; acct: number; all: boolean; sym: number }
  | { k: 'oracle'; sym: number; pct: number }
  | { k: 'tick'; minutes: number }
  | { k: 'lev'; acct: number; sym: number; lev: number }
  | { k: 'close'; acct: number; sym: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      k: fc.constant('place' as const),
      acct: fc.nat(3),
      sym: fc.nat(1),
      buy: fc.boolean(),
      off: fc.integer({ min: -20, max: 20 }),
      lots: fc.integer({ min: 1, max: 200 }),
      type: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 5 })),
      ro: fc.boolean(),
      cloid: fc.nat(40),
    }),
  },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('cancel' as const), acct: fc.nat(3), pick: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('cancelAll' as const), acct: fc.nat(3), all: fc.boolean(), sym: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('oracle' as const), sym: fc.nat(1), pct: fc.integer({ min: -30, max: 30 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('tick' as const), minutes: fc.integer({ min: 0, max: 120 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('lev' as const), acct: fc.nat(3), sym: fc.nat(1), lev: fc.integer({ min: 0, max: 60 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('close' as const), acct: fc.nat(3), sym: fc.nat(1) }) },
);

const scenarioArb = fc.record({
  deposits: fc.tuple(...ACCOUNTS.map(() => fc.integer({ min: 300, max: 5_000 }))),
  ops: fc.array(opArb, { minLength: 1, maxLength: 120, size: 'max' }),
});

function item(op: Extract<Op, { k: 'place' }>): OrderActionItem {
  const s = SYMBOLS[op.sym]!;
  const base = { c: s.symbol, b: op.buy, sz: s.size(op.lots), r: op.ro && op.type !== 2 };
  const cloid = op.cloid < 5 ? { cloid: `cloid${op.cloid}` } : {};
  switch (op.type) {
    case 0:
      return { order: { ...base, px: s.price(op.off), t: { limit: { tif: 'GTC' } }, ...cloid } };
    case 1:
      return { order: { ...base, px: s.price(op.off), t: { limit: { tif: 'IOC' } }, ...cloid } };
    case 2:
      return { order: { ...base, px: s.price(op.off), t: { limit: { tif: 'ALO' } }, ...cloid } };
    case 3:
      return { order: { ...base, px: 0, t: { trigger: { is_market: true, triggerPx: 0 } } } };
    case 4:
      return { order: { ...base, px: 0, t: { trigger: { is_market: true, triggerPx: s.price(op.off) } } } };
    default:
      return { order: { ...base, px: s.price(op.off), t: { trigger: { is_market: false, triggerPx: s.price(-op.off) } } } };
  }
}

const TERMINAL_OR_FIRST = new Set([
  'resting',
  'working',
  'filled',
  'partiallyFilled',
  'cancelledSelfCrossing',
  'cancelledReduceOnly',
  'cancelledIOC',
  'rejectedInvalid',
  'rejectedRiskLimit',
  'rejectedCrossing',
  'rejectedDuplicate',
]);

/** Runs a scenario, checking the invariants after every step; returns the engine and its whole event log. */
interface Scenario {
  deposits: number[];
  ops: Op[];
}

function run(scenario: Scenario, seed: number, check: boolean): { engine: Engine; log: unknown[] } {
  const clock = new ManualClock();
  const { engine } = makeEngine({ seed, clock });
  const log: unknown[] = [];
  scenario.deposits.forEach((d, i) => engine.faucet(ACCOUNTS[i]!, d));
  const placed: [string, string][] = [];
  for (const op of scenario.ops) {
    clock.advance(1000);
    const acct = 'acct' in op ? ACCOUNTS[op.acct]! : '';
    let statuses: ItemStatus[] = [];
    switch (op.k) {
      case 'place': {
        const r = engine.applyOrderAction(acct, [item(op)]);
        statuses = r.statuses;
        if (check) {
          expect(statuses).toHaveLength(1);
          expect(TERMINAL_OR_FIRST.has(Object.keys(statuses[0]!)[0]!)).toBe(true);
        }
        const s = statuses[0]! as Record<string, { oid: string }>;
        placed.push([acct, Object.values(s)[0]!.oid]);
        break;
      }
      case 'cancel': {
        if (placed.length === 0) break;
        const [owner, oid] = placed[op.pick % placed.length]!;
        const sym = engine.openOrders(owner).find((o) => o.orderId === oid)?.symbol ?? 'BTC-USD';
        statuses = engine.applyOrderAction(owner, [{ cancel: { c: sym, oid } }]).statuses;
        if (check) expect(statuses).toHaveLength(1);
        break;
      }
      case 'cancelAll': {
        const before = engine.openOrders(acct).filter((o) => op.all || o.symbol === SYMBOLS[op.sym]!.symbol).length;
        statuses = engine.applyOrderAction(acct, [{ cancelAll: { c: op.all ? [] : [SYMBOLS[op.sym]!.symbol] } }]).statuses;
        if (check) expect(statuses).toHaveLength(before);
        break;
      }
      case 'oracle':
        engine.setOraclePrice(SYMBOLS[op.sym]!.symbol, SYMBOLS[op.sym]!.oracle * (1 + op.pct / 100));
        break;
      case 'tick':
        clock.advance(BigInt(op.minutes) * 60_000_000_000n);
        engine.tick();
        break;
      case 'lev':
        engine.setLeverage(acct, [[SYMBOLS[op.sym]!.symbol, op.lev]]);
        break;
      case 'close': {
        const sym = SYMBOLS[op.sym]!.symbol;
        const pos = engine.fullAccount(acct).positions.find((p) => p.coin === sym);
        if (pos === undefined) break;
        statuses = engine.applyOrderAction(acct, [
          { cancelAll: { c: [sym] } },
          { order: { c: sym, b: pos.size < 0, px: 0, sz: Math.abs(pos.size), r: true, t: { trigger: { is_market: true, triggerPx: 0 } } } },
        ]).statuses;
        break;
      }
    }
    log.push(statuses, engine.drainEvents());
    if (check) checkInvariants(engine);
  }
  return { engine, log };
}

function checkInvariants(engine: Engine): void {
  // book uncrossed, level totals right, filled + remaining = original for live orders, exposure bookkeeping
  expect(engine.selfCheck()).toEqual([]);
  for (const { symbol } of SYMBOLS) {
    const b = engine.book(symbol)!;
    if (b.bids.length > 0 && b.asks.length > 0) expect(b.bids[0]!.px).toBeLessThan(b.asks[0]!.px);
  }
  // collateral is conserved exactly: deposits = balances + fees taken − entry cost of open positions
  const a = engine.audit();
  expect(a.balancesUnits + a.feesCollectedUnits - a.openCostUnits).toBe(a.depositsUnits);
  expect(a.fundingNetUnits).toBe(0n);
  for (const net of Object.values(a.netLotsBySymbol)) expect(net).toBe(0);
  for (const acct of ACCOUNTS) {
    for (const o of engine.openOrders(acct)) expect(o.filledSize + o.size).toBeCloseTo(o.originalSize, 12);
    for (const h of engine.orderHistory(acct)) expect(h.executedSize).toBeLessThanOrEqual(h.originalSize);
  }
}

/** 150 audited flows take about 7 s on an idle CPU and three times that beside the other test files (CI shares 2 CPUs). */
const CPU_BOUND_TIMEOUT_MS = 90_000;

describe('engine properties (fast-check)', () => {
  it(
    'random order flows keep the book uncrossed and conserve size and collateral',
    () => {
      fc.assert(
        fc.property(scenarioArb, (scenario) => {
          run(scenario, 1, true);
        }),
        { numRuns: 150, seed: 20_240_601 },
      );
    },
    CPU_BOUND_TIMEOUT_MS,
  );

  it('the same seed and inputs produce the same event log', () => {
    fc.assert(
      fc.property(scenarioArb, fc.integer({ min: 0, max: 1000 }), (scenario, seed) => {
        const one = run(scenario, seed, false).log;
        const two = run(scenario, seed, false).log;
        expect(two).toEqual(one);
      }),
      { numRuns: 60, seed: 7 },
    );
  });

  it('the flows reach fills, funding, liquidations, triggers and every first-step status', () => {
    const seen = new Set<string>();
    const samples = fc.sample(scenarioArb, { numRuns: 150, seed: 20_240_601 });
    for (const scenario of samples) {
      for (const entry of run(scenario, 1, false).log) {
        for (const x of entry as Record<string, unknown>[]) {
          const type = typeof x.type === 'string' ? x.type : Object.keys(x)[0]!;
          seen.add(type === 'orderUpdate' ? `status:${String(x.status)}` : type);
          if (type === 'positionClosed') seen.add(`close:${(x.position as { closeReason: string }).closeReason}`);
        }
      }
    }
    for (const k of [
      'fill',
      'funding',
      'liquidation',
      'adl',
      'close:normal',
      'close:liquidation',
      'close:adl',
      'filled',
      'working',
      'resting',
      'cancelledIOC',
      'rejectedCrossing',
      'rejectedRiskLimit',
      'cancelledReduceOnly',
      'cancelledSelfCrossing',
      'partiallyFilled',
      'rejectedDuplicate',
      'status:cancelledRiskLimit',
    ]) {
      expect(seen, k).toContain(k);
    }
  });

  it('a long random flow across funding intervals still balances', () => {
    fc.assert(
      fc.property(
        fc.record({
          deposits: fc.tuple(...ACCOUNTS.map(() => fc.integer({ min: 300, max: 50_000 }))),
          ops: fc.array(opArb, { minLength: 300, maxLength: 400, size: 'max' }),
        }),
        (scenario) => {
          const { engine } = run(scenario, 2, false);
          checkInvariants(engine);
          expect(engine.nowNs).toBeGreaterThan(0n);
          expect(HOUR_NS).toBe(3_600_000_000_000n);
        },
      ),
      { numRuns: 20, seed: 99 },
    );
  });
});
