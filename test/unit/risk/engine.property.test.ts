import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { Side } from '../../../src/core/intent.js';
import { riskConfig } from '../../../src/risk/config.js';
import { createRiskGate } from '../../../src/risk/engine.js';
import type { PlannedOp } from '../../../src/risk/types.js';
import { FakeView, NOW_MS } from './helpers.js';

const config = riskConfig({
  maxOrderSizeBase: 2,
  maxOrderSizeBaseBySymbol: { 'ETH-USD': 4 },
  maxOrderNotionalUsd: 1_000,
  maxPositionNotionalUsd: 400,
  maxTotalPositionNotionalUsd: 600,
  priceBandBps: 100,
  maxOpenOrders: 4,
  orderRate: { perSecond: 2, burst: 3 },
  cancelRate: { perSecond: 5, burst: 6 },
  maxLeverage: 3,
  dailyLossLimitUsd: 100,
  staleInputBudgetMs: 1_000,
  repeatedRejects: { count: 3, windowMs: 10_000 },
  disconnectGraceMs: 3_000,
});
const SYMBOLS = ['BTC-USD', 'ETH-USD', 'DOGE-USD'] as const; // DOGE-USD has no market
const EPS = 1e-9;

type Cmd =
  | { t: 'place'; sym: number; side: Side; size: number; offsetBps: number | null; reduceOnly: boolean; ageMs: number; fill: boolean }
  | { t: 'cancel'; sym: number }
  | { t: 'advance'; ms: number }
  | { t: 'mark'; sym: number; factor: number }
  | { t: 'pnl'; usd: number }
  | { t: 'equity'; usd: number | undefined }
  | { t: 'reject' }
  | { t: 'conn'; up: boolean }
  | { t: 'halt' }
  | { t: 'reduce' }
  | { t: 'resume' };

const sym = fc.constantFrom(0, 0, 1, 1, 2);
/** Hundredths in [min/100, max/100] (fc.double favours extreme magnitudes that say nothing here). */
const cents = (min: number, max: number) => fc.integer({ min, max }).map((n) => n / 100);
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.record({
      t: fc.constant('place' as const),
      sym,
      side: fc.constantFrom<Side>('buy', 'sell'),
      size: cents(1, 450),
      offsetBps: fc.option(fc.integer({ min: -120, max: 120 }), { nil: null }),
      reduceOnly: fc.boolean(),
      ageMs: fc.integer({ min: 0, max: 1_200 }),
      fill: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('cancel' as const), sym }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 1_000 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('mark' as const), sym, factor: cents(90, 110) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('pnl' as const), usd: fc.integer({ min: -200, max: 50 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('equity' as const), usd: fc.option(fc.integer({ min: -100, max: 2_000 }), { nil: undefined, freq: 20 }) }),
  },
  { weight: 1, arbitrary: fc.constantFrom<Cmd>({ t: 'reject' }, { t: 'conn', up: false }, { t: 'conn', up: true }, { t: 'conn', up: true }) },
  { weight: 1, arbitrary: fc.constantFrom<Cmd>({ t: 'halt' }, { t: 'reduce' }, { t: 'resume' }, { t: 'resume' }) },
);

interface Resting {
  symbol: string;
  side: Side;
  size: number;
}

/** The limits an approved place must satisfy, recomputed independently from the view before the check. */
function violations(view: FakeView, op: Extract<PlannedOp, { kind: 'place' }>, nowMs: number, state: string): string[] {
  const out: string[] = [];
  const { order } = op;
  const pos = view.position(order.symbol);
  const open = view.openOrderSizes(order.symbol);
  const reducing = order.reduceOnly || (order.side === 'sell' ? pos > 0 && open.sell + order.size <= pos : pos < 0 && open.buy + order.size <= -pos);
  if (state === 'HALTED') out.push('approved while HALTED');
  if (state === 'REDUCING' && !reducing) out.push('non-reducing order approved while REDUCING');
  if (!(view.pnlTodayUsd() >= -config.dailyLossLimitUsd) && !reducing) out.push('daily loss');
  if (!view.market(order.symbol)) out.push('unknown market');
  const mark = view.markPrice(order.symbol);
  if (mark === undefined) return [...out, 'no mark'];
  if (order.size > (config.maxOrderSizeBaseBySymbol[order.symbol] ?? config.maxOrderSizeBase!) + EPS) out.push('order size');
  if (order.size * (order.price ?? mark) > config.maxOrderNotionalUsd + EPS) out.push('order notional');
  if (order.price !== undefined && (Math.abs(order.price - mark) / mark) * 10_000 > config.priceBandBps + EPS) out.push('price band');
  if (view.openOrderCount() + 1 > config.maxOpenOrders) out.push('open orders');
  if (op.stamp.dataTimeMs < nowMs - config.staleInputBudgetMs) out.push('stale input');
  if (!order.reduceOnly) {
    const exposure = (s: string) => Math.max(view.position(s) + view.openOrderSizes(s).buy, view.openOrderSizes(s).sell - view.position(s), 0);
    const before = exposure(order.symbol);
    const after = Math.max(before, order.side === 'buy' ? pos + open.buy + order.size : open.sell + order.size - pos);
    if (after > before + EPS) {
      if (after * mark > config.maxPositionNotionalUsd + EPS) out.push('position');
      let total = after * mark;
      for (const s of SYMBOLS) if (s !== order.symbol && exposure(s) > 0) total += exposure(s) * view.markPrice(s)!;
      if (total > config.maxTotalPositionNotionalUsd + EPS) out.push('total position');
      const equity = view.equityUsd();
      const maxLeverage = Math.min(view.market(order.symbol)!.maxLeverage, config.maxLeverage);
      if (equity === undefined || equity <= 0 || total / equity > maxLeverage + EPS) out.push('leverage');
    }
  }
  return out;
}

/** Approvals at `times` never exceed burst + perSecond × elapsed over any window ending now. */
function withinRate(times: number[], rate: { perSecond: number; burst: number }): boolean {
  const now = times[times.length - 1]!;
  for (let i = 0; i < times.length; i++) {
    const inWindow = times.length - i;
    if (inWindow > rate.burst + (rate.perSecond * (now - times[i]!)) / 1000 + EPS) return false;
  }
  return true;
}

describe('risk engine properties (fast-check)', () => {
  it('random operation sequences never approve an operation that breaks a configured limit', () => {
    let approvedPlaces = 0;
    const seenReasons = new Set<string>();
    fc.assert(
      fc.property(fc.array(cmd, { minLength: 50, maxLength: 200 }), (cmds) => {
        const view = new FakeView({ 'BTC-USD': { mark: 100, maxLeverage: 2 }, 'ETH-USD': { mark: 50, maxLeverage: 10 } });
        view.equity = 1_000;
        const clock = new ManualClock(BigInt(NOW_MS) * 1_000_000n);
        const gate = createRiskGate(config, view, clock);
        let nowMs = NOW_MS;
        const resting: Resting[] = [];
        const placeTimes: number[] = [];
        const cancelTimes: number[] = [];
        const sync = () => {
          view.open.clear();
          for (const r of resting) {
            const o = view.open.get(r.symbol) ?? { buy: 0, sell: 0 };
            o[r.side] += r.size;
            view.open.set(r.symbol, o);
          }
          view.openCount = resting.length;
        };

        for (const c of cmds) {
          switch (c.t) {
            case 'place': {
              const symbol = SYMBOLS[c.sym]!;
              const mark = view.markPrice(symbol) ?? 1;
              const price = c.offsetBps === null ? undefined : mark * (1 + c.offsetBps / 10_000);
              const op: Extract<PlannedOp, { kind: 'place' }> = {
                kind: 'place',
                strategy: 'p',
                order: { symbol, side: c.side, size: c.size, tif: 'GTC', reduceOnly: c.reduceOnly, ...(price !== undefined && { price }) },
                stamp: { dataTimeMs: nowMs - c.ageMs, dataVersion: 1 },
              };
              const snapshot = new FakeView();
              Object.assign(snapshot, { ...view, marks: new Map(view.marks), positions: new Map(view.positions), open: new Map(view.open) });
              const d = gate.check(op, nowMs);
              if (!d.ok) {
                seenReasons.add(d.reason);
                break;
              }
              approvedPlaces++;
              expect(violations(snapshot, op, nowMs, gate.state)).toEqual([]);
              placeTimes.push(nowMs);
              expect(withinRate(placeTimes, config.orderRate)).toBe(true);
              const pos = view.position(symbol);
              const signed = c.side === 'buy' ? c.size : -c.size;
              if (c.fill) {
                const next = c.reduceOnly ? (Math.sign(pos + signed) === Math.sign(pos) ? pos + signed : 0) : pos + signed;
                view.positions.set(symbol, c.reduceOnly && Math.abs(next) > Math.abs(pos) ? pos : next);
              } else resting.push({ symbol, side: c.side, size: c.size });
              sync();
              break;
            }
            case 'cancel': {
              const symbol = SYMBOLS[c.sym]!;
              const d = gate.check({ kind: 'cancel', strategy: 'p', symbol }, nowMs);
              if (!d.ok) {
                expect(d.reason).toBe('CANCEL_RATE');
                break;
              }
              cancelTimes.push(nowMs);
              expect(withinRate(cancelTimes, config.cancelRate)).toBe(true);
              for (let i = resting.length - 1; i >= 0; i--) if (resting[i]!.symbol === symbol) resting.splice(i, 1);
              sync();
              break;
            }
            case 'advance':
              nowMs += c.ms;
              clock.advanceMs(c.ms);
              break;
            case 'mark':
              if (view.marks.has(SYMBOLS[c.sym]!)) view.marks.set(SYMBOLS[c.sym]!, view.marks.get(SYMBOLS[c.sym]!)! * c.factor);
              break;
            case 'pnl':
              view.pnlToday = c.usd;
              break;
            case 'equity':
              view.equity = c.usd;
              break;
            case 'reject':
              gate.onVenueReject('rejectedInvalid', nowMs);
              break;
            case 'conn':
              gate.onConnection(c.up, nowMs);
              break;
            case 'halt':
              gate.halt('property');
              break;
            case 'reduce':
              gate.reduceOnly('property');
              break;
            case 'resume':
              gate.resume('property');
              break;
          }
        }
      }),
      { numRuns: 300, seed: 20_260_101 },
    );
    // not vacuous: many approvals, and the limits under test were actually reached
    expect(approvedPlaces).toBeGreaterThan(1_000);
    for (const r of [
      'MAX_ORDER_SIZE',
      'MAX_POSITION',
      'MAX_TOTAL_POSITION',
      'LEVERAGE',
      'PRICE_BAND',
      'MAX_OPEN_ORDERS',
      'ORDER_RATE',
      'STALE_INPUT',
      'DAILY_LOSS',
      'REDUCING',
      'HALTED',
    ]) {
      expect(seenReasons).toContain(r);
    }
  });
});
