import { firstValueFrom, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { BookLevel, BookUpdate, Ticker, Trade } from '../../../src/core/market-data.js';
import type { BookView } from '../../../src/market/book.js';
import { MarketStreams } from '../../../src/market/market.js';
import { until } from '../../support/until.js';
import { MemoryMarketSource } from './memory-source.js';

const lv = (price: number, size: number): BookLevel => ({ price, size, orders: 0 });

function update(kind: BookUpdate['kind'], bids: BookLevel[], asks: BookLevel[], venueTimeMs = 1, arrivalNs = 0n): BookUpdate {
  return { kind, symbol: 'BTC-USD', bids, asks, venueTimeMs, arrivalNs };
}

const trade = (price: number): Trade => ({ symbol: 'BTC-USD', price, size: 1, takerSide: 'buy', timeMs: 1, maker: 'm', taker: 't', liquidation: false });

const ticker = (lastPrice: number): Ticker => ({
  symbol: 'BTC-USD',
  lastPrice,
  markPrice: lastPrice,
  oraclePrice: lastPrice,
  fundingRate: 0,
  openInterest: 0,
  volume24h: 0,
  volume24hUsd: 0,
  high24hPrice: lastPrice,
  low24hPrice: lastPrice,
  venueTimeNs: 1n,
});

describe('MarketStreams', () => {
  it('holds each stream once while anyone listens (hot, ref-counted) and passes trades one by one', async () => {
    const source = new MemoryMarketSource();
    const market = new MarketStreams({ source });
    const got = firstValueFrom(market.trades$('BTC-USD').pipe(take(3), toArray()));
    const other = market.trades$('BTC-USD').subscribe();
    expect(source.held('trades', 'BTC-USD')).toBe(1);
    for (const price of [1, 2, 3]) source.pushTrade(trade(price));
    expect((await got).map((t) => t.price)).toEqual([1, 2, 3]);
    other.unsubscribe();
    expect(source.held('trades', 'BTC-USD')).toBe(0);
  });

  it('replays the latest ticker to a late subscriber', async () => {
    const source = new MemoryMarketSource();
    const market = new MarketStreams({ source });
    const keep = market.ticker$('BTC-USD').subscribe();
    source.pushTicker(ticker(7));
    expect((await firstValueFrom(market.ticker$('BTC-USD'))).lastPrice).toBe(7);
    keep.unsubscribe();
    expect(source.held('ticker', 'BTC-USD')).toBe(0);
  });

  it('the book carries the venue time and the arrival time of the last applied update', async () => {
    const source = new MemoryMarketSource();
    const market = new MarketStreams({ source, crossCheckMs: 0 });
    const seen: Array<[number, number, bigint]> = [];
    const keep = market.bookChanges$('BTC-USD').subscribe((b) => seen.push([b.version, b.venueTimeMs, b.arrivalNs]));
    source.pushBook(update('snapshot', [lv(100, 1)], [lv(101, 1)], 1_700_000_000_000, 5_000n));
    source.pushBook(update('delta', [lv(100, 2)], [], 1_700_000_000_001, 6_000n));
    expect(seen).toEqual([
      [1, 1_700_000_000_000, 5_000n],
      [2, 1_700_000_000_001, 6_000n],
    ]);
    const late: BookView = await firstValueFrom(market.book$('BTC-USD'));
    expect([late.arrivalNs, late.bestBid()]).toEqual([6_000n, lv(100, 2)]);
    keep.unsubscribe();
  });

  it('asks the source for a fresh snapshot when a delta crosses the book', () => {
    const source = new MemoryMarketSource();
    const market = new MarketStreams({ source, crossCheckMs: 0 });
    const keep = market.bookChanges$('BTC-USD').subscribe();
    source.pushBook(update('snapshot', [lv(100, 1)], [lv(101, 1)]));
    source.pushBook(update('delta', [lv(102, 1)], []));
    expect(source.resyncs).toEqual(['BTC-USD']);
    expect(market.bookStats('BTC-USD')).toMatchObject({ snapshots: 1, deltas: 1, rebuilds: { crossed: 1, mismatch: 0 } });
    keep.unsubscribe();
    expect(source.queries).toEqual([]);
  });

  it('replays the current book, cross-checks it against the queried venue book (skipping failed queries) and resyncs on repeated mismatch', async () => {
    const source = new MemoryMarketSource();
    const market = new MarketStreams({ source, crossCheckMs: 1, checkDepth: 10 });
    const keep = market.bookChanges$('BTC-USD').subscribe();
    source.pushBook(update('snapshot', [lv(100, 1)], [lv(101, 1)]));
    const late = await firstValueFrom(market.book$('BTC-USD'));
    expect(late.bestBid()?.price).toBe(100);
    expect(source.held('book', 'BTC-USD')).toBe(1);
    await until(() => source.queries.length >= 2, 'two failed queries');
    expect(market.bookStats('BTC-USD')!.checks).toBe(0);
    expect(source.queries[0]).toEqual({ symbol: 'BTC-USD', levels: 10 });
    source.venueBooks.set('BTC-USD', { bids: [lv(100, 2)], asks: [lv(101, 1)] });
    await until(() => source.resyncs.length > 0, 'a resync');
    expect(source.resyncs).toEqual(['BTC-USD']);
    expect(market.bookStats('BTC-USD')).toMatchObject({ snapshots: 1, checks: 2, mismatches: 2, rebuilds: { mismatch: 1, crossed: 0 } });
    keep.unsubscribe();
    expect(source.held('book', 'BTC-USD')).toBe(0);
  });
});
