import { afterEach, describe, expect, it } from 'vitest';
import type { Subscription } from 'rxjs';
import { AccountStreams } from '../../../src/account/account.js';
import type { AccountState } from '../../../src/account/state.js';
import { HttpClient } from '../../../src/client/http.js';
import { liveVenueOf, type LiveVenue } from '../../../src/client/venue.js';
import { WsPool } from '../../../src/client/ws-pool.js';
import type { Fill, VenueOrder } from '../../../src/core/account-data.js';
import type { BookView, L2Book } from '../../../src/market/book.js';
import { MarketStreams } from '../../../src/market/market.js';
import type { SignedRequest } from '../../../src/protocol/sign.js';
import { bookUpdateOf } from '../../../src/protocol/vocabulary.js';
import { CurrentVenue, key } from '../../support/current-venue.js';
import { until } from '../../support/until.js';

const SYMBOL = 'BTC-USD';
const USER = key(0x11);
const OTHER = key(0x22);

interface Rig {
  venue: CurrentVenue;
  live: LiveVenue;
}

let rig: Rig | undefined;
const subs: Subscription[] = [];

afterEach(async () => {
  for (const s of subs.splice(0)) s.unsubscribe();
  rig?.live.close();
  await rig?.venue.close();
  rig = undefined;
});

async function start(): Promise<Rig> {
  const venue = await CurrentVenue.start();
  venue.setBook(
    SYMBOL,
    [
      [100, 1],
      [99, 2],
      [98, 3],
    ],
    [
      [101, 1],
      [102, 2],
    ],
  );
  const pool = new WsPool({ url: venue.wsUrl, dialect: 'current', backoff: { initialMs: 20, maxMs: 100 } });
  const http = new HttpClient({ baseUrl: venue.httpUrl, dialect: 'current', timeoutMs: 500, readRetries: 1, backoff: { initialMs: 10, maxMs: 20 } });
  return (rig = { venue, live: liveVenueOf({ http, pool, dialect: 'current', network: 'mainnet' }) });
}

function watchAccount(accounts: AccountStreams) {
  const seen = { state: undefined as AccountState | undefined, orders: [] as VenueOrder[], fills: [] as Fill[] };
  subs.push(accounts.state$(USER).subscribe((s) => (seen.state = s)));
  subs.push(accounts.orderUpdates$(USER).subscribe((u) => seen.orders.push(u)));
  subs.push(accounts.fills$(USER).subscribe((f) => seen.fills.push(f)));
  return seen;
}

/** The client's state equals the venue's: same open orders (side, sizes, v1 status), positions and collateral. */
function accountConverged(venue: CurrentVenue, state: AccountState | undefined): boolean {
  if (!state) return false;
  const a = venue.account(USER);
  if (state.orders.size !== a.orders.size || state.positions.size !== [...a.positions.values()].filter((p) => p.size !== 0).length) return false;
  for (const [id, o] of a.orders) {
    const mine = state.orders.get(id);
    if (!mine || mine.side !== (o.originalSize > 0 ? 'buy' : 'sell') || mine.remainingSize !== Math.abs(o.size) || mine.filledSize !== o.filledSize)
      return false;
  }
  for (const [symbol, p] of a.positions) if (p.size !== 0 && state.positions.get(symbol)?.size !== p.size) return false;
  return state.collateral.get('USDC') === a.balance;
}

describe('the client against a venue that speaks only the current dialect', () => {
  it('book$ converges: snapshot, deltas, and a cross-check against /l2book that agrees', async () => {
    const { venue, live } = await start();
    const market = new MarketStreams({ source: live.market, crossCheckMs: 30, checkDepth: 50 });
    const seen: { book: BookView | undefined } = { book: undefined };
    subs.push(market.book$(SYMBOL).subscribe((b) => (seen.book = b)));
    const converged = () => !!seen.book && (seen.book as L2Book).matches(bookUpdateOf(venue.wireBook(SYMBOL), 0n));
    await until(converged, 'initial snapshot');
    venue.setLevel(SYMBOL, 'bid', 100, 0);
    venue.setLevel(SYMBOL, 'ask', 100.5, 4);
    venue.setLevel(SYMBOL, 'bid', 99.5, 7);
    await until(() => converged() && seen.book!.bestAsk()?.price === 100.5, 'deltas applied');
    const stats = market.bookStats(SYMBOL)!;
    const checks = stats.checks;
    await until(() => stats.checks >= checks + 2, 'cross-checks after the deltas');
    expect(stats.rebuilds).toEqual({ crossed: 0, mismatch: 0 });
    expect(converged()).toBe(true);
    expect(seen.book!.bestBid()).toEqual({ price: 99.5, size: 7, orders: 0 });
    expect(live.pool.stats.invalidFrames.schema).toBe(0);
  });

  it('account.state$ converges from the current snapshot and compact updates; order updates and fills in the vocabulary', async () => {
    const { venue, live } = await start();
    const [a, b] = [key(0xa1), key(0xa2)];
    venue.placeOrder(USER, a, SYMBOL, false, 101, 2, true);
    venue.fillOrder(USER, a, 0.5, OTHER);
    const seen = watchAccount(new AccountStreams({ source: live.account }));
    await until(
      () => accountConverged(venue, seen.state) && seen.state!.margin !== undefined && seen.state!.positions.get(SYMBOL)?.unrealizedPnlUsd !== undefined,
      'snapshot',
    );
    expect(seen.state!.orders.get(a)).toMatchObject({
      side: 'sell',
      originalSize: 2,
      remainingSize: 1.5,
      filledSize: 0.5,
      status: 'working',
      tif: 'ALO',
      reduceOnly: false,
    });
    expect(seen.state!.positions.get(SYMBOL)).toMatchObject({ size: -0.5, entryPrice: 101, unrealizedPnlUsd: 1.5, liquidationPrice: 90.9 });
    expect(seen.state!.margin).toMatchObject({ totalBalanceUsd: 10_000, availableBalanceUsd: 10_000 });
    expect(seen.state!.leverage.get(SYMBOL)).toBe(10);

    venue.placeOrder(USER, b, SYMBOL, true, 99, 1);
    venue.fillOrder(USER, b, 1, OTHER);
    venue.cancelOrder(USER, a);
    await until(() => accountConverged(venue, seen.state) && seen.orders.length === 3, 'live updates');
    expect(seen.state!.orders.size).toBe(0);
    expect(seen.state!.positions.get(SYMBOL)?.size).toBe(0.5);
    expect(seen.orders.map((u) => [u.orderId === a ? 'a' : 'b', u.status, u.side, u.filledSize])).toEqual([
      ['b', 'placed', 'buy', 0],
      ['b', 'filled', 'buy', 1],
      ['a', 'cancelled', 'sell', 0.5],
    ]);
    expect(seen.fills.map((f) => [f.orderId, f.size, f.side])).toEqual([[b, 1, 'sell']]);
    expect(seen.fills[0]!.venueTimeNs).toBeGreaterThan(1_770_000_000_000_000_000n);
    expect(live.pool.stats.invalidFrames.schema).toBe(0);
  });

  it('recovers what happened while disconnected through the current /account rows, each event once', async () => {
    const { venue, live } = await start();
    const [a, b] = [key(0xa1), key(0xa2)];
    venue.placeOrder(USER, a, SYMBOL, true, 100, 2);
    const seen = watchAccount(new AccountStreams({ source: live.account, backoff: { initialMs: 20, maxMs: 100 } }));
    await until(() => accountConverged(venue, seen.state) && (venue.requests.get('/account') ?? 0) >= 2, 'snapshot and baseline');
    venue.dropConnections();
    venue.fillOrder(USER, a, 2, OTHER);
    venue.placeOrder(USER, b, SYMBOL, false, 110, 1);
    await until(() => accountConverged(venue, seen.state) && seen.fills.length === 1 && seen.orders.length === 2, 'reconciled');
    expect(seen.fills.map((f) => [f.orderId, f.size, f.maker])).toEqual([[a, 2, true]]);
    expect(seen.orders.map((u) => [u.orderId === a ? 'a' : 'b', u.status, u.filledSize])).toEqual([
      ['a', 'filled', 2],
      ['b', 'placed', 0],
    ]);
    expect(live.pool.stats.opens).toBe(2);
  });

  it('HttpClient reads current answers into the v1 model: fullAccount, openOrders, exchangeInfo ({markets}) and order statuses', async () => {
    const { venue, live } = await start();
    const http = live.http;
    venue.placeOrder(USER, key(0xa1), SYMBOL, false, 101, 2, true);
    const [full] = await http.account('fullAccount', USER);
    expect(full!.fullAccount).toMatchObject({ marginSummary: { positions: [{ coin: 'USDC', size: 10_000 }] }, settings: { maxLeverage: [[SYMBOL, 10]] } });
    const [open] = await http.account('openOrders', USER);
    expect(open!.openOrder).toMatchObject({ isBuy: false, size: 2, tif: 'alo', status: 'placed' });
    expect(await http.exchangeInfo()).toMatchObject([{ symbol: SYMBOL, tickSize: 0.5, lotSize: 0.001, maxLeverage: 50 }]);

    const oid = key(0xa1);
    venue.orderAnswers.push(
      JSON.stringify({ status: 'ok', response: { type: 'order', data: { statuses: [{ cancelledIoc: { oid, filledSz: -0.4 } }, { triggered: { oid } }] } } }),
    );
    const request = { encoded: { path: '/order' }, bodyText: '{"actions":[{"cxa":{"c":[]}}]}' } as SignedRequest;
    const outcome = await http.submit(request);
    expect(outcome.outcome === 'accepted' && outcome.response.response.data.statuses).toEqual([
      { cancelledIOC: { oid, filledSz: 0.4 } },
      { triggered: { oid } },
    ]);
  });

  it("the venue adapter reads the same answers in the vocabulary: open orders, market rules and an action's items", async () => {
    const { venue, live } = await start();
    const oid = key(0xa1);
    venue.placeOrder(USER, oid, SYMBOL, false, 101, 2, true);
    expect(await live.account.openOrders(USER)).toEqual([
      expect.objectContaining({ orderId: oid, side: 'sell', originalSize: 2, remainingSize: 2, status: 'placed', tif: 'ALO' }),
    ]);
    expect(await live.markets()).toEqual([{ symbol: SYMBOL, tickSizeUsd: 0.5, lotSizeBase: 0.001, minNotionalUsd: expect.any(Number), maxLeverage: 50 }]);
    venue.orderAnswers.push(
      JSON.stringify({ status: 'ok', response: { type: 'order', data: { statuses: [{ cancelledIoc: { oid, filledSz: -0.4 } }, { triggered: { oid } }] } } }),
    );
    const request = { encoded: { path: '/order' }, bodyText: '{"actions":[{"cxa":{"c":[]}}]}' } as SignedRequest;
    expect(await live.submitter.submit(request)).toEqual({
      outcome: 'accepted',
      items: [
        { kind: 'order', fact: { orderId: oid, status: 'cancelledIOC', filledSize: 0.4, reason: undefined } },
        { kind: 'order', fact: { orderId: oid, status: 'placed', filledSize: undefined, reason: undefined, parked: false } },
      ],
    });
  });
});
