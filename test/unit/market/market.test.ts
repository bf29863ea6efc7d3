import { firstValueFrom, Observable, Subject, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { StreamSource } from '../../../src/client/ws-pool.js';
import type { BookView } from '../../../src/market/book.js';
import { MarketStreams } from '../../../src/market/market.js';
import { topicsOf, type StreamMessage, type Subscription } from '../../../src/protocol/v1/stream.js';
import { until } from '../../support/until.js';

/** A StreamSource over Subjects that records which topics are held (hand-written fake). */
class FakeSource implements StreamSource {
  readonly held = new Map<string, number>();
  readonly resubscribed: string[] = [];
  readonly warmed: string[] = [];
  private readonly subjects = new Map<string, Subject<StreamMessage>>();

  topic$(subscription: Subscription): Observable<StreamMessage> {
    const topic = topicsOf(subscription)[0]!;
    return new Observable<StreamMessage>((subscriber) => {
      this.held.set(topic, (this.held.get(topic) ?? 0) + 1);
      const s = this.subject(topic).subscribe(subscriber);
      return () => {
        s.unsubscribe();
        this.held.set(topic, this.held.get(topic)! - 1);
      };
    });
  }

  resubscribe(topic: string): void {
    this.resubscribed.push(topic);
  }

  warm(topic: string): void {
    this.warmed.push(topic);
  }

  emit(topic: string, type: string, data: unknown): void {
    this.subject(topic).next({ type, data, topic } as StreamMessage);
  }

  private subject(topic: string): Subject<StreamMessage> {
    let s = this.subjects.get(topic);
    if (!s) this.subjects.set(topic, (s = new Subject()));
    return s;
  }
}

const book = (updateType: string, bids: number[][], asks: number[][]) => ({
  book: { updateType, symbol: 'BTC-USD', levels: [bids.map(([px, sz]) => ({ px, sz, n: 0 })), asks.map(([px, sz]) => ({ px, sz, n: 0 }))], timestamp: 1n },
});

describe('MarketStreams', () => {
  it('warm(symbol) asks the source to decode the book topic of a market it builds a book for, and nothing else', () => {
    const source = new FakeSource();
    const market = new MarketStreams({ source });
    market.warm('BTC-USD');
    expect(source.warmed).toEqual([]);
    const sub = market.bookChanges$('BTC-USD').subscribe();
    market.warm('BTC-USD');
    market.warm('ETH-USD');
    expect(source.warmed).toEqual([topicsOf({ type: 'l2Delta', symbol: 'BTC-USD' })[0]]);
    sub.unsubscribe();
  });

  it('holds each topic once while anyone listens (hot, ref-counted) and flattens trades', async () => {
    const source = new FakeSource();
    const market = new MarketStreams({ source });
    const got = firstValueFrom(market.trades$('BTC-USD').pipe(take(3), toArray()));
    const other = market.trades$('BTC-USD').subscribe();
    expect(source.held.get('trades.BTC-USD')).toBe(1);
    source.emit('trades.BTC-USD', 'trades', { trades: [{ px: 1 }, { px: 2 }] });
    source.emit('trades.BTC-USD', 'trades', { trades: [{ px: 3 }] });
    expect((await got).map((t) => t.px)).toEqual([1, 2, 3]);
    other.unsubscribe();
    expect(source.held.get('trades.BTC-USD')).toBe(0);
  });

  it('replays the latest ticker, context and risk to a late subscriber', async () => {
    const source = new FakeSource();
    const market = new MarketStreams({ source });
    const keep = [market.ticker$('BTC-USD').subscribe(), market.frontendContext$().subscribe(), market.risk$('BTC-USD').subscribe()];
    source.emit('ticker.BTC-USD', 'ticker', { ticker: { lastPrice: 7 } });
    source.emit('frontendContext', 'frontendContext', { ctx: [{ symbol: 'BTC-USD' }] });
    source.emit('risk.BTC-USD', 'risk', { risk: { regime: 2 } });
    expect((await firstValueFrom(market.ticker$('BTC-USD'))).lastPrice).toBe(7);
    expect((await firstValueFrom(market.frontendContext$()))[0]!.symbol).toBe('BTC-USD');
    expect((await firstValueFrom(market.risk$('BTC-USD'))).regime).toBe(2);
    for (const k of keep) k.unsubscribe();
  });

  it('replays the current book, cross-checks against the l2snapshot topic and asks for a rebuild on repeated mismatch', async () => {
    const source = new FakeSource();
    const market = new MarketStreams({ source, crossCheckMs: 1, checkDepth: 10 });
    const keep = market.bookChanges$('BTC-USD').subscribe();
    source.emit('l2delta.BTC-USD', 'l2Delta', book('snapshot', [[100, 1]], [[101, 1]]));
    const late: BookView = await firstValueFrom(market.book$('BTC-USD'));
    expect(late.bestBid()?.px).toBe(100);
    expect(source.held.get('l2snapshot.BTC-USD')).toBe(1);
    for (let i = 0; i < 2; i++) {
      source.emit('l2snapshot.BTC-USD', 'l2Snapshot', book('snapshot', [[100, 2]], [[101, 1]]));
      await until(() => market.bookStats('BTC-USD')!.checks === i + 1, `check ${i + 1}`);
    }
    expect(source.resubscribed).toEqual(['l2delta.BTC-USD']);
    expect(market.bookStats('BTC-USD')).toMatchObject({ snapshots: 1, checks: 2, mismatches: 2, rebuilds: { mismatch: 1, crossed: 0 } });
    keep.unsubscribe();
    expect(source.held.get('l2delta.BTC-USD')).toBe(0);
    expect(source.held.get('l2snapshot.BTC-USD')).toBe(0);
  });
});
