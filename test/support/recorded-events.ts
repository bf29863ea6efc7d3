// Synthetic recorded market events for backtest tests: a ten-level book around a wandering mid, size
// changes, trades at the best prices and a ticker with mark and funding, generated lazily from a seed.
// Invariants: the same options give the same events; recvNs (1 ms after the venue's time) never decreases.

import type { BookLevel } from '../../src/core/market-data.js';
import type { RecordedEvent, RecordedMarket } from '../../src/backtest/recording/events.js';
import { Prng } from '../../src/venue-sim/engine/ids.js';

export const SYNTHETIC_MARKET: RecordedMarket = {
  symbol: 'BTC-USD',
  tickSizeUsd: 0.5,
  lotSizeBase: 0.001,
  minNotionalUsd: 0,
  maxLeverage: 20,
  makerFeeRate: 0.0002,
  takerFeeRate: 0.0005,
  fundingIntervalMs: 3_600_000,
};

export interface SyntheticOptions {
  seed: number;
  /** Events to generate. */
  count: number;
  /** Epoch ms of the first event. Default 1.7e12. */
  startMs?: number;
  /** Time between events, ms. Default 50. */
  stepMs?: number;
  /** Starting mid, USD. Default 100 000. */
  mid?: number;
}

export function* syntheticEvents(o: SyntheticOptions): Generator<RecordedEvent> {
  const rng = new Prng(o.seed);
  const u = () => rng.nextU32() / 2 ** 32;
  const tick = SYNTHETIC_MARKET.tickSizeUsd;
  const symbol = SYNTHETIC_MARKET.symbol;
  const size = () => Math.round((0.05 + u() * 2) * 1000) / 1000;
  let mid = Math.round((o.mid ?? 100_000) / tick);
  const bids = new Map<number, number>();
  const asks = new Map<number, number>();
  const fill = () => {
    for (let i = 1; i <= 10; i++) {
      if (!bids.has(mid - i)) bids.set(mid - i, size());
      if (!asks.has(mid + i)) asks.set(mid + i, size());
    }
    for (const t of bids.keys()) if (t >= mid || t < mid - 10) bids.delete(t);
    for (const t of asks.keys()) if (t <= mid || t > mid + 10) asks.delete(t);
  };
  const levels = (m: Map<number, number>, desc: boolean): BookLevel[] =>
    [...m.entries()].sort((a, b) => (desc ? b[0] - a[0] : a[0] - b[0])).map(([t, s]) => ({ price: t * tick, size: s, orders: 1 }));
  let t = o.startMs ?? 1_700_000_000_000;
  const step = o.stepMs ?? 50;
  const recv = () => BigInt(t) * 1_000_000n + 1_000_000n;
  fill();
  yield {
    kind: 'book',
    recvNs: recv(),
    book: { kind: 'snapshot', symbol, bids: levels(bids, true), asks: levels(asks, false), venueTimeMs: t, arrivalNs: 0n },
  };
  for (let n = 1; n < o.count; n++) {
    t += step;
    const r = u();
    if (r < 0.5) {
      const bid = u() < 0.5;
      const side = bid ? bids : asks;
      const ticks = bid ? mid - 1 - Math.floor(u() * 5) : mid + 1 + Math.floor(u() * 5);
      const s = size();
      side.set(ticks, s);
      const level = [{ price: ticks * tick, size: s, orders: 1 }];
      yield { kind: 'book', recvNs: recv(), book: { kind: 'delta', symbol, bids: bid ? level : [], asks: bid ? [] : level, venueTimeMs: t, arrivalNs: 0n } };
    } else if (r < 0.8) {
      const sell = u() < 0.5;
      const side = sell ? bids : asks;
      const best = sell ? Math.max(...side.keys()) : Math.min(...side.keys());
      const have = side.get(best)!;
      const s = Math.min(have, Math.round((0.001 + u() * have * 1.2) * 1000) / 1000);
      yield {
        kind: 'trade',
        recvNs: recv(),
        trade: { symbol, price: best * tick, size: s, takerSide: sell ? 'sell' : 'buy', timeMs: t, maker: '', taker: '', liquidation: false },
      };
      const left = Math.round((have - s) * 1000) / 1000;
      const level = [{ price: best * tick, size: left > 0 ? left : 0, orders: 1 }];
      if (left > 0) side.set(best, left);
      else side.delete(best);
      yield { kind: 'book', recvNs: recv(), book: { kind: 'delta', symbol, bids: sell ? level : [], asks: sell ? [] : level, venueTimeMs: t, arrivalNs: 0n } };
    } else if (r < 0.93) {
      mid += u() < 0.5 ? -1 : 1;
      fill();
      yield {
        kind: 'book',
        recvNs: recv(),
        book: { kind: 'snapshot', symbol, bids: levels(bids, true), asks: levels(asks, false), venueTimeMs: t, arrivalNs: 0n },
      };
    } else {
      const price = mid * tick;
      yield {
        kind: 'ticker',
        recvNs: recv(),
        ticker: {
          symbol,
          lastPrice: price,
          markPrice: price,
          oraclePrice: price,
          fundingRate: 0.0001,
          openInterest: 0,
          volume24h: 0,
          volume24hUsd: 0,
          high24hPrice: price,
          low24hPrice: price,
          venueTimeNs: BigInt(t) * 1_000_000n,
        },
      };
    }
  }
}
