// The market maker (the daemon's default): quotes around a reservation price moved against the inventory, with a spread
// widened by volatility (an EWMA of mid returns) in the Avellaneda–Stoikov manner, several levels, capped by a max position.
// Invariants: quotes sit on the tick and lot grids, never cross the book or each other, meet minNotionalUsd; nothing is
// quoted until the book has both sides; quotes are pulled (an empty set) on stale data and after a jump of the mid.

import { combineLatest, distinctUntilChanged, filter, interval, map, merge, skipWhile, throttleTime, type MonoTypeOperatorFunction } from 'rxjs';
import {
  defineStrategy,
  inventory,
  positionOf,
  roundToLot,
  roundToTick,
  schema as s,
  stamp,
  symbolSchema,
  withDefault,
  type BookView,
  type DataStamp,
  type Infer,
  type Intent,
  type MarketRules,
  type QuoteSpec,
  type TopOfBook,
} from '../src/strategy/api.js';

export const marketMakerParams = s.refine(
  s.object(
    {
      symbol: symbolSchema,
      /** Size of each quote, base units (rounded down to the lot). */
      size: s.number({ gt: 0 }),
      /** Distance from the reservation price to the first quote on each side when volatility adds nothing, basis points. Default 10 unless halfSpreadTicks is given. */
      halfSpreadBps: s.optional(s.number({ gt: 0, max: 5_000 })),
      /** The same distance in ticks (instead of halfSpreadBps). */
      halfSpreadTicks: s.optional(s.number({ integer: true, min: 1 })),
      /** Quotes per side. */
      levels: withDefault(s.number({ integer: true, min: 1, max: 20 }), 1),
      /** Distance between consecutive levels as a fraction of the half-spread (level i sits at halfSpread × (1 + i × levelSpacing)). */
      levelSpacing: withDefault(s.number({ gt: 0, max: 100 }), 1),
      /** Largest absolute position, base units: a side is quoted only up to what keeps the position within it. */
      maxPosition: s.number({ gt: 0 }),
      /** How far the quotes move against the position at maxPosition, as a fraction of the half-spread. */
      skew: withDefault(s.number({ min: 0, max: 4 }), 0.5),
      /** Avellaneda–Stoikov γ, per bp: the risk term is γ × σ² (σ: the mid's volatility over horizonMs, bps); 0 turns volatility off. */
      riskAversion: withDefault(s.number({ min: 0, max: 100 }), 0),
      /** The horizon the inventory is held over (A–S T − t), ms. */
      horizonMs: withDefault(s.number({ gt: 0, max: 86_400_000 }), 60_000),
      /** Half-life of the EWMA of squared mid returns, ms. */
      volHalfLifeMs: withDefault(s.number({ gt: 0, max: 86_400_000 }), 60_000),
      /** Cap of the risk term, bps. */
      maxRiskBps: withDefault(s.number({ gt: 0, max: 5_000 }), 100),
      /** A new quote set is sent only when a quote moved by at least this many ticks (or sizes, sides or the count changed); 0: any change. */
      requoteTicks: withDefault(s.number({ integer: true, min: 0, max: 1_000_000 }), 0),
      /** Quotes are pulled when no book change arrived for this long, or the book's venue time lags the clock by more, ms; 0: off. */
      maxDataAgeMs: withDefault(s.number({ min: 0, max: 3_600_000 }), 0),
      /** A mid moving more than this between two book changes pulls the quotes for jumpPauseMs, bps; 0: off. */
      jumpBps: withDefault(s.number({ min: 0, max: 10_000 }), 0),
      /** How long quotes stay pulled after a jump, ms (they return with the first book change after it). */
      jumpPauseMs: withDefault(s.number({ min: 0, max: 3_600_000 }), 1_000),
      /** Least time between two quote sets, ms (book changes in between are merged into the next one). */
      minIntervalMs: withDefault(s.number({ min: 0, max: 3_600_000 }), 250),
      /** Post-only quotes (ALO); false rests them as GTC. */
      postOnly: withDefault(s.boolean(), true),
    },
    { strict: true },
  ),
  (p) => (p.halfSpreadBps !== undefined && p.halfSpreadTicks !== undefined ? 'give halfSpreadBps or halfSpreadTicks, not both' : undefined),
);
export type MarketMakerParams = Infer<typeof marketMakerParams>;

export interface QuoteResult {
  /** Empty when the book is one-sided or crossed. */
  readonly quotes: QuoteSpec[];
  /** True when a level was left out because price × size was below the market's minNotionalUsd. */
  readonly belowMinNotional: boolean;
}

/**
 * The Avellaneda–Stoikov risk term, bps: γ × σ² with σ the standard deviation of the mid's log return over `horizonMs`
 * in bps, capped at maxRiskBps. `varianceRate` is the variance of the log return per second.
 */
export function riskBps(varianceRate: number, p: Pick<MarketMakerParams, 'riskAversion' | 'horizonMs' | 'maxRiskBps'>): number {
  return Math.min(p.maxRiskBps, p.riskAversion * varianceRate * (p.horizonMs / 1000) * 1e8);
}

const DIRECTIONS = [1, -1] as const;

/**
 * The quotes wanted for `book` at `position` (signed, base units) with the mid's variance rate `varianceRate` (per
 * second, of log returns). The reservation price is the mid moved against the position by ratio × (skew × half-spread
 * + risk term); the half-spread is the configured one plus half the risk term. Bids round down and asks up; each is
 * kept at least a tick inside the opposite best price and a tick away from the previous level.
 */
export function quotesFor(book: TopOfBook, position: number, p: MarketMakerParams, rules: MarketRules, varianceRate = 0): QuoteResult {
  const bestBid = book.bestBid();
  const bestAsk = book.bestAsk();
  if (!bestBid || !bestAsk || bestBid.price >= bestAsk.price) return { quotes: [], belowMinNotional: false };
  const tick = rules.tickSizeUsd;
  const mid = (bestBid.price + bestAsk.price) / 2;
  const risk = (mid * riskBps(varianceRate, p)) / 1e4;
  const halfSpread = (p.halfSpreadTicks !== undefined ? p.halfSpreadTicks * tick : (mid * (p.halfSpreadBps ?? 10)) / 1e4) + risk / 2;
  const inv = inventory(position, { max: p.maxPosition });
  const center = mid - inv.ratio * (p.skew * halfSpread + risk);
  const tif = p.postOnly ? 'ALO' : 'GTC';
  const size = roundToLot(p.size, rules.lotSizeBase);
  let belowMinNotional = false;
  const quotes: QuoteSpec[] = [];

  // Bids (1) then asks (-1), a loop rather than a closure per call: the closure boxed every captured number.
  for (const dir of DIRECTIONS) {
    let room = dir === 1 ? inv.buyCapacity : inv.sellCapacity;
    let previous = dir === 1 ? bestAsk.price : bestBid.price; // bids stay below the best ask, asks above the best bid
    for (let i = 0; i < p.levels; i++) {
      const raw = center - dir * halfSpread * (1 + i * p.levelSpacing);
      let price = roundToTick(raw, tick, dir === 1 ? 'down' : 'up');
      price = dir === 1 ? Math.min(price, roundToTick(previous - tick, tick)) : Math.max(price, roundToTick(previous + tick, tick));
      if (price <= 0) break;
      const sz = Math.min(size, roundToLot(room, rules.lotSizeBase));
      if (sz <= 0) break;
      previous = price;
      if (price * sz < rules.minNotionalUsd) {
        belowMinNotional = true;
        continue;
      }
      quotes.push({ side: dir === 1 ? 'buy' : 'sell', price, size: sz, tif });
      room -= sz;
    }
  }
  return { quotes, belowMinNotional };
}

/**
 * Variance rate of the mid's log returns (per second) as an EWMA over time: each return r over dt seconds moves the
 * estimate to e^(−dt/τ)·v + r²·(1 − e^(−dt/τ))/dt (r²/τ when dt is 0), which weighs r²/dt by the time it covers.
 */
export class MidVolatility {
  private readonly tauS: number;
  private lastMid = 0;
  private lastTimeMs = 0;
  private rate = 0;

  constructor(halfLifeMs: number) {
    this.tauS = halfLifeMs / 1000 / Math.LN2;
  }

  /** The variance rate, per second. */
  get varianceRate(): number {
    return this.rate;
  }

  /** Adds the mid at `timeMs` (epoch ms of its data); the first one only sets the reference. */
  observe(mid: number, timeMs: number): void {
    if (this.lastMid > 0) {
      const r = Math.log(mid / this.lastMid);
      const dtS = Math.max(0, timeMs - this.lastTimeMs) / 1000;
      if (dtS === 0) this.rate += (r * r) / this.tauS;
      else {
        const decay = Math.exp(-dtS / this.tauS);
        this.rate = decay * this.rate + (r * r * (1 - decay)) / dtS;
      }
    }
    this.lastMid = mid;
    if (timeMs > this.lastTimeMs) this.lastTimeMs = timeMs;
  }
}

/** Two quote sets that differ by less than `ticks` ticks in every price, and in nothing else (0 ticks: equal). */
export function withinTicks(a: readonly QuoteSpec[], b: readonly QuoteSpec[], ticks: number, tickSizeUsd: number): boolean {
  if (a.length !== b.length) return false;
  const limit = ticks > 0 ? (ticks - 0.5) * tickSizeUsd : 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.side !== y.side || x.size !== y.size || x.tif !== y.tif || Math.abs(x.price - y.price) > limit) return false;
  }
  return true;
}

/** Why quotes are pulled (label of quotes_pulled_total). */
type PullReason = 'stale' | 'jump';

interface Computed {
  readonly stamp: DataStamp;
  readonly quotes: QuoteSpec[];
}

const NO_QUOTES: QuoteSpec[] = [];

export default defineStrategy({
  name: 'market-maker',
  description: 'Quotes both sides around an inventory- and volatility-adjusted reservation price, within a maximum position.',
  params: marketMakerParams,
  symbols: (p) => [p.symbol],
  orderSizes: (p) => [{ symbol: p.symbol, size: p.size, key: 'size' }],
  maxPositions: (p) => [{ symbol: p.symbol, size: p.maxPosition, key: 'maxPosition' }],
  create(ctx, p) {
    const rules = ctx.rules(p.symbol);
    const { clock } = ctx;
    const quoteSets = ctx.metrics.counter('quote_sets_total', { help: 'Quote sets emitted' });
    const pulls = ctx.metrics.counter('quotes_pulled_total', { help: 'Quote sets pulled by the strategy, by reason', labelNames: ['reason'] });
    const volatility = ctx.metrics.gauge('volatility_bps', { help: 'Volatility of the mid over horizonMs, bps (EWMA of squared returns)' });
    const pullLabels: Record<PullReason, { reason: PullReason }> = { stale: { reason: 'stale' }, jump: { reason: 'jump' } };
    const vol = new MidVolatility(p.volHalfLifeMs);
    let warned = false;
    let lastVersion = -1;
    let lastMid = 0;
    let lastBookAtMs = 0;
    let pausedUntilMs = 0;
    let latest: Computed | undefined;
    ctx.log.info({ symbol: p.symbol, size: p.size, levels: p.levels, maxPosition: p.maxPosition, riskAversion: p.riskAversion }, 'market maker starting');

    const pull = (reason: PullReason, at: DataStamp): Computed => {
      if (latest !== undefined && latest.quotes.length > 0) pulls.inc(1, pullLabels[reason]);
      return { stamp: at, quotes: NO_QUOTES };
    };

    /** Reads a new book change into the volatility and the jump guard; the reason to pull, if any. */
    const observe = (book: BookView, nowMs: number): PullReason | undefined => {
      lastBookAtMs = nowMs;
      const bid = book.bestBid();
      const ask = book.bestAsk();
      if (!bid || !ask || bid.price >= ask.price) return undefined;
      const m = (bid.price + ask.price) / 2;
      if (p.jumpBps > 0 && lastMid > 0 && Math.abs(m - lastMid) * 1e4 > p.jumpBps * lastMid) pausedUntilMs = nowMs + p.jumpPauseMs;
      lastMid = m;
      if (p.riskAversion > 0) vol.observe(m, book.venueTimeMs);
      if (nowMs < pausedUntilMs) return 'jump';
      if (p.maxDataAgeMs > 0 && nowMs - book.venueTimeMs > p.maxDataAgeMs) return 'stale';
      return undefined;
    };

    const position$ = ctx.account.state$.pipe(
      map((state) => positionOf(state, p.symbol)),
      distinctUntilChanged(),
    );
    const quoting$ = combineLatest([ctx.market.book$(p.symbol), position$]).pipe(
      map(([book, position]): Computed => {
        const at = stamp(book);
        if (book.version !== lastVersion) {
          lastVersion = book.version;
          const reason = observe(book, clock.nowMs());
          if (reason) return (latest = pull(reason, at));
        } else if (clock.nowMs() < pausedUntilMs) return (latest = pull('jump', at));
        const varianceRate = vol.varianceRate;
        if (p.riskAversion > 0) volatility.set(Math.sqrt(varianceRate * (p.horizonMs / 1000)) * 1e4);
        const result = quotesFor(book, position, p, rules, varianceRate);
        if (result.belowMinNotional && !warned) {
          warned = true;
          ctx.log.warn(
            { symbol: p.symbol, size: p.size, minNotionalUsd: rules.minNotionalUsd },
            'some quotes are below the market minimum notional and are left out',
          );
        }
        return (latest = { stamp: at, quotes: result.quotes });
      }),
    );
    // No book change for maxDataAgeMs: checked a few times per period, so quotes go at most 1.25 periods after the last change.
    const stale$ =
      p.maxDataAgeMs > 0
        ? interval(p.maxDataAgeMs / 4, ctx.scheduler).pipe(
            filter(() => latest !== undefined && latest.quotes.length > 0 && clock.nowMs() - lastBookAtMs > p.maxDataAgeMs),
            map(() => (latest = pull('stale', latest!.stamp))),
          )
        : undefined;

    const distinctQuotes: MonoTypeOperatorFunction<Computed> = distinctUntilChanged((a, b) =>
      withinTicks(a.quotes, b.quotes, p.requoteTicks, rules.tickSizeUsd),
    );
    // Throttled quote sets are compared again: the trailing one may equal the last one sent.
    const throttle: MonoTypeOperatorFunction<Computed> =
      p.minIntervalMs > 0
        ? (source) => source.pipe(throttleTime(p.minIntervalMs, ctx.scheduler, { leading: true, trailing: true }), distinctQuotes)
        : (source) => source;

    return (stale$ ? merge(quoting$, stale$) : quoting$).pipe(
      // Nothing until the book first allows quotes; afterwards an empty set pulls the quotes.
      skipWhile((c) => c.quotes.length === 0),
      distinctQuotes,
      throttle,
      map((c): Intent => {
        quoteSets.inc();
        return {
          kind: 'quoteSet',
          symbol: p.symbol,
          quotes: c.quotes,
          dataTimeMs: c.stamp.dataTimeMs,
          dataVersion: c.stamp.dataVersion,
          arrivalNs: c.stamp.arrivalNs,
        };
      }),
    );
  },
});
