// Funding capture: holds the side that receives funding (short while the rate is positive, long while negative) as long
// as the rate stays beyond a threshold, exits when it falls back or flips, and protects the position with a stop-loss
// resting at the venue as a conditional order. Invariants: one entry or exit order at a time, the next only once the
// position shows its fills; exits are reduce-only IOC orders within slippageBps of the mid; the stop is a reduce-only
// stop-market sized to the position, replaced when the position changes and cancelled when flat; after a stop,
// nothing is entered for cooldownMs.

import { combineLatest, Observable, Subscription } from 'rxjs';
import {
  closingTrigger,
  defineStrategy,
  roundToLot,
  roundToTick,
  schema as s,
  PendingOrders,
  stamp,
  symbolSchema,
  TERMINAL_STATUSES,
  withDefault,
  type AccountPosition,
  type BookView,
  type Infer,
  type Intent,
  type MarketRules,
  type Side,
  type Ticker,
} from '../src/strategy/api.js';

export const fundingCaptureParams = s.refine(
  s.object(
    {
      symbol: symbolSchema,
      /** The position held while funding is captured, base units. */
      size: s.number({ gt: 0 }),
      /** Enter when the funding rate (fraction per funding period) is at least this far from 0 on the side that pays. */
      minFundingRate: s.number({ gt: 0, max: 1 }),
      /** Exit when the rate the held side receives falls to this or below (0: when it flips). */
      exitFundingRate: withDefault(s.number({ min: -1, max: 1 }), 0),
      /** The stop: a stop-market at this distance from the entry price, against the position, bps. */
      stopLossBps: s.number({ gt: 0, max: 5_000 }),
      /** Farthest an order's limit price may be from the mid, bps. */
      slippageBps: withDefault(s.number({ gt: 0, max: 1_000 }), 20),
      /** After a stop, no new entry for this long, ms. */
      cooldownMs: withDefault(s.number({ min: 0, max: 86_400_000 }), 60_000),
    },
    { strict: true },
  ),
  (p) => (p.exitFundingRate >= p.minFundingRate ? 'exitFundingRate must be below minFundingRate' : undefined),
);
export type FundingCaptureParams = Infer<typeof fundingCaptureParams>;

/** What the strategy wants given the rate, the position and the mark. */
export type FundingDecision =
  | { readonly kind: 'hold' }
  | { readonly kind: 'enter'; readonly side: Side; readonly size: number }
  | { readonly kind: 'exit'; readonly reason: 'rate' | 'stop'; readonly side: Side; readonly size: number };

/** The side that receives funding at `rate` (positive: longs pay shorts). */
export function receivingSide(rate: number): Side {
  return rate > 0 ? 'sell' : 'buy';
}

/** The mark price at which a position entered at `entryPrice` stops out (long: below, short: above), USD. */
export function stopPrice(positionSize: number, entryPrice: number, stopLossBps: number): number {
  return positionSize > 0 ? entryPrice * (1 - stopLossBps / 1e4) : entryPrice * (1 + stopLossBps / 1e4);
}

/**
 * The decision for `ticker` (funding rate and mark) and the position (signed, base units), pure. `watchStop`: no stop
 * rests at the venue (refused, or not placed yet), so a mark past the stop price closes the position from here.
 */
export function decide(
  p: FundingCaptureParams,
  ticker: Pick<Ticker, 'fundingRate' | 'markPrice'>,
  position: Pick<AccountPosition, 'size' | 'entryPrice'> | undefined,
  rules: MarketRules,
  coolingDown: boolean,
  watchStop = true,
): FundingDecision {
  const held = roundToLot(Math.abs(position?.size ?? 0), rules.lotSizeBase);
  const rate = ticker.fundingRate;
  if (held > 0 && position) {
    const long = position.size > 0;
    const close: Side = long ? 'sell' : 'buy';
    const stop = stopPrice(position.size, position.entryPrice, p.stopLossBps);
    if (watchStop && position.entryPrice > 0 && (long ? ticker.markPrice <= stop : ticker.markPrice >= stop))
      return { kind: 'exit', reason: 'stop', side: close, size: held };
    const received = long ? -rate : rate;
    if (received <= p.exitFundingRate) return { kind: 'exit', reason: 'rate', side: close, size: held };
    const more = roundToLot(p.size - held, rules.lotSizeBase);
    return more > 0 && !coolingDown ? { kind: 'enter', side: long ? 'buy' : 'sell', size: more } : { kind: 'hold' };
  }
  if (coolingDown || Math.abs(rate) < p.minFundingRate) return { kind: 'hold' };
  return { kind: 'enter', side: receivingSide(rate), size: roundToLot(p.size, rules.lotSizeBase) };
}

const TAG = 'funding-';
const STOP_TAG = 'funding-stop';
/** After the venue refused the stop, the next try waits this long, ms. */
const STOP_RETRY_MS = 5_000;

export default defineStrategy({
  name: 'funding-capture',
  description: 'Holds the side that receives funding while the rate is beyond a threshold; exits when it flips, with a stop-loss.',
  params: fundingCaptureParams,
  symbols: (p) => [p.symbol],
  orderSizes: (p) => [{ symbol: p.symbol, size: p.size, key: 'size' }],
  maxPositions: (p) => [{ symbol: p.symbol, size: p.size, key: 'size' }],
  create(ctx, p) {
    const rules = ctx.rules(p.symbol);
    const entries = ctx.metrics.counter('funding_entries_total', { help: 'Orders opening or adding to the position' });
    const exits = ctx.metrics.counter('funding_exits_total', { help: 'Closing orders, by reason (rate, stop)', labelNames: ['reason'] });
    const rateGauge = ctx.metrics.gauge('funding_rate_ratio', { help: 'The funding rate last seen, fraction per period' });

    return new Observable<Intent>((out) => {
      const subs = new Subscription();
      const pending = new PendingOrders();
      let seq = 0;
      let coolUntilMs = 0;
      let ticker: Ticker | undefined;
      let book: BookView | undefined;
      let position: AccountPosition | undefined;
      /** The stop asked for (size and trigger price), until its order ends or is cancelled. */
      let stop: { readonly size: number; readonly triggerPrice: number } | undefined;
      let stopRetryAtMs = 0;
      /** A rate exit was sent: the position going flat is ours, not the stop's. */
      let exiting = false;
      /** The stop fired: nothing is decided until the position shows it (or STOP_RETRY_MS passed). */
      let stoppedAtMs: number | undefined;

      const stopped = (nowMs: number, size: number) => {
        exits.inc(1, { reason: 'stop' });
        coolUntilMs = nowMs + p.cooldownMs;
        stop = undefined;
        ctx.log.info({ symbol: p.symbol, position: size, markPrice: ticker?.markPrice }, 'funding capture stopped out');
      };

      /** The stop for the position now: placed, or replaced when the position changed; cancelled when flat. */
      const protect = (size: number, entryPrice: number, markPrice: number, nowMs: number, at: ReturnType<typeof stamp>) => {
        const held = roundToLot(Math.abs(size), rules.lotSizeBase);
        if (held <= 0 || entryPrice <= 0) {
          if (stop !== undefined) out.next({ kind: 'cancel', symbol: p.symbol, ref: { clientTag: STOP_TAG }, ...at });
          stop = undefined;
          return;
        }
        const triggerPrice = roundToTick(stopPrice(size, entryPrice, p.stopLossBps), rules.tickSizeUsd, size > 0 ? 'down' : 'up');
        // A trigger the mark already reached is refused (it would fire at once): the strategy closes by itself then.
        const reached = size > 0 ? markPrice <= triggerPrice : markPrice >= triggerPrice;
        if ((stop?.size === held && stop.triggerPrice === triggerPrice) || nowMs < stopRetryAtMs || reached) return;
        stop = { size: held, triggerPrice };
        const order = closingTrigger(p.symbol, size > 0 ? held : -held, { kind: 'stop', triggerPrice }, { clientTag: STOP_TAG });
        out.next({ kind: 'replace', ref: { clientTag: STOP_TAG }, order, ...at });
      };

      const evaluate = () => {
        const nowMs = ctx.clock.nowMs();
        const size = position?.size ?? 0;
        if (!ticker || !book || pending.busy(p.symbol, size, nowMs)) return;
        const bid = book.bestBid();
        const ask = book.bestAsk();
        if (!bid || !ask) return;
        if (stoppedAtMs !== undefined) {
          if (size !== 0 && nowMs - stoppedAtMs < STOP_RETRY_MS) return;
          stoppedAtMs = undefined;
        }
        const at = stamp(book);
        if (size === 0) {
          // Flat with a stop resting and no exit of ours: the stop fired before its order's end arrived.
          if (stop !== undefined && !exiting) stopped(nowMs, 0);
          exiting = false;
        }
        protect(size, position?.entryPrice ?? 0, ticker.markPrice, nowMs, at);
        const d = decide(p, ticker, position, rules, nowMs < coolUntilMs, stop === undefined);
        ctx.report({
          position: size,
          fundingRate: ticker.fundingRate,
          stopPriceUsd: stop?.triggerPrice ?? null,
          coolingDown: nowMs < coolUntilMs,
        });
        if (d.kind === 'hold') return;
        const m = (bid.price + ask.price) / 2;
        const slip = (m * p.slippageBps) / 1e4;
        const price = d.side === 'buy' ? roundToTick(m + slip, rules.tickSizeUsd, 'down') : roundToTick(m - slip, rules.tickSizeUsd, 'up');
        const reduceOnly = d.kind === 'exit';
        if (!reduceOnly && price * d.size < rules.minNotionalUsd) return;
        if (d.kind === 'exit') {
          exits.inc(1, { reason: d.reason });
          exiting = true;
          if (d.reason === 'stop') coolUntilMs = nowMs + p.cooldownMs;
          ctx.log.info(
            { symbol: p.symbol, reason: d.reason, position: size, markPrice: ticker.markPrice, fundingRate: ticker.fundingRate },
            'funding capture exiting',
          );
        } else entries.inc();
        const clientTag = `${TAG}${++seq}`;
        pending.sent(p.symbol, clientTag, size);
        out.next({ kind: 'place', order: { symbol: p.symbol, side: d.side, price, size: d.size, tif: 'IOC', reduceOnly, clientTag }, ...at });
      };

      subs.add(
        combineLatest([ctx.market.ticker$(p.symbol), ctx.market.book$(p.symbol), ctx.account.state$]).subscribe(([t, b, state]) => {
          ticker = t;
          book = b;
          position = state.positions.get(p.symbol);
          rateGauge.set(t.fundingRate);
          evaluate();
        }),
      );
      subs.add(
        ctx.account.orders$.subscribe((e) => {
          if (e.clientTag === STOP_TAG) {
            if (!TERMINAL_STATUSES.has(e.status) || stop === undefined) return;
            const nowMs = ctx.clock.nowMs();
            if (e.filledSize > 0) {
              stopped(nowMs, position?.size ?? 0);
              stoppedAtMs = nowMs;
            } else if (e.status !== 'cancelled') {
              ctx.log.warn({ symbol: p.symbol, status: e.status, reason: e.reason }, 'the venue refused the stop; watching the mark here instead');
              stop = undefined;
              stopRetryAtMs = nowMs + STOP_RETRY_MS;
            }
            return;
          }
          if (pending.update(e, ctx.clock.nowMs())) evaluate();
        }),
      );
      return subs;
    });
  },
});
