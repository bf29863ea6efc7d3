// Records a venue's market streams through the venue port: each symbol's book, trades and ticker go to a writer, stamped
// with their receive time. Invariants: each symbol's book starts with a snapshot (a recorder that joins a held stream
// asks for one and keeps no delta before it); a resubscription's snapshot is recorded as such; nothing here throws
// into the streams it listens to.

import { Subscription } from 'rxjs';
import type { Clock } from '../../core/clock.js';
import type { MarketDataSource } from '../../venue/port.js';
import type { RecordedEvent } from './events.js';

export interface RecorderOptions {
  readonly market: MarketDataSource;
  readonly symbols: readonly string[];
  /** Stamps trades and tickers (a book update carries its own arrival time). */
  readonly clock: Clock;
  /** Takes each event (RecordingWriter.append). */
  readonly append: (e: RecordedEvent) => void;
  /** A stream failed (the venue refused a topic, or `append` threw); the other streams go on. */
  readonly onError: (e: unknown) => void;
}

/** Subscribes every symbol's book$, trades$ and ticker$; unsubscribe the result to stop. */
export function recordMarketData(opts: RecorderOptions): Subscription {
  const { market, clock, onError } = opts;
  const append = (e: RecordedEvent) => {
    try {
      opts.append(e);
    } catch (err) {
      onError(err);
    }
  };
  const all = new Subscription();
  for (const symbol of opts.symbols) {
    let started = false;
    let asked = false;
    all.add(
      market.book$(symbol).subscribe({
        next: (book) => {
          if (book.kind === 'snapshot') started = true;
          if (started) append({ kind: 'book', recvNs: book.arrivalNs, book });
          else if (!asked) {
            asked = true;
            market.resyncBook(symbol);
          }
        },
        error: onError,
      }),
    );
    all.add(market.trades$(symbol).subscribe({ next: (trade) => append({ kind: 'trade', recvNs: clock.nowNs(), trade }), error: onError }));
    all.add(market.ticker$(symbol).subscribe({ next: (ticker) => append({ kind: 'ticker', recvNs: clock.nowNs(), ticker }), error: onError }));
  }
  return all;
}
