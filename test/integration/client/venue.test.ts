import { firstValueFrom, filter, type Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountStreams } from '../../../src/account/account.js';
import type { AccountState } from '../../../src/account/state.js';
import { connectVenue, type LiveVenue } from '../../../src/client/venue.js';
import type { VenueOrder } from '../../../src/core/account-data.js';
import type { BookView, L2Book } from '../../../src/market/book.js';
import { MarketStreams } from '../../../src/market/market.js';
import { codecFor } from '../../../src/protocol/codecs.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { signRequest } from '../../../src/protocol/sign.js';
import { bookUpdateOf } from '../../../src/protocol/vocabulary.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { until } from '../../support/until.js';

const KEY = Keypair.generate();
let nonce = BigInt(Date.now()) * 1_000_000n;
let venue: Venue;
let live: LiveVenue;
const subs: Subscription[] = [];

function signed(action: unknown) {
  return signRequest(codecFor('v1'), KEY, { actions: action, account: KEY.publicKey, signer: KEY.publicKey, nonce: nonce++, network: 'mainnet', mode: 'raw' });
}

beforeAll(async () => {
  venue = await startVenue({ port: 0, flowIntervalMs: 20 });
  live = connectVenue({ url: venue.url, wsUrl: venue.wsUrl, dialect: 'v1', network: 'mainnet' });
});

afterAll(async () => {
  for (const s of subs) s.unsubscribe();
  live.close();
  await venue.close();
});

describe('the client against the local venue (startVenue)', () => {
  it('reads exchangeInfo and builds book$ that matches GET /l2book', async () => {
    const markets = await live.markets();
    expect(markets.map((m) => m.symbol)).toContain('BTC-USD');
    const market = new MarketStreams({ source: live.market, crossCheckMs: 200 });
    let book: BookView | undefined;
    subs.push(market.bookChanges$('BTC-USD').subscribe((b) => (book = b)));
    await until(() => book !== undefined && book.depth('bid') > 0 && book.depth('ask') > 0, 'a two-sided book');
    // Asked again at once: the venue's flow keeps moving the book, so a snapshot may differ by the time it arrives.
    await until(
      async () => {
        const snapshot = await live.http.l2book('BTC-USD');
        return (book as L2Book).matches(bookUpdateOf(snapshot, 0n));
      },
      'book equal to /l2book',
      5_000,
      0,
    );
    expect(book!.isCrossed()).toBe(false);
    expect(market.bookStats('BTC-USD')!.rebuilds).toEqual({ crossed: 0, mismatch: 0 });
  });

  it('funds an account, places and cancels an order; state$ and orderUpdates$ follow the venue', async () => {
    const accounts = new AccountStreams({ source: live.account });
    let state: AccountState | undefined;
    const updates: VenueOrder[] = [];
    subs.push(accounts.state$(KEY.publicKey).subscribe((s) => (state = s)));
    subs.push(accounts.orderUpdates$(KEY.publicKey).subscribe((u) => updates.push(u)));
    await until(() => state !== undefined, 'account snapshot');

    expect((await live.http.submit(signed({ type: 'faucet', user: KEY.publicKey }))).outcome).toBe('accepted');
    const [bid] = (await live.http.l2book('BTC-USD', 1)).levels[0];
    const price = Math.floor((bid!.px * 0.9) / 10) * 10;
    const place = signed({ type: 'order', orders: [{ order: { c: 'BTC-USD', b: true, px: price, sz: 0.01, r: false, t: { limit: { tif: 'GTC' } } } }] });
    const placed = await live.http.submit(place);
    expect(placed).toMatchObject({ outcome: 'accepted', response: { response: { data: { statuses: [{ resting: { oid: place.encoded.orderIds[0] } }] } } } });
    const oid = place.encoded.orderIds[0]!;
    await until(() => state!.orders.get(oid)?.status === 'placed', 'order in state$');

    const cancelled = await live.http.submit(signed({ type: 'order', orders: [{ cancel: { c: 'BTC-USD', oid } }] }));
    expect(cancelled.outcome).toBe('accepted');
    await until(() => !state!.orders.has(oid), 'order gone from state$');
    expect(updates.filter((u) => u.orderId === oid).map((u) => u.status)).toEqual(['placed', 'cancelled']);
    const open = await live.http.account('openOrders', KEY.publicKey);
    expect(open).toEqual([]);
    expect(await firstValueFrom(accounts.state$(KEY.publicKey).pipe(filter((s) => s.orders.size === 0)))).toBeDefined();
    expect(live.pool.stats.invalidFrames).toMatchObject({ binary: 0, malformed: 0, schema: 0, venueError: 0 });
  });
});
