// adoptOwnerOf (execution.unknownOrders: adopt) against a real journal: who takes over an order found at start.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { adoptOwnerOf } from '../../../../src/app/daemon/adopt.js';
import type { VenueOrder } from '../../../../src/core/account-data.js';
import { Journal } from '../../../../src/store/index.js';

const ACCOUNT = 'acct';
const silent = { warn: () => undefined };
let journal: Journal | undefined;
afterEach(() => journal?.close());

function journalWith(orders: [orderId: string, strategy: string | undefined][]): Journal {
  journal = Journal.open(join(mkdtempSync(join(tmpdir(), 'perpbot-adopt-')), 'journal.sqlite'));
  for (const [orderId, strategy] of orders) {
    journal.recordOrder({
      account: ACCOUNT,
      strategy,
      symbol: 'ETH-USD',
      orderId,
      side: 'buy',
      price: 100,
      size: 1,
      filledSize: 0,
      status: 'placed',
      atNs: 1n,
    });
  }
  return journal;
}

const order = (orderId: string, symbol: string, extra: Partial<VenueOrder> = {}): VenueOrder => ({
  orderId,
  symbol,
  side: 'buy',
  price: 100,
  originalSize: 1,
  remainingSize: 1,
  filledSize: 0,
  avgFillPrice: 0,
  maker: true,
  status: 'placed',
  venueTimeNs: 1n,
  reason: undefined,
  reduceOnly: false,
  tif: 'GTC',
  parked: false,
  ...extra,
});

describe('adoptOwnerOf', () => {
  const strategies = [
    { name: 'eth-a', symbols: ['ETH-USD'] },
    { name: 'eth-b', symbols: ['ETH-USD', 'SOL-USD'] },
    { name: 'btc', symbols: ['BTC-USD'] },
  ];

  it('gives an order to the strategy the journal recorded it under, when that strategy runs now', () => {
    const owner = adoptOwnerOf(journalWith([['o1', 'eth-b']]), ACCOUNT, strategies, silent);
    expect(owner(order('o1', 'ETH-USD'))).toBe('eth-b');
  });

  it('else to the only strategy trading its market; none when several or none do', () => {
    const owner = adoptOwnerOf(
      journalWith([
        ['gone', 'retired'],
        ['anon', undefined],
      ]),
      ACCOUNT,
      strategies,
      silent,
    );
    expect(owner(order('gone', 'BTC-USD'))).toBe('btc');
    expect(owner(order('anon', 'SOL-USD'))).toBe('eth-b');
    expect(owner(order('manual', 'ETH-USD'))).toBeUndefined();
    expect(owner(order('manual', 'DOGE-USD'))).toBeUndefined();
  });

  it('reads only the account’s own journal rows', () => {
    const owner = adoptOwnerOf(journalWith([['o1', 'eth-a']]), 'other-account', strategies, silent);
    expect(owner(order('o1', 'ETH-USD'))).toBeUndefined();
  });

  it('gives no one a parked basket (a parked order of no size), journaled or not; a parked trigger order with a size is adopted', () => {
    const owner = adoptOwnerOf(journalWith([['basket', 'btc']]), ACCOUNT, strategies, silent);
    expect(owner(order('basket', 'BTC-USD', { parked: true, maker: false, price: 0, originalSize: 0, remainingSize: 0 }))).toBeUndefined();
    expect(owner(order('stop', 'BTC-USD', { parked: true, maker: false }))).toBe('btc');
  });

  it('warns and lets the market decide when the journal cannot be read', () => {
    const warnings: [object, string][] = [];
    const closed = journalWith([['o1', 'eth-a']]);
    const owner = adoptOwnerOf(closed, ACCOUNT, strategies, { warn: (fields: object, msg: string) => void warnings.push([fields, msg]) });
    closed.close();
    journal = undefined;
    expect(owner(order('o1', 'BTC-USD'))).toBe('btc');
    expect(owner(order('o1', 'ETH-USD'))).toBeUndefined();
    expect(warnings).toHaveLength(2);
    expect(warnings[0]![0]).toMatchObject({ orderId: 'o1', error: expect.any(String) });
    expect(warnings[0]![1]).toBe('journal unreadable: the order goes to the only strategy trading its market, if any');
  });
});
