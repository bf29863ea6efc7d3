// The port recorder: every symbol's book, trades and ticker reach the writer with their receive time; a book joined
// mid-stream is resynced and starts with a snapshot; a resubscription's snapshot is kept as a snapshot.
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { recordMarketData } from '../../../../src/backtest/recording/recorder.js';
import type { RecordedEvent } from '../../../../src/backtest/recording/events.js';
import { ManualClock } from '../../../../src/core/clock.js';
import type { BookUpdate, Ticker, Trade } from '../../../../src/core/market-data.js';
import type { MarketDataSource } from '../../../../src/venue/port.js';

/** A market data source whose streams the test drives. */
class FakeMarket implements MarketDataSource {
  readonly books = new Map<string, Subject<BookUpdate>>();
  readonly tradeStreams = new Map<string, Subject<Trade>>();
  readonly tickers = new Map<string, Subject<Ticker>>();
  readonly resyncs: string[] = [];

  private of<T>(map: Map<string, Subject<T>>, symbol: string): Subject<T> {
    let s = map.get(symbol);
    if (!s) map.set(symbol, (s = new Subject<T>()));
    return s;
  }

  book$ = (symbol: string) => this.of(this.books, symbol).asObservable();
  trades$ = (symbol: string) => this.of(this.tradeStreams, symbol).asObservable();
  ticker$ = (symbol: string) => this.of(this.tickers, symbol).asObservable();
  resyncBook = (symbol: string) => void this.resyncs.push(symbol);
  bookSnapshot = (): Promise<BookUpdate> => Promise.reject(new Error('not used'));
}

const book = (kind: 'snapshot' | 'delta', arrivalNs: bigint, price = 100): BookUpdate => ({
  kind,
  symbol: 'BTC-USD',
  bids: [{ price, size: 1, orders: 1 }],
  asks: [],
  venueTimeMs: 5,
  arrivalNs,
});
const TRADE: Trade = { symbol: 'BTC-USD', price: 100, size: 1, takerSide: 'buy', timeMs: 5, maker: 'a', taker: 'b', liquidation: false };

function setUp(append?: (e: RecordedEvent) => void) {
  const market = new FakeMarket();
  const clock = new ManualClock(1_000n);
  const events: RecordedEvent[] = [];
  const errors: unknown[] = [];
  const sub = recordMarketData({ market, symbols: ['BTC-USD'], clock, append: append ?? ((e) => events.push(e)), onError: (e) => errors.push(e) });
  return { market, clock, events, errors, sub };
}

describe('recordMarketData', () => {
  it('keeps no delta before the first snapshot, asking the venue for one; a resubscription snapshot stays a snapshot', () => {
    const { market, events } = setUp();
    const books = market.books.get('BTC-USD')!;
    books.next(book('delta', 10n));
    books.next(book('delta', 11n));
    expect(market.resyncs).toEqual(['BTC-USD']);
    books.next(book('snapshot', 12n));
    books.next(book('delta', 13n));
    books.next(book('snapshot', 14n, 101));
    expect(events.map((e) => (e.kind === 'book' ? `${e.book.kind}@${e.recvNs}` : e.kind))).toEqual(['snapshot@12', 'delta@13', 'snapshot@14']);
  });

  it('stamps trades and tickers with the clock, books with their arrival time; unsubscribing stops it', () => {
    const { market, clock, events, sub } = setUp();
    market.books.get('BTC-USD')!.next(book('snapshot', 7n));
    clock.set(2_000n);
    market.tradeStreams.get('BTC-USD')!.next(TRADE);
    clock.set(3_000n);
    const ticker = { symbol: 'BTC-USD', venueTimeNs: 2_500n } as Ticker;
    market.tickers.get('BTC-USD')!.next(ticker);
    expect(events).toEqual([
      { kind: 'book', recvNs: 7n, book: book('snapshot', 7n) },
      { kind: 'trade', recvNs: 2_000n, trade: TRADE },
      { kind: 'ticker', recvNs: 3_000n, ticker },
    ]);
    sub.unsubscribe();
    market.tradeStreams.get('BTC-USD')!.next(TRADE);
    expect(events).toHaveLength(3);
  });

  it('a failing stream or append is reported; the other streams go on', () => {
    let fail = true;
    const kept: RecordedEvent[] = [];
    const { market, errors } = setUp((e) => {
      if (fail) {
        fail = false;
        throw new Error('disk full');
      }
      kept.push(e);
    });
    market.tradeStreams.get('BTC-USD')!.next(TRADE);
    market.tickers.get('BTC-USD')!.error(new Error('refused'));
    market.tradeStreams.get('BTC-USD')!.next(TRADE);
    expect((errors as Error[]).map((e) => e.message)).toEqual(['disk full', 'refused']);
    expect(kept).toHaveLength(1);
  });
});
