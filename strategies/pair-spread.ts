// Two-market spread: samples the log spread of two markets, ln(midA) − hedgeRatio × ln(midB), and trades it against its
// moving mean: short A and long B when it is entryZ standard deviations rich, the reverse when cheap, flat inside exitZ.
// Invariants: nothing trades before `window` samples; each leg's position stays within its maxPosition; one order per
// leg at a time, the next only once the position shows its fills; orders are IOC within slippageBps of the mid.

import { interval, Observable, Subscription } from 'rxjs';
import {
  defineStrategy,
  positionOf,
  roundToLot,
  roundToTick,
  schema as s,
  PendingOrders,
  stamp,
  symbolSchema,
  withDefault,
  type AccountState,
  type BookView,
  type Infer,
  type Intent,
  type MarketRules,
  type OrderSpec,
} from '../src/strategy/api.js';

const leg = s.object(
  {
    symbol: symbolSchema,
    /** Position held in this leg while the spread is traded, base units. */
    size: s.number({ gt: 0 }),
    /** Largest absolute position of this leg, base units (default: size). */
    maxPosition: s.optional(s.number({ gt: 0 })),
  },
  { strict: true },
);

export const pairSpreadParams = s.refine(
  s.object(
    {
      legA: leg,
      legB: leg,
      /** β of the spread ln(midA) − β × ln(midB). */
      hedgeRatio: withDefault(s.number({ gt: 0, max: 1_000 }), 1),
      /** Time between two samples of the spread, ms. */
      sampleMs: withDefault(s.number({ min: 10, max: 3_600_000 }), 1_000),
      /** Samples of the moving mean and standard deviation. */
      window: withDefault(s.number({ integer: true, min: 5, max: 100_000 }), 60),
      /** |z| at or above which a position is taken. */
      entryZ: withDefault(s.number({ gt: 0, max: 100 }), 2),
      /** |z| at or below which the position is closed. */
      exitZ: withDefault(s.number({ min: 0, max: 100 }), 0.5),
      /** Farthest an order's limit price may be from the mid, bps. */
      slippageBps: withDefault(s.number({ gt: 0, max: 1_000 }), 20),
    },
    { strict: true },
  ),
  (p) =>
    p.legA.symbol === p.legB.symbol
      ? 'legA and legB must be different markets'
      : p.exitZ >= p.entryZ
        ? 'exitZ must be below entryZ'
        : (['legA', 'legB'] as const)
            .map((k) => (p[k].size > (p[k].maxPosition ?? p[k].size) ? `${k}.size must not exceed ${k}.maxPosition` : undefined))
            .find(Boolean),
);
export type PairSpreadParams = Infer<typeof pairSpreadParams>;

/** Mean and standard deviation of the last `window` values (a ring; sums recomputed on each push, so no drift). */
export class RollingStats {
  private readonly values: number[] = [];
  private next = 0;

  constructor(private readonly window: number) {}

  get count(): number {
    return this.values.length;
  }

  push(x: number): void {
    if (this.values.length < this.window) this.values.push(x);
    else this.values[this.next] = x;
    this.next = (this.next + 1) % this.window;
  }

  /** Undefined until the window is full. */
  stats(): { readonly mean: number; readonly std: number } | undefined {
    const n = this.values.length;
    if (n < this.window) return undefined;
    let sum = 0;
    for (const v of this.values) sum += v;
    const mean = sum / n;
    let sq = 0;
    for (const v of this.values) sq += (v - mean) ** 2;
    return { mean, std: Math.sqrt(sq / (n - 1)) };
  }
}

/** −1: short A, long B (spread rich); +1: long A, short B (cheap); 0: flat. */
export type Regime = -1 | 0 | 1;

/** The regime after a sample at `z`, from `current`: entered beyond ±entryZ, left within ±exitZ, kept in between. */
export function nextRegime(z: number, current: Regime, p: Pick<PairSpreadParams, 'entryZ' | 'exitZ'>): Regime {
  if (z >= p.entryZ) return -1;
  if (z <= -p.entryZ) return 1;
  if (Math.abs(z) <= p.exitZ) return 0;
  return current;
}

/** The order taking a leg from `position` to `target` (clamped to ±maxPosition), or undefined when less than a lot is missing. */
export function legOrder(
  target: number,
  position: number,
  maxPosition: number,
  book: Pick<BookView, 'bestBid' | 'bestAsk'>,
  slippageBps: number,
  rules: MarketRules,
): OrderSpec | undefined {
  const clamped = Math.max(-maxPosition, Math.min(maxPosition, target));
  const size = roundToLot(Math.abs(clamped - position), rules.lotSizeBase);
  const bid = book.bestBid();
  const ask = book.bestAsk();
  if (size <= 0 || !bid || !ask) return undefined;
  const m = (bid.price + ask.price) / 2;
  const side = clamped > position ? 'buy' : 'sell';
  const slip = (m * slippageBps) / 1e4;
  const price = side === 'buy' ? roundToTick(m + slip, rules.tickSizeUsd, 'down') : roundToTick(m - slip, rules.tickSizeUsd, 'up');
  // Towards flat without crossing it: reduce-only, so it can never grow the position.
  const reduceOnly = Math.abs(clamped) < Math.abs(position) && clamped * position >= 0;
  if (!reduceOnly && price * size < rules.minNotionalUsd) return undefined;
  return { symbol: rules.symbol, side, price, size, tif: 'IOC', reduceOnly };
}

const TAG = 'pair-';

export default defineStrategy({
  name: 'pair-spread',
  description: 'Trades the spread of two markets against its moving mean (z-score entry and exit), with position limits per leg.',
  params: pairSpreadParams,
  symbols: (p) => [p.legA.symbol, p.legB.symbol],
  orderSizes: (p) => [
    { symbol: p.legA.symbol, size: p.legA.size, key: 'legA.size' },
    { symbol: p.legB.symbol, size: p.legB.size, key: 'legB.size' },
  ],
  maxPositions: (p) => [
    { symbol: p.legA.symbol, size: p.legA.maxPosition ?? p.legA.size, key: 'legA.maxPosition' },
    { symbol: p.legB.symbol, size: p.legB.maxPosition ?? p.legB.size, key: 'legB.maxPosition' },
  ],
  create(ctx, p) {
    const legs = [p.legA, p.legB].map((l) => ({ ...l, rules: ctx.rules(l.symbol), maxPosition: l.maxPosition ?? l.size }));
    const zGauge = ctx.metrics.gauge('pair_spread_z', { help: 'z-score of the spread at the last sample' });
    const orders = ctx.metrics.counter('pair_orders_total', { help: 'Orders sent, by leg (a, b)', labelNames: ['leg'] });
    const legLabels = [{ leg: 'a' }, { leg: 'b' }];

    return new Observable<Intent>((out) => {
      const subs = new Subscription();
      const stats = new RollingStats(p.window);
      const books: Array<BookView | undefined> = [undefined, undefined];
      const pending = new PendingOrders();
      let state: AccountState | undefined;
      let regime: Regime = 0;
      let seq = 0;

      const midOf = (b: BookView | undefined) => {
        const bid = b?.bestBid();
        const ask = b?.bestAsk();
        return bid && ask && bid.price < ask.price ? (bid.price + ask.price) / 2 : undefined;
      };

      const sample = () => {
        const a = midOf(books[0]);
        const b = midOf(books[1]);
        if (a === undefined || b === undefined || !state) return;
        const spread = Math.log(a) - p.hedgeRatio * Math.log(b);
        const st = stats.stats();
        stats.push(spread);
        if (!st || st.std === 0) return;
        const z = (spread - st.mean) / st.std;
        zGauge.set(z);
        const was = regime;
        regime = nextRegime(z, regime, p);
        if (regime !== was) ctx.log.info({ z, regime, spread, mean: st.mean }, 'pair spread regime changed');
        const positions = legs.map((l) => positionOf(state, l.symbol));
        ctx.report({ z, mean: st.mean, std: st.std, regime, positionA: positions[0]!, positionB: positions[1]! });
        const nowMs = ctx.clock.nowMs();
        for (let i = 0; i < 2; i++) {
          const l = legs[i]!;
          if (pending.busy(l.symbol, positions[i]!, nowMs)) continue;
          const target = (i === 0 ? regime : -regime) * l.size;
          const order = legOrder(target, positions[i]!, l.maxPosition, books[i]!, p.slippageBps, l.rules);
          if (!order) continue;
          const clientTag = `${TAG}${++seq}`;
          pending.sent(l.symbol, clientTag, positions[i]!);
          orders.inc(1, legLabels[i]);
          out.next({ kind: 'place', order: { ...order, clientTag }, ...stamp(books[i]!) });
        }
      };

      legs.forEach((l, i) => subs.add(ctx.market.book$(l.symbol).subscribe((b) => (books[i] = b))));
      subs.add(ctx.account.state$.subscribe((s) => (state = s)));
      subs.add(
        ctx.account.orders$.subscribe((e) => {
          pending.update(e, ctx.clock.nowMs());
        }),
      );
      subs.add(interval(p.sampleMs, ctx.scheduler).subscribe(sample));
      return subs;
    });
  },
});
