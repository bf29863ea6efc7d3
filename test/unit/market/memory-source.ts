// A MarketDataSource in memory, for market tests: a Subject per stream, counters of who holds each, the requests made.
// Invariant: emits only what a test pushes; bookSnapshot answers the venue book the test set (rejects without one).

import { Observable, Subject } from 'rxjs';
import type { BookUpdate, Ticker, Trade } from '../../../src/core/market-data.js';
import type { MarketDataSource } from '../../../src/venue/port.js';

/** One stream: hot, counting its subscribers. */
class Feed<T> {
  readonly subject = new Subject<T>();
  subscribers = 0;
  readonly stream = new Observable<T>((subscriber) => {
    this.subscribers++;
    const s = this.subject.subscribe(subscriber);
    return () => {
      s.unsubscribe();
      this.subscribers--;
    };
  });
}

function feed<T>(feeds: Map<string, Feed<T>>, symbol: string): Feed<T> {
  let f = feeds.get(symbol);
  if (!f) feeds.set(symbol, (f = new Feed<T>()));
  return f;
}

export class MemoryMarketSource implements MarketDataSource {
  /** Symbols whose book was asked to resync, in order. */
  readonly resyncs: string[] = [];
  /** Every bookSnapshot query. */
  readonly queries: Array<{ readonly symbol: string; readonly levels: number }> = [];
  /** What bookSnapshot answers per symbol (best `levels` levels of each side). */
  readonly venueBooks = new Map<string, Pick<BookUpdate, 'bids' | 'asks'>>();
  private readonly books = new Map<string, Feed<BookUpdate>>();
  private readonly trades = new Map<string, Feed<Trade>>();
  private readonly tickers = new Map<string, Feed<Ticker>>();

  book$(symbol: string): Observable<BookUpdate> {
    return feed(this.books, symbol).stream;
  }

  resyncBook(symbol: string): void {
    this.resyncs.push(symbol);
  }

  bookSnapshot(symbol: string, levels: number): Promise<BookUpdate> {
    this.queries.push({ symbol, levels });
    const book = this.venueBooks.get(symbol);
    if (!book) return Promise.reject(new Error(`no venue book of ${symbol}`));
    return Promise.resolve({ kind: 'snapshot', symbol, bids: book.bids.slice(0, levels), asks: book.asks.slice(0, levels), venueTimeMs: 0, arrivalNs: 0n });
  }

  trades$(symbol: string): Observable<Trade> {
    return feed(this.trades, symbol).stream;
  }

  ticker$(symbol: string): Observable<Ticker> {
    return feed(this.tickers, symbol).stream;
  }

  pushBook(update: BookUpdate): void {
    feed(this.books, update.symbol).subject.next(update);
  }

  pushTrade(trade: Trade): void {
    feed(this.trades, trade.symbol).subject.next(trade);
  }

  pushTicker(ticker: Ticker): void {
    feed(this.tickers, ticker.symbol).subject.next(ticker);
  }

  /** Subscribers of a stream of `symbol` now. */
  held(stream: 'book' | 'trades' | 'ticker', symbol: string): number {
    const f = stream === 'book' ? this.books.get(symbol) : stream === 'trades' ? this.trades.get(symbol) : this.tickers.get(symbol);
    return f?.subscribers ?? 0;
  }
}
