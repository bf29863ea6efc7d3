// TWAP / iceberg executor: works one parent order (side, size, duration, limit price) as child orders, one slice at a
// time, so that the filled size follows the time elapsed, capped by a share of the market's traded volume.
// Invariants: the filled size never exceeds the parent's; no child crosses the limit price; at most one child is working;
// the stream completes (and the host cancels what is left) once the parent is filled or its duration is over.

import { Observable, Subscription, timer } from 'rxjs';
import {
  defineStrategy,
  roundToLot,
  roundToTick,
  schema as s,
  stamp,
  symbolSchema,
  TERMINAL_STATUSES,
  withDefault,
  type BookView,
  type DataStamp,
  type Fill,
  type Infer,
  type Intent,
  type MarketRules,
  type OrderEvent,
} from '../src/strategy/api.js';

export const twapParams = s.object(
  {
    symbol: symbolSchema,
    side: s.literal('buy', 'sell'),
    /** The parent order's size, base units. */
    size: s.number({ gt: 0 }),
    /** Time over which the parent is worked, ms. */
    durationMs: s.number({ min: 1_000, max: 7 * 86_400_000 }),
    /** Worst price a child may trade at, USD (buy: at most, sell: at least). Default: none. */
    limitPrice: s.optional(s.number({ gt: 0 })),
    /** Slices the duration is cut into; slice k (from 0) aims at (k + 1) / slices of the parent filled. */
    slices: withDefault(s.number({ integer: true, min: 1, max: 10_000 }), 10),
    /** Largest share of the market's volume since the start that the parent's fills may be (own fills included); absent: no cap. */
    maxParticipation: s.optional(s.number({ gt: 0, max: 1 })),
    /** How far past the opposite best price an IOC child may trade, basis points (room for the book to move while it travels). Default 0. */
    slippageBps: withDefault(s.number({ min: 0, max: 1_000 }), 0),
    /** Largest child, base units (the visible part of an iceberg). Default: none. */
    maxChildSize: s.optional(s.number({ gt: 0 })),
    /** IOC: each child takes the opposite best price. GTC: each child rests at the own side's best price, replaced every slice. */
    childTif: withDefault(s.literal('IOC', 'GTC'), 'IOC'),
    /** Children only reduce the position. */
    reduceOnly: withDefault(s.boolean(), false),
  },
  { strict: true },
);
export type TwapParams = Infer<typeof twapParams>;

/** The size a slice asks for, base units (0: nothing to send), given what is filled and the market volume so far. */
export function childSize(
  p: Pick<TwapParams, 'size' | 'slices' | 'maxParticipation' | 'maxChildSize'>,
  slice: number,
  filled: number,
  marketVolume: number,
  rules: MarketRules,
): number {
  let want = (p.size * Math.min(slice + 1, p.slices)) / p.slices - filled;
  if (p.maxChildSize !== undefined) want = Math.min(want, p.maxChildSize);
  if (p.maxParticipation !== undefined) want = Math.min(want, p.maxParticipation * marketVolume - filled);
  return want > 0 ? roundToLot(want, rules.lotSizeBase) : 0;
}

/** The child's limit price on `book`, or undefined when the book lacks the side or the limit price forbids it. */
export function childPrice(
  p: Pick<TwapParams, 'side' | 'limitPrice' | 'childTif' | 'slippageBps'>,
  book: Pick<BookView, 'bestBid' | 'bestAsk'>,
  tickSizeUsd: number,
): number | undefined {
  const buy = p.side === 'buy';
  const level = (p.childTif === 'IOC') === buy ? book.bestAsk() : book.bestBid();
  if (!level) return undefined;
  if (p.childTif === 'GTC') return p.limitPrice === undefined ? level.price : buy ? Math.min(level.price, p.limitPrice) : Math.max(level.price, p.limitPrice);
  if (p.limitPrice !== undefined && (buy ? level.price > p.limitPrice : level.price < p.limitPrice)) return undefined;
  const reach = buy ? level.price * (1 + p.slippageBps / 10_000) : level.price * (1 - p.slippageBps / 10_000);
  const price = p.slippageBps > 0 ? roundToTick(reach, tickSizeUsd, buy ? 'down' : 'up') : level.price;
  return p.limitPrice === undefined ? price : buy ? Math.min(price, p.limitPrice) : Math.max(price, p.limitPrice);
}

/** Fills whose order is not known yet are kept this many at most (a fill may arrive before its order's event). */
const MAX_UNMATCHED_FILLS = 1_000;
const TAG = 'twap-';

export default defineStrategy({
  name: 'twap',
  description: 'Works a parent order as child orders over a duration (TWAP), optionally capped by a share of the market volume.',
  params: twapParams,
  symbols: (p) => [p.symbol],
  orderSizes: (p) => [{ symbol: p.symbol, size: Math.min(p.size / p.slices, p.maxChildSize ?? Number.POSITIVE_INFINITY), key: 'size' }],
  maxPositions: (p) => [{ symbol: p.symbol, size: p.size, key: 'size' }],
  create(ctx, p) {
    const rules = ctx.rules(p.symbol);
    const sliceMs = p.durationMs / p.slices;
    const filledGauge = ctx.metrics.gauge('twap_filled_base', { help: 'Filled size of the parent order, base units' });
    const progressGauge = ctx.metrics.gauge('twap_progress_ratio', { help: 'Filled size / parent size' });
    const avgGauge = ctx.metrics.gauge('twap_avg_price_usd', { help: 'Average fill price of the parent order, USD' });
    const children = ctx.metrics.counter('twap_children_total', { help: 'Child orders sent' });

    return new Observable<Intent>((out) => {
      const subs = new Subscription();
      const filledOf = new Map<string, number>();
      const ours = new Set<string>();
      const unmatched: Fill[] = [];
      let book: BookView | undefined;
      let marketVolume = 0;
      let filled = 0;
      let notional = 0;
      let fillSize = 0;
      let sent = 0;
      let inFlight: string | undefined;
      let ended = false;
      let last: DataStamp = { dataTimeMs: ctx.clock.nowMs(), dataVersion: 0 };
      const done = () => filled >= p.size - rules.lotSizeBase / 2;

      const report = (state: 'working' | 'filled' | 'expired') => {
        const avg = fillSize > 0 ? notional / fillSize : null;
        filledGauge.set(filled);
        progressGauge.set(filled / p.size);
        if (avg !== null) avgGauge.set(avg);
        ctx.report({ state, side: p.side, size: p.size, filledSize: filled, progress: filled / p.size, avgPriceUsd: avg, children: sent });
      };
      const finish = (state: 'filled' | 'expired') => {
        if (out.closed) return;
        report(state);
        ctx.log.info({ symbol: p.symbol, state, filledSize: filled, avgPriceUsd: fillSize > 0 ? notional / fillSize : null }, 'twap done');
        out.complete();
      };

      /** Finishes once the parent is filled, or the time is over with no child working, and the fills' prices are in. */
      const settle = () => {
        const priced = fillSize >= filled - rules.lotSizeBase / 2;
        if (done() && priced) finish('filled');
        else if (ended && (inFlight === undefined || p.childTif === 'GTC') && priced) finish('expired');
      };

      const slice = (k: number) => {
        // A slice after the parent filled, or one after the end: what has not come by now is given up on.
        if (done() || k > p.slices) return finish(done() ? 'filled' : 'expired');
        if (k === p.slices) {
          ended = true;
          if (p.childTif === 'GTC') out.next({ kind: 'quoteSet', symbol: p.symbol, quotes: [], ...last });
          return settle();
        }
        if (!book || (p.childTif === 'IOC' && inFlight !== undefined)) return;
        const size = childSize(p, k, filled, marketVolume, rules);
        const price = childPrice(p, book, rules.tickSizeUsd);
        last = stamp(book);
        if (size <= 0 || price === undefined || (!p.reduceOnly && price * size < rules.minNotionalUsd)) {
          if (p.childTif === 'GTC') out.next({ kind: 'quoteSet', symbol: p.symbol, quotes: [], ...last });
          return;
        }
        sent++;
        children.inc();
        if (p.childTif === 'GTC') {
          out.next({ kind: 'quoteSet', symbol: p.symbol, quotes: [{ side: p.side, price, size, tif: 'GTC' }], ...last });
        } else {
          inFlight = `${TAG}${sent}`;
          out.next({
            kind: 'place',
            order: { symbol: p.symbol, side: p.side, price, size, tif: 'IOC', reduceOnly: p.reduceOnly, clientTag: inFlight },
            ...last,
          });
        }
        report('working');
      };

      const credit = (f: Fill) => {
        notional += f.price * f.size;
        fillSize += f.size;
      };
      const onOrder = (e: OrderEvent) => {
        if (e.symbol !== p.symbol) return;
        if (!ours.has(e.orderId)) {
          ours.add(e.orderId);
          for (let i = unmatched.length - 1; i >= 0; i--) if (unmatched[i]!.orderId === e.orderId) credit(unmatched.splice(i, 1)[0]!);
        }
        const before = filledOf.get(e.orderId) ?? 0;
        if (e.filledSize > before) {
          filledOf.set(e.orderId, e.filledSize);
          filled += e.filledSize - before;
        }
        if (e.clientTag === inFlight && TERMINAL_STATUSES.has(e.status)) inFlight = undefined;
        report('working');
        settle();
      };

      report('working');
      ctx.log.info({ symbol: p.symbol, side: p.side, size: p.size, durationMs: p.durationMs, slices: p.slices }, 'twap starting');
      subs.add(
        ctx.market.book$(p.symbol).subscribe((b) => {
          book = b;
        }),
      );
      subs.add(ctx.market.trades$(p.symbol).subscribe((t) => (marketVolume += t.size)));
      subs.add(
        ctx.account.fills$.subscribe((f) => {
          if (f.symbol !== p.symbol) return;
          if (ours.has(f.orderId)) credit(f);
          else if (unmatched.push(f) > MAX_UNMATCHED_FILLS) unmatched.shift();
          report('working');
          settle();
        }),
      );
      subs.add(ctx.account.orders$.subscribe(onOrder));
      subs.add(timer(0, sliceMs, ctx.scheduler).subscribe(slice));
      return subs;
    });
  },
});
