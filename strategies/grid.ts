// Grid: resting orders on a price grid between two bounds, buys below the mid and sells above; each fill refills the
// opposite side one level away, so the grid buys low and sells high while the price oscillates inside the band.
// Invariants: every quote sits on a grid price (on the tick grid) with a size on the lot grid; a level holds one side
// only; outside the band the grid optionally pulls its orders and closes the position reduce-only, resuming on re-entry.

import { filter, map, merge, mergeMap, type Observable } from 'rxjs';
import {
  defineStrategy,
  positionOf,
  roundToLot,
  roundToTick,
  schema as s,
  stamp,
  symbolSchema,
  TERMINAL_STATUSES,
  withDefault,
  type BookView,
  type DataStamp,
  type Infer,
  type Intent,
  type MarketRules,
  type OrderEvent,
  type QuoteSpec,
} from '../src/strategy/api.js';

export const gridParams = s.refine(
  s.object(
    {
      symbol: symbolSchema,
      /** Lowest grid price, USD. */
      lowerPrice: s.number({ gt: 0 }),
      /** Highest grid price, USD (> lowerPrice). */
      upperPrice: s.number({ gt: 0 }),
      /** Grid prices, evenly spaced from lowerPrice to upperPrice inclusive. */
      levels: s.number({ integer: true, min: 2, max: 100 }),
      /** Size of the order at each level, base units (rounded down to the lot). */
      size: s.number({ gt: 0 }),
      /** Post-only orders (ALO); false rests them as GTC. */
      postOnly: withDefault(s.boolean(), true),
      /** When the mid leaves [lowerPrice, upperPrice]: pull the grid and close the position by reduce-only IOC orders. */
      exitOutsideBand: withDefault(s.boolean(), false),
      /** Farthest the closing order's limit price may be from the mid, bps. */
      exitSlippageBps: withDefault(s.number({ gt: 0, max: 1_000 }), 50),
    },
    { strict: true },
  ),
  (p) => (p.upperPrice <= p.lowerPrice ? 'upperPrice must be above lowerPrice' : undefined),
);
export type GridParams = Infer<typeof gridParams>;

/** The grid's orders: a signed amount per level (buy > 0, sell < 0, base units). */
export class GridLevels {
  /** Ascending, on the tick grid. */
  readonly prices: readonly number[];
  private readonly amounts: number[];
  private readonly size: number;

  /** Throws RangeError when two levels fall on one tick (the grid is finer than the tick). */
  constructor(
    p: Pick<GridParams, 'lowerPrice' | 'upperPrice' | 'levels' | 'size'>,
    private readonly rules: MarketRules,
  ) {
    const step = (p.upperPrice - p.lowerPrice) / (p.levels - 1);
    this.prices = Array.from({ length: p.levels }, (_, i) => roundToTick(p.lowerPrice + i * step, rules.tickSizeUsd));
    for (let i = 1; i < this.prices.length; i++) {
      if (this.prices[i] === this.prices[i - 1]) throw new RangeError(`levels: ${p.levels} levels between the bounds are closer than a tick`);
    }
    this.amounts = this.prices.map(() => 0);
    this.size = roundToLot(p.size, rules.lotSizeBase);
  }

  /** Buys at every level below `mid`, sells at every level above (a level at the mid stays empty). */
  reset(mid: number): void {
    for (let i = 0; i < this.prices.length; i++) {
      const price = this.prices[i]!;
      this.amounts[i] = price < mid ? this.size : price > mid ? -this.size : 0;
    }
  }

  /** The level of `price`, or -1 when it is not a grid price. */
  levelOf(price: number): number {
    const half = this.rules.tickSizeUsd / 2;
    return this.prices.findIndex((p) => Math.abs(p - price) < half);
  }

  /** A fill of `size` at level `i`: that level's order shrinks and the neighbour on the far side gets the opposite order. */
  fill(i: number, side: 'buy' | 'sell', size: number): void {
    const dir = side === 'buy' ? 1 : -1;
    this.amounts[i] = this.amounts[i]! - dir * size;
    const neighbour = i + dir;
    if (neighbour >= 0 && neighbour < this.amounts.length) this.amounts[neighbour] = this.amounts[neighbour]! - dir * size;
  }

  /** The orders wanted now: a level whose amount is below a lot or under the minimum notional has none. */
  quotes(tif: 'ALO' | 'GTC'): QuoteSpec[] {
    const out: QuoteSpec[] = [];
    for (let i = 0; i < this.prices.length; i++) {
      const price = this.prices[i]!;
      const size = roundToLot(Math.abs(this.amounts[i]!), this.rules.lotSizeBase);
      if (size <= 0 || price * size < this.rules.minNotionalUsd) continue;
      out.push({ side: this.amounts[i]! > 0 ? 'buy' : 'sell', price, size, tif });
    }
    return out;
  }
}

const EXIT_TAG = 'grid-exit-';

type GridEvent = { readonly book: BookView } | { readonly order: OrderEvent } | { readonly position: number };

export default defineStrategy({
  name: 'grid',
  description: 'Orders on a price grid between two bounds; each fill refills the opposite side one level away.',
  params: gridParams,
  symbols: (p) => [p.symbol],
  orderSizes: (p) => [{ symbol: p.symbol, size: p.size, key: 'size' }],
  maxPositions: (p) => [{ symbol: p.symbol, size: p.size * p.levels, key: 'size' }],
  create(ctx, p) {
    const rules = ctx.rules(p.symbol);
    const grid = new GridLevels(p, rules);
    const tif = p.postOnly ? 'ALO' : 'GTC';
    const fills = ctx.metrics.counter('grid_fills_total', { help: 'Fills of grid orders, by side', labelNames: ['side'] });
    const exits = ctx.metrics.counter('grid_exits_total', { help: 'Times the mid left the band with exitOutsideBand' });
    const seen = new Map<string, number>();
    let running = false;
    let exitSeq = 0;
    let exitInFlight: string | undefined;
    let position = 0;
    let at: DataStamp | undefined;
    let fillCount = 0;
    ctx.log.info({ symbol: p.symbol, lowerPrice: p.lowerPrice, upperPrice: p.upperPrice, levels: p.levels, size: p.size }, 'grid starting');

    const report = (inBand: boolean) => {
      const quotes = grid.quotes(tif);
      ctx.report({
        inBand,
        running,
        buys: quotes.filter((q) => q.side === 'buy').length,
        sells: quotes.filter((q) => q.side === 'sell').length,
        fills: fillCount,
      });
      return quotes;
    };
    const quoteSet = (quotes: QuoteSpec[], d: DataStamp): Intent => ({ kind: 'quoteSet', symbol: p.symbol, quotes, ...d });

    /** The reduce-only IOC closing the position at the mid ± exitSlippageBps, unless one is working or the position is below a lot. */
    const closing = (book: BookView, d: DataStamp): Intent[] => {
      const size = roundToLot(Math.abs(position), rules.lotSizeBase);
      const bid = book.bestBid();
      const ask = book.bestAsk();
      if (exitInFlight !== undefined || size <= 0 || !bid || !ask) return [];
      const m = (bid.price + ask.price) / 2;
      const side = position > 0 ? 'sell' : 'buy';
      const slip = (m * p.exitSlippageBps) / 1e4;
      const price = side === 'sell' ? roundToTick(m - slip, rules.tickSizeUsd, 'up') : roundToTick(m + slip, rules.tickSizeUsd, 'down');
      exitInFlight = `${EXIT_TAG}${++exitSeq}`;
      return [{ kind: 'place', order: { symbol: p.symbol, side, price, size, tif: 'IOC', reduceOnly: true, clientTag: exitInFlight }, ...d }];
    };

    const onBook = (book: BookView): Intent[] => {
      const bid = book.bestBid();
      const ask = book.bestAsk();
      if (!bid || !ask || bid.price >= ask.price) return [];
      const d = (at = stamp(book));
      const m = (bid.price + ask.price) / 2;
      const inBand = m >= p.lowerPrice && m <= p.upperPrice;
      if (!running) {
        if (!inBand) return p.exitOutsideBand ? closing(book, d) : [];
        running = true;
        seen.clear();
        grid.reset(m);
        return [quoteSet(report(true), d)];
      }
      if (inBand || !p.exitOutsideBand) return [];
      running = false;
      exits.inc();
      ctx.log.info({ symbol: p.symbol, mid: m }, 'mid left the band: grid pulled, closing the position');
      report(false);
      return [quoteSet([], d), ...closing(book, d)];
    };

    const onOrder = (e: OrderEvent): Intent[] => {
      if (e.clientTag?.startsWith(EXIT_TAG)) {
        if (e.clientTag === exitInFlight && TERMINAL_STATUSES.has(e.status)) exitInFlight = undefined;
        return [];
      }
      const before = seen.get(e.orderId) ?? 0;
      if (TERMINAL_STATUSES.has(e.status)) seen.delete(e.orderId);
      else seen.set(e.orderId, e.filledSize);
      const filled = e.filledSize - before;
      const level = grid.levelOf(e.price);
      if (!running || filled <= 0 || level < 0 || at === undefined) return [];
      fillCount++;
      fills.inc(filled, { side: e.side });
      grid.fill(level, e.side, filled);
      return [quoteSet(report(true), at)];
    };

    const events$: Observable<GridEvent> = merge(
      ctx.market.book$(p.symbol).pipe(map((book) => ({ book }))),
      ctx.account.orders$.pipe(
        filter((e) => e.symbol === p.symbol),
        map((order) => ({ order })),
      ),
      ctx.account.state$.pipe(map((state) => ({ position: positionOf(state, p.symbol) }))),
    );
    return events$.pipe(
      mergeMap((e): Intent[] => {
        if ('book' in e) return onBook(e.book);
        if ('order' in e) return onOrder(e.order);
        position = e.position;
        return [];
      }),
    );
  },
});
