import { map, NEVER, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { BookLevel, BookUpdate } from '../../../src/core/market-data.js';
import { buildBook, type RebuildReason } from '../../../src/market/book-builder.js';

const lv = (price: number, size: number): BookLevel => ({ price, size, orders: 0 });
const up = (kind: BookUpdate['kind'], bids: BookLevel[], asks: BookLevel[], venueTimeMs: number): BookUpdate => ({
  kind,
  symbol: 'BTC-USD',
  bids,
  asks,
  venueTimeMs,
  arrivalNs: 0n,
});
const UPDATES: Record<string, BookUpdate> = {
  s: up('snapshot', [lv(100, 1)], [lv(101, 1)], 1),
  t: up('snapshot', [lv(90, 1)], [lv(91, 1)], 9),
  d: up('delta', [lv(100, 3)], [], 2),
  e: up('delta', [], [lv(102, 2)], 3),
  x: up('delta', [lv(105, 1)], [], 4),
};
const CHECKS: Record<string, BookUpdate> = {
  g: up('snapshot', [lv(100, 3)], [lv(101, 1), lv(102, 2)], 5),
  b: up('snapshot', [lv(100, 7)], [lv(101, 1)], 5),
};

function marbles(frames: [number, string][]): { marble: string; values: Record<string, string> } {
  const parts: string[] = [];
  let at = 0;
  const values: Record<string, string> = {};
  frames.forEach(([frame, value], i) => {
    const k = String.fromCharCode(65 + i);
    if (frame > at) parts.push(`${frame - at}ms`);
    parts.push(k);
    at = frame + 1;
    values[k] = value;
  });
  return { marble: parts.join(' '), values };
}

function expectBooks(updates: string, checks: string, frames: [number, string][], rebuilds: RebuildReason[] = []) {
  const ts = new TestScheduler((a, e) => expect(a).toEqual(e));
  const asked: RebuildReason[] = [];
  ts.run(({ hot, expectObservable }) => {
    const checks$: Observable<BookUpdate> = checks ? hot(checks, CHECKS) : NEVER;
    const books = buildBook(hot(updates, UPDATES), { symbol: 'BTC-USD', checks$, checkDepth: 50, onRebuild: (r) => asked.push(r) });
    const { marble, values } = marbles(frames);
    expectObservable(books.pipe(map((b) => `${b.version}:${b.bestBid()?.price}/${b.bestAsk()?.price}`))).toBe(marble, values);
  });
  expect(asked).toEqual(rebuilds);
}

describe('buildBook (marbles)', () => {
  it('drops deltas before the first snapshot, then emits the book after every change', () => {
    expectBooks('d-s-d-e', '', [
      [2, '1:100/101'],
      [4, '2:100/101'],
      [6, '3:100/101'],
    ]);
  });

  it('stops emitting on a crossed book, asks for a rebuild, and starts over from the next snapshot', () => {
    expectBooks(
      's-x-d-t-e',
      '',
      [
        [0, '1:100/101'],
        [6, '3:90/91'],
        [8, '4:90/91'],
      ],
      ['crossed'],
    );
  });

  it('rebuilds after two consecutive cross-check mismatches, not after one', () => {
    expectBooks(
      's-d-e---------',
      '-------b-g-b-b',
      [
        [0, '1:100/101'],
        [2, '2:100/101'],
        [4, '3:100/101'],
      ],
      ['mismatch'],
    );
  });

  it('ignores cross-checks while waiting for a snapshot', () => {
    expectBooks('-------s', 'b-b-b', [[7, '1:100/101']]);
  });
});
