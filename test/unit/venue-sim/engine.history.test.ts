import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TERMINAL_ORDER_STATUSES } from '../../../src/core/intent.js';
import type { EngineEvent, FillRow, OrderActionItem, OrderHistoryRow, OrderStatus } from '../../../src/venue-sim/engine/index.js';
import { ALICE, BOB, CAROL, DAVE, limit, makeEngine, place, statusKey } from './helpers.js';

const TERMINAL = new Set<OrderStatus>(TERMINAL_ORDER_STATUSES);
const ACCOUNTS = [ALICE, BOB, CAROL, DAVE];
const SYMBOLS = [
  { symbol: 'BTC-USD', px: (off: number) => (500_000 + off * 10) / 10, sz: (k: number) => k / 1000 },
  { symbol: 'SOL-USD', px: (off: number) => (100_000 + off * 50) / 1000, sz: (k: number) => k / 10 },
];

type Op = { k: 'place'; acct: number; sym: number; buy: boolean; off: number; lots: number; tif: number; reuse: number } | { k: 'cancel'; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      k: fc.constant('place' as const),
      acct: fc.nat(3),
      sym: fc.nat(1),
      buy: fc.boolean(),
      off: fc.integer({ min: -6, max: 6 }),
      lots: fc.integer({ min: 1, max: 30 }),
      tif: fc.nat(3),
      reuse: fc.nat(9),
    }),
  },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('cancel' as const), pick: fc.nat(1000) }) },
);

/** The order history and fills each account should report, replayed from the event log (newest first). */
function expected(events: EngineEvent[], limit: number): Map<string, { orders: OrderHistoryRow[]; fills: FillRow[] }> {
  const out = new Map(ACCOUNTS.map((a) => [a, { orders: [] as OrderHistoryRow[], fills: [] as FillRow[] }]));
  for (const e of events) {
    if (e.type === 'orderUpdate' && TERMINAL.has(e.status)) {
      out.get(e.account)!.orders.unshift({
        orderId: e.orderId,
        symbol: e.symbol,
        side: e.isBuy ? 'buy' : 'sell',
        orderType: e.orderType,
        ...(e.conditional !== null && { conditional: e.conditional.type }),
        tif: e.tif,
        price: e.price,
        vwap: e.vwap,
        originalSize: e.originalSize,
        executedSize: e.filledSize,
        reduceOnly: e.reduceOnly,
        status: e.status,
        reason: e.reason,
        slot: e.slot,
        timestamp: e.timestamp,
      });
    } else if (e.type === 'fill') {
      const { reason: _reason, ...row } = e.fill;
      out.get(e.fill.maker)!.fills.unshift(row);
      out.get(e.fill.taker)!.fills.unshift(row);
    }
  }
  for (const h of out.values()) {
    h.orders.length = Math.min(h.orders.length, limit);
    h.fills.length = Math.min(h.fills.length, limit);
  }
  return out;
}

describe('order and fill history', () => {
  it('queries agree with the event log while the shared row buffers grow and reuse rows', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2, 3, 8, 40),
        fc.constantFrom(0, 1, 2, 256),
        fc.array(opArb, { minLength: 50, maxLength: 400 }),
        (historyLimit, dedupeWindow, ops) => {
          const { engine, clock } = makeEngine({ historyLimit, dedupeWindow });
          for (const a of ACCOUNTS) engine.faucet(a, 1_000_000);
          engine.drainEvents();
          const events: EngineEvent[] = [];
          const ids: [string, string, string][] = [];
          let n = 0;
          for (const op of ops) {
            clock.advance(1000);
            if (op.k === 'place') {
              const s = SYMBOLS[op.sym]!;
              const id = op.reuse === 0 && ids.length > 0 ? ids[ids.length - 1]![1] : `h${++n}`;
              const item: OrderActionItem = limit(s.symbol, op.buy, s.px(op.off), s.sz(op.lots), (['GTC', 'GTC', 'IOC', 'ALO'] as const)[op.tif]);
              const [status] = place(engine, ACCOUNTS[op.acct]!, item, id);
              if (statusKey(status) === 'resting' || statusKey(status) === 'working') ids.push([ACCOUNTS[op.acct]!, id, s.symbol]);
            } else if (ids.length > 0) {
              const [acct, id, symbol] = ids.splice(op.pick % ids.length, 1)[0]!;
              engine.applyOrderAction(acct, [{ cancel: { c: symbol, oid: id } }]);
            }
            events.push(...engine.drainEvents());
          }
          for (const [acct, want] of expected(events, historyLimit)) {
            expect(engine.orderHistory(acct)).toEqual(want.orders);
            expect(engine.fills(acct)).toEqual(want.fills);
          }
          expect(engine.selfCheck()).toEqual([]);
        },
      ),
      { numRuns: 60, seed: 4242 },
    );
  });

  it('queries agree with the event log for every kind of ended order (market, triggers, reduce-only, rejects, unlisted symbols, liquidation)', () => {
    const reached = new Set<string>();
    const richOp = fc.record({
      acct: fc.nat(3),
      kind: fc.nat(11),
      buy: fc.boolean(),
      off: fc.integer({ min: -40, max: 40 }),
      lots: fc.integer({ min: 0, max: 400 }),
      cloid: fc.nat(6),
      pct: fc.integer({ min: -25, max: 25 }),
    });
    fc.assert(
      fc.property(fc.constantFrom(2, 5, 30), fc.array(richOp, { minLength: 80, maxLength: 300 }), (historyLimit, ops) => {
        const { engine, clock } = makeEngine({ historyLimit, dedupeWindow: 4 });
        ACCOUNTS.forEach((a, i) => engine.faucet(a, [400, 2000, 50_000, 1_000_000][i]));
        engine.setOraclePrice('BTC-USD', 50_000);
        engine.drainEvents();
        const events: EngineEvent[] = [];
        let n = 0;
        for (const op of ops) {
          clock.advance(1000);
          const acct = ACCOUNTS[op.acct]!;
          const px = (500_000 + op.off * 10) / 10;
          const sz = op.lots / 1000;
          const cloid = op.cloid < 2 ? { cloid: `c${op.cloid}` } : {};
          switch (op.kind) {
            case 0:
            case 1:
            case 2:
              place(engine, acct, limit('BTC-USD', op.buy, px, sz, op.kind === 2 ? 'IOC' : 'GTC', cloid), `r${++n}`);
              break;
            case 3:
              place(
                engine,
                acct,
                { order: { c: 'BTC-USD', b: op.buy, px: 0, sz, r: op.lots % 2 === 0, t: { trigger: { is_market: true, triggerPx: 0 } } } },
                `r${++n}`,
              );
              break;
            case 4:
              place(engine, acct, limit('BTC-USD', op.buy, px, sz, 'ALO', { r: true }), `r${++n}`);
              break;
            case 5:
              place(engine, acct, limit('BTC-USD', op.buy, px + 0.05, sz * 1000), `r${++n}`);
              break;
            case 6:
              engine.applyOrderAction(acct, [{ cancelAll: { c: [] } }]);
              break;
            case 7:
              engine.setOraclePrice('BTC-USD', 50_000 * (1 + op.pct / 100));
              break;
            case 8:
              place(engine, acct, limit(op.lots % 2 === 0 ? 'DOGE-USD' : 'BTC-USD', op.buy, px, sz, 'GTC', cloid), `r${++n}`);
              break;
            case 9:
              place(
                engine,
                acct,
                {
                  order: {
                    c: 'BTC-USD',
                    b: op.buy,
                    px: op.lots % 3 === 0 ? 0 : px,
                    sz,
                    r: op.lots % 2 === 0,
                    t: { trigger: { is_market: op.lots % 3 === 0, triggerPx: 50_000 * (1 + op.pct / 200) } },
                  },
                },
                `r${++n}`,
              );
              break;
            default:
              place(engine, acct, limit('BTC-USD', op.buy, px, sz, 'GTC'), `r${n}`);
          }
          for (const e of engine.drainEvents()) {
            events.push(e);
            if (e.type === 'orderUpdate') reached.add(e.symbol === 'DOGE-USD' ? 'unlisted symbol' : e.status);
            else reached.add(e.type);
          }
        }
        for (const [acct, want] of expected(events, historyLimit)) {
          expect(engine.orderHistory(acct)).toEqual(want.orders);
          expect(engine.fills(acct)).toEqual(want.fills);
        }
      }),
      { numRuns: 40, seed: 777 },
    );
    for (const k of [...TERMINAL, 'liquidation', 'adl', 'unlisted symbol']) expect(reached, k).toContain(k);
  });

  it('detects a duplicate id exactly among the newest dedupeWindow ended orders of the account', () => {
    const { engine } = makeEngine({ historyLimit: 10, dedupeWindow: 4 });
    engine.faucet(ALICE, 1_000_000);
    engine.faucet(BOB, 1_000_000);
    const ids = Array.from({ length: 9 }, (_, i) => `dup${i}`);
    for (const id of ids) {
      place(engine, ALICE, limit('BTC-USD', true, 40_000, 0.001), id);
      engine.applyOrderAction(ALICE, [{ cancel: { c: 'BTC-USD', oid: id } }]);
    }
    const again = ids.map((id) => statusKey(place(engine, ALICE, limit('BTC-USD', true, 40_000, 0.001), id)[0]));
    expect(again).toEqual([
      'resting',
      'resting',
      'resting',
      'resting',
      'resting',
      'rejectedDuplicate',
      'rejectedDuplicate',
      'rejectedDuplicate',
      'rejectedDuplicate',
    ]);
    // another account's ended ids are not its duplicates, but live ids of any account are
    expect(statusKey(place(engine, BOB, limit('BTC-USD', true, 40_000, 0.001), 'dup8')[0])).toBe('resting');
    expect(statusKey(place(engine, BOB, limit('BTC-USD', true, 40_000, 0.001), 'dup0')[0])).toBe('rejectedDuplicate');
  });

  it('keeps ids that do not fit a row field (long or non-latin-1) exactly', () => {
    const { engine } = makeEngine({ historyLimit: 3 });
    engine.faucet(ALICE, 1_000_000);
    engine.faucet(BOB, 1_000_000);
    const long = 'L'.repeat(80);
    const wide = 'wïde-€-id';
    place(engine, BOB, limit('BTC-USD', false, 50_000, 0.01), long);
    place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.01), wide);
    expect(engine.fills(ALICE).map((f) => [f.orderIdMaker, f.orderIdTaker])).toEqual([[long, wide]]);
    expect(engine.orderHistory(BOB)[0]!.orderId).toBe(long);
    expect(engine.orderHistory(ALICE)[0]!.orderId).toBe(wide);
    expect(statusKey(place(engine, ALICE, limit('BTC-USD', true, 40_000, 0.01), wide)[0])).toBe('rejectedDuplicate');
    for (let i = 0; i < 4; i++) place(engine, ALICE, limit('BTC-USD', false, 60_000 + i, 0.001, 'IOC'), `r${i}`);
    expect(engine.orderHistory(ALICE).map((h) => h.orderId)).toEqual(['r3', 'r2', 'r1']);
    expect(engine.fills(ALICE).map((f) => f.orderIdTaker)).toEqual([wide]);
  });
});

describe('liquidation of several positions', () => {
  it('reports each closed position even when every ended order is recycled at once (historyLimit 1)', () => {
    const { engine, clock } = makeEngine({ historyLimit: 1 });
    engine.faucet(ALICE, 2000);
    for (const a of [BOB, CAROL]) engine.faucet(a, 1_000_000);
    const oracle = (btc: number, eth: number) =>
      engine.setOraclePrices([
        { symbol: 'BTC-USD', price: btc, timestamp: clock.ns },
        { symbol: 'ETH-USD', price: eth, timestamp: clock.ns },
      ]);
    oracle(50_000, 3000);
    place(engine, BOB, limit('BTC-USD', false, 50_000, 0.2));
    place(engine, ALICE, limit('BTC-USD', true, 50_000, 0.2));
    place(engine, BOB, limit('ETH-USD', false, 3000, 3));
    place(engine, ALICE, limit('ETH-USD', true, 3000, 3));
    place(engine, CAROL, limit('BTC-USD', true, 44_000, 1));
    place(engine, CAROL, limit('ETH-USD', true, 2650, 10));
    engine.drainEvents();
    oracle(45_000, 2700);
    const liquidations = engine.drainEvents().filter((e) => e.type === 'liquidation');
    expect(liquidations.map((e) => [e.symbol, e.price, e.size, e.isBuy])).toEqual([
      ['BTC-USD', 44_000, 0.2, false],
      ['ETH-USD', 2650, 3, false],
    ]);
    expect(engine.fullAccount(ALICE).positions).toEqual([]);
    expect(engine.orderHistory(ALICE)).toHaveLength(1);
    // riskHistory keeps the newest historyLimit (1) rows: the second position's liquidation.
    expect(engine.riskHistory(ALICE)).toEqual([
      {
        owner: ALICE,
        symbol: 'ETH-USD',
        eventType: 'liquidation',
        isBuy: false,
        amount: 3,
        price: 2650,
        marginPrior: liquidations[1]!.marginPrior,
        marginAfter: liquidations[1]!.marginAfter,
        slot: engine.slot,
        timestamp: clock.ns,
      },
    ]);
    expect(engine.riskHistory(CAROL)).toEqual([]);
    expect(engine.selfCheck()).toEqual([]);
  });
});

describe('one-sided books', () => {
  it('match, rest and cancel with nothing on the other side', () => {
    const { engine } = makeEngine();
    engine.faucet(ALICE, 1_000_000);
    const [s1, id1] = place(engine, ALICE, limit('ETH-USD', true, 3000, 1));
    const [s2] = place(engine, ALICE, limit('ETH-USD', true, 3001, 1, 'IOC'));
    expect([statusKey(s1), statusKey(s2)]).toEqual(['resting', 'cancelledIOC']);
    expect(engine.marketState('ETH-USD')).toMatchObject({ bestBid: 3000, bestAsk: 0, midPrice: 0 });
    engine.applyOrderAction(ALICE, [{ cancel: { c: 'ETH-USD', oid: id1 } }]);
    expect(engine.book('ETH-USD')).toMatchObject({ bids: [], asks: [] });
  });
});
