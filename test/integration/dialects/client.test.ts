import type { Subscription } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AccountStreams } from '../../../src/account/account.js';
import type { AccountState } from '../../../src/account/state.js';
import { connectVenue, type LiveVenue } from '../../../src/client/venue.js';
import type { Fill, VenueOrder } from '../../../src/core/account-data.js';
import type { Dialect } from '../../../src/core/types.js';
import { cancelAction, faucetAction, placeAction, signAction } from '../../../src/app/commands/actions.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { until } from '../../support/until.js';

const SYMBOL = 'BTC-USD';

describe.each<Dialect>(['v1', 'current'])('the client against the local venue in the %s dialect', (dialect) => {
  const key = Keypair.generate();
  let nonce = BigInt(Date.now()) * 1_000_000n;
  let venue: Venue;
  let live: LiveVenue;
  const subs: Subscription[] = [];
  const signed = (actions: unknown) => signAction(dialect, 'devnet', key, nonce++, actions);
  /** The venue's best bid; waited for (on a loaded machine a side can be empty for a moment between the flow's rounds). */
  const bestBid = async () => {
    let bid: { px: number } | undefined;
    await until(async () => (bid = (await live.http.l2book(SYMBOL, 1)).levels[0][0]) !== undefined, 'a bid in the book');
    return bid!;
  };

  beforeAll(async () => {
    venue = await startVenue({ port: 0, flowIntervalMs: 20, dialect, network: 'devnet' });
    live = connectVenue({ url: venue.url, wsUrl: venue.wsUrl, dialect, network: 'devnet' });
  });

  afterEach(() => {
    for (const s of subs.splice(0)) s.unsubscribe();
  });

  afterAll(async () => {
    live.close();
    await venue.close();
  });

  it('funds, places at the id computed at signing, cancels; state$ and orderUpdates$ follow; a market order fills', async () => {
    const accounts = new AccountStreams({ source: live.account });
    let state: AccountState | undefined;
    const updates: VenueOrder[] = [];
    const fills: Fill[] = [];
    subs.push(accounts.state$(key.publicKey).subscribe((s) => (state = s)));
    subs.push(accounts.orderUpdates$(key.publicKey).subscribe((u) => updates.push(u)));
    subs.push(accounts.fills$(key.publicKey).subscribe((f) => fills.push(f)));
    await until(() => state !== undefined, 'account snapshot');

    expect((await live.http.submit(signed(faucetAction(dialect, key.publicKey, undefined)))).outcome).toBe('accepted');
    const bid = await bestBid();
    const price = Math.floor((bid.px * 0.9) / 10) * 10;
    const place = signed(placeAction(dialect, { symbol: SYMBOL, side: 'buy', price, size: 0.01, tif: 'GTC', reduceOnly: false }, undefined));
    const oid = place.encoded.orderIds[0]!;
    const placed = await live.http.submit(place);
    expect(placed).toMatchObject({ outcome: 'accepted', response: { response: { data: { statuses: [{ resting: { oid } }] } } } });
    await until(() => state!.orders.get(oid)?.status === 'placed', 'order in state$');
    expect(state!.orders.get(oid)).toMatchObject({ side: 'buy', price, remainingSize: 0.01 });

    expect((await live.http.submit(signed(cancelAction(dialect, SYMBOL, oid)))).outcome).toBe('accepted');
    await until(() => !state!.orders.has(oid), 'order gone from state$');
    expect(updates.filter((u) => u.orderId === oid).map((u) => u.status)).toEqual(['placed', 'cancelled']);
    expect(await live.http.account('openOrders', key.publicKey)).toEqual([]);

    const market = signed(placeAction(dialect, { symbol: SYMBOL, side: 'buy', size: 0.01, tif: 'IOC', reduceOnly: false }, undefined));
    const taken = await live.http.submit(market);
    expect(taken.outcome).toBe('accepted');
    await until(() => fills.some((f) => f.orderId === market.encoded.orderIds[0]), 'the market order filled');
    await until(() => state!.positions.get(SYMBOL)?.size === 0.01, 'position in state$');
    expect(live.pool.stats.invalidFrames).toMatchObject({ binary: 0, malformed: 0, schema: 0, venueError: 0 });
  });

  it('after the stream drops, state$ reconciles what changed meanwhile: a cancel and a fill', async () => {
    const accounts = new AccountStreams({ source: live.account, backoff: { initialMs: 20, maxMs: 100 } });
    let state: AccountState | undefined;
    subs.push(accounts.state$(key.publicKey).subscribe((s) => (state = s)));
    await until(() => state !== undefined, 'account snapshot');
    const before = state!.positions.get(SYMBOL)?.size ?? 0;
    const bid = await bestBid();
    const place = signed(
      placeAction(dialect, { symbol: SYMBOL, side: 'buy', price: Math.floor((bid.px * 0.8) / 10) * 10, size: 0.01, tif: 'GTC', reduceOnly: false }, undefined),
    );
    const oid = place.encoded.orderIds[0]!;
    await live.http.submit(place);
    await until(() => state!.orders.has(oid), 'order in state$');

    const opens = live.pool.stats.opens;
    const hub = venue.hub as unknown as { clients: Set<{ ws: { terminate(): void } }> };
    for (const c of hub.clients) c.ws.terminate();
    await Promise.all([
      live.http.submit(signed(cancelAction(dialect, SYMBOL, oid))),
      live.http.submit(signed(placeAction(dialect, { symbol: SYMBOL, side: 'buy', size: 0.01, tif: 'IOC', reduceOnly: false }, undefined))),
    ]);
    await until(() => live.pool.stats.opens > opens, 'the stream reconnected');
    await until(() => !state!.orders.has(oid) && state!.positions.get(SYMBOL)?.size === before + 0.01, 'state$ reconciled', 10_000);
  });
});
