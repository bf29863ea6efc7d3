// A simple market maker (the daemon's default): symmetric quotes around the mid, skewed by inventory, capped by a max position.
// Invariants: quotes sit on the tick and lot grids, never cross the book or each other, meet minNotionalUsd; nothing is quoted until the book has both sides.

import { combineLatest, distinctUntilChanged, map, skipWhile, throttleTime, type MonoTypeOperatorFunction } from 'rxjs';
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
      /** Distance from the (skewed) mid to the first quote on each side, basis points. Default 10 unless halfSpreadTicks is given. */
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
 * The quotes wanted for `book` at `position` (signed, base units). Bids round down and asks up; each is
 * kept at least a tick inside the opposite best price and a tick away from the previous level.
 */
export function quotesFor(book: TopOfBook, position: number, p: MarketMakerParams, rules: MarketRules): QuoteResult {
  const bestBid = book.bestBid();
  const bestAsk = book.bestAsk();
  if (!bestBid || !bestAsk || bestBid.price >= bestAsk.price) return { quotes: [], belowMinNotional: false };
  const tick = rules.tickSizeUsd;
  const mid = (bestBid.price + bestAsk.price) / 2;
  const halfSpread = p.halfSpreadTicks !== undefined ? p.halfSpreadTicks * tick : (mid * (p.halfSpreadBps ?? 10)) / 1e4;
  const inv = inventory(position, { max: p.maxPosition });
  const center = mid - inv.ratio * p.skew * halfSpread;
  const tif = p.postOnly ? 'ALO' : 'GTC';
  const size = roundToLot(p.size, rules.lotSizeBase);
  let belowMinNotional = false;

  const side = (dir: 1 | -1, capacity: number): QuoteSpec[] => {
    const out: QuoteSpec[] = [];
    let room = capacity;
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
      out.push({ side: dir === 1 ? 'buy' : 'sell', price, size: sz, tif });
      room -= sz;
    }
    return out;
  };

  return { quotes: [...side(1, inv.buyCapacity), ...side(-1, inv.sellCapacity)], belowMinNotional };
}

function sameQuotes(a: readonly QuoteSpec[], b: readonly QuoteSpec[]): boolean {
  return a.length === b.length && a.every((q, i) => q.side === b[i]!.side && q.price === b[i]!.price && q.size === b[i]!.size && q.tif === b[i]!.tif);
}

interface Computed {
  readonly stamp: DataStamp;
  readonly quotes: QuoteSpec[];
}

const distinctQuotes: MonoTypeOperatorFunction<Computed> = distinctUntilChanged((a, b) => sameQuotes(a.quotes, b.quotes));

export default defineStrategy({
  name: 'market-maker',
  description: 'Quotes both sides around the mid, skewed by inventory, within a maximum position.',
  params: marketMakerParams,
  symbols: (p) => [p.symbol],
  orderSizes: (p) => [{ symbol: p.symbol, size: p.size, key: 'size' }],
  maxPositions: (p) => [{ symbol: p.symbol, size: p.maxPosition, key: 'maxPosition' }],
  create(ctx, p) {
    const rules = ctx.rules(p.symbol);
    const quoteSets = ctx.metrics.counter('quote_sets_total', { help: 'Quote sets emitted' });
    let warned = false;
    ctx.log.info({ symbol: p.symbol, size: p.size, levels: p.levels, maxPosition: p.maxPosition }, 'market maker starting');

    const position$ = ctx.account.state$.pipe(
      map((state) => positionOf(state, p.symbol)),
      distinctUntilChanged(),
    );
    // Throttled quote sets are compared again: the trailing one may equal the last one sent.
    const throttle: MonoTypeOperatorFunction<Computed> =
      p.minIntervalMs > 0
        ? (source) => source.pipe(throttleTime(p.minIntervalMs, ctx.scheduler, { leading: true, trailing: true }), distinctQuotes)
        : (source) => source;

    return combineLatest([ctx.market.book$(p.symbol), position$]).pipe(
      map(([book, position]): Computed => {
        const result = quotesFor(book, position, p, rules);
        if (result.belowMinNotional && !warned) {
          warned = true;
          ctx.log.warn(
            { symbol: p.symbol, size: p.size, minNotionalUsd: rules.minNotionalUsd },
            'some quotes are below the market minimum notional and are left out',
          );
        }
        return { stamp: stamp(book), quotes: result.quotes };
      }),
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
