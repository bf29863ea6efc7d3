import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountUpdate } from '../../../src/core/account-data.js';
import type { OrderSpec } from '../../../src/core/intent.js';
import type { BookUpdate } from '../../../src/core/market-data.js';
import { connectVenue, type LiveVenue } from '../../../src/client/venue.js';
import { codecFor } from '../../../src/protocol/codecs.js';
import { Keypair } from '../../../src/protocol/keys.js';
import type { OrderItem } from '../../../src/protocol/orders.js';
import { signRequest } from '../../../src/protocol/sign.js';
import type { StreamHealth } from '../../../src/venue/port.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { until } from '../../support/until.js';

const KEY = Keypair.generate();
const SYMBOL = 'BTC-USD';
const codec = codecFor('v1');
let nonce = BigInt(Date.now()) * 1_000_000n;
let venue: Venue;
let live: LiveVenue;
const subs: Subscription[] = [];
const health: StreamHealth[] = [];
const connected: boolean[] = [];
const updates: AccountUpdate[] = [];

function signed(actions: unknown) {
  return signRequest(codec, KEY, { actions, account: KEY.publicKey, signer: KEY.publicKey, nonce: nonce++, network: 'mainnet', mode: 'raw' });
}

const orders = (...items: OrderItem[]) => signed(codec.orderActions(items));
const place = (spec: Omit<OrderSpec, 'symbol' | 'reduceOnly'>): OrderItem => ({
  kind: 'place',
  spec: { symbol: SYMBOL, reduceOnly: false, ...spec },
  cloid: undefined,
});

beforeAll(async () => {
  venue = await startVenue({ port: 0, flowIntervalMs: 20 });
  live = connectVenue({ url: venue.url, wsUrl: venue.wsUrl, dialect: 'v1', network: 'mainnet' });
  subs.push(live.health.health$.subscribe((h) => health.push(h)));
  subs.push(live.health.connected$.subscribe((c) => connected.push(c)));
});

afterAll(async () => {
  for (const s of subs) s.unsubscribe();
  live.close();
  await venue.close();
});

describe('connectVenue against the local venue', () => {
  it('lists the markets and their rules', async () => {
    const rules = await live.markets();
    expect(rules.find((r) => r.symbol === SYMBOL)).toEqual({
      symbol: SYMBOL,
      tickSizeUsd: 0.1,
      lotSizeBase: 0.0001,
      minNotionalUsd: expect.any(Number),
      maxLeverage: 50,
    });
  });

  it('book$: a snapshot, then deltas, each stamped with the arrival of the frame being delivered; resyncBook sends a snapshot again', async () => {
    const seen: BookUpdate[] = [];
    const stamps: (bigint | undefined)[] = [];
    // The flow's first round may not have run yet: the snapshot is read once the venue's book has both sides.
    await until(() => (venue.engine.book(SYMBOL)?.bids.length ?? 0) > 0 && (venue.engine.book(SYMBOL)?.asks.length ?? 0) > 0, 'the flow quoting');
    subs.push(
      live.market.book$(SYMBOL).subscribe((u) => {
        seen.push(u);
        stamps.push(live.pool.frameArrivalNs);
      }),
    );
    await until(() => seen.filter((u) => u.kind === 'delta').length >= 3, 'a snapshot and three deltas');
    expect(seen[0]).toMatchObject({ kind: 'snapshot', symbol: SYMBOL });
    expect(seen[0]!.bids.length).toBeGreaterThan(0);
    expect(seen[0]!.bids[0]).toEqual({ price: expect.any(Number), size: expect.any(Number), orders: expect.any(Number) });
    expect(seen.slice(1).every((u) => u.kind === 'delta' && u.bids.length + u.asks.length > 0)).toBe(true);
    expect(seen.map((u) => u.arrivalNs)).toEqual(stamps);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.arrivalNs >= seen[i - 1]!.arrivalNs).toBe(true);
    expect(seen.every((u) => u.venueTimeMs > 1_700_000_000_000 && u.venueTimeMs < 1e13)).toBe(true);

    const before = seen.length;
    live.market.resyncBook(SYMBOL);
    await until(() => seen.slice(before).some((u) => u.kind === 'snapshot'), 'a snapshot after resyncBook');

    const snapshot = await live.market.bookSnapshot(SYMBOL, 3);
    expect(snapshot).toMatchObject({ kind: 'snapshot', symbol: SYMBOL });
    expect(snapshot.bids.length).toBeLessThanOrEqual(3);
    expect(snapshot.asks.length).toBeLessThanOrEqual(3);
    expect(snapshot.bids[0]!.price).toBeLessThan(snapshot.asks[0]!.price);
  });

  it('the book stream and the account stream report fresh, each with what it feeds', async () => {
    subs.push(live.account.updates$(KEY.publicKey).subscribe((u) => updates.push(u)));
    await until(() => updates.length > 0, 'the account snapshot');
    expect(updates[0]).toMatchObject({ kind: 'snapshot', snapshot: { openOrders: [], positions: [] } });
    await until(() => health.some((h) => h.stream === `account.${KEY.publicKey}` && h.fresh), 'account stream fresh');
    expect(health).toContainEqual({ stream: `l2delta.${SYMBOL}`, feeds: { symbol: SYMBOL }, fresh: true, reason: 'fresh' });
    expect(health).toContainEqual({ stream: `account.${KEY.publicKey}`, feeds: { account: KEY.publicKey }, fresh: true, reason: 'fresh' });
    expect(live.health.stale().size).toBe(0);
    expect(connected.at(-1)).toBe(true);
  });

  it('submits: accepted with one item per order item; openOrders and orderHistory in the vocabulary', async () => {
    const faucet = await live.submitter.submit(signed({ type: 'faucet', user: KEY.publicKey }));
    expect(faucet).toEqual({ outcome: 'accepted', items: [{ kind: 'done' }] });
    const bid = (await live.market.bookSnapshot(SYMBOL, 1)).bids[0]!.price;
    const price = Math.floor((bid * 0.9) / 10) * 10;
    const request = orders(place({ side: 'buy', price, size: 0.01, tif: 'GTC' }));
    const oid = request.encoded.orderIds[0]!;
    expect(await live.submitter.submit(request)).toEqual({
      outcome: 'accepted',
      items: [{ kind: 'order', fact: { orderId: oid, status: 'placed', filledSize: undefined, reason: undefined } }],
    });
    expect(await live.account.openOrders(KEY.publicKey)).toEqual([
      expect.objectContaining({
        orderId: oid,
        symbol: SYMBOL,
        side: 'buy',
        price,
        originalSize: 0.01,
        remainingSize: 0.01,
        filledSize: 0,
        status: 'placed',
        reduceOnly: false,
        tif: 'GTC',
        reason: undefined,
      }),
    ]);
    await until(() => updates.some((u) => u.kind === 'order' && u.order.orderId === oid && u.order.status === 'placed'), 'the order update');

    const cancel = await live.submitter.submit(orders({ kind: 'cancel', symbol: SYMBOL, orderId: oid }, { kind: 'cancel', symbol: SYMBOL, orderId: oid }));
    expect(cancel).toMatchObject({
      outcome: 'accepted',
      items: [
        { kind: 'order', fact: { orderId: oid, status: 'cancelled' } },
        { kind: 'error', message: expect.any(String) },
      ],
    });
    expect(await live.account.openOrders(KEY.publicKey)).toEqual([]);
    expect((await live.account.orderHistory(KEY.publicKey)).find((o) => o.orderId === oid)).toMatchObject({
      orderId: oid,
      symbol: SYMBOL,
      side: 'buy',
      orderType: 'limit',
      tif: 'GTC',
      price,
      originalSize: 0.01,
      filledSize: 0,
      reduceOnly: false,
      status: 'cancelled',
    });
  });

  it("a fill, from the account's side on the stream and by query; the maker's row reads from the maker's side", async () => {
    const ask = (await live.market.bookSnapshot(SYMBOL, 1)).asks[0]!.price;
    const request = orders(place({ side: 'buy', price: Math.ceil((ask * 1.01) / 10) * 10, size: 0.001, tif: 'IOC' }));
    const oid = request.encoded.orderIds[0]!;
    const outcome = await live.submitter.submit(request);
    expect(outcome).toMatchObject({ outcome: 'accepted', items: [{ kind: 'order', fact: { orderId: oid, status: 'filled' } }] });
    const [item] = outcome.outcome === 'accepted' ? outcome.items : [];
    expect(item?.kind === 'order' && item.fact.filledSize).toBeCloseTo(0.001, 10);
    await until(() => updates.some((u) => u.kind === 'fill' && u.fill.orderId === oid), 'the fill on the account stream');
    const streamed = updates.flatMap((u) => (u.kind === 'fill' && u.fill.orderId === oid ? [u.fill] : []));
    expect(streamed.every((f) => f.side === 'buy' && !f.maker && f.cause === 'trade' && f.symbol === SYMBOL && f.feeUsd > 0)).toBe(true);
    expect(streamed.reduce((sum, f) => sum + f.size, 0)).toBeCloseTo(0.001, 10);

    const queried = (await live.account.fills(KEY.publicKey)).filter((f) => f.orderId === oid);
    expect(queried).toHaveLength(streamed.length);
    expect(queried.every((f) => f.side === 'buy' && !f.maker && f.cause === 'trade')).toBe(true);
    expect([...queried].sort((a, b) => a.price - b.price)).toEqual([...streamed].sort((a, b) => a.price - b.price));

    const [row] = (await live.http.account('fills', KEY.publicKey)).map((r) => r.fills).filter((r) => r.orderIdTaker === oid);
    const makerSide = (await live.account.fills(row!.maker)).find((f) => f.orderId === row!.orderIdMaker && f.venueTimeNs === row!.timestamp);
    expect(makerSide).toMatchObject({ side: 'sell', maker: true, orderId: row!.orderIdMaker, feeUsd: row!.makerFee });
  });

  it('rehearse sends and counts nothing', async () => {
    const requests = live.http.stats.requests;
    const messages = live.pool.stats.messages;
    const received = [...updates];
    for (let i = 0; i < 10; i++) live.rehearsal.rehearse();
    expect(live.http.stats.requests).toBe(requests);
    expect(live.pool.stats.messages).toBe(messages);
    expect(updates.slice(0, received.length)).toEqual(received);
  });

  it('a rehearsal skips what ran for real since the last one: the book decode after a book frame, the request bytes after a submit', async () => {
    const decoded: string[] = [];
    const built: string[] = [];
    const { pool, http } = live;
    const decode = pool.warm.bind(pool);
    const build = http.warm.bind(http);
    pool.warm = (topic) => (decoded.push(topic), decode(topic));
    http.warm = (request) => (built.push(request.signature), build(request));
    const books: BookUpdate[] = [];
    const sub = live.market.book$(SYMBOL).subscribe((u) => books.push(u));
    try {
      await live.submitter.submit(signed({ type: 'faucet', user: KEY.publicKey }));
      await until(() => books.length >= 2, 'book frames');
      const seen = () => [decoded.length, built.length];
      live.rehearsal.rehearse();
      const afterRealRun = seen();
      live.rehearsal.rehearse();
      expect([afterRealRun, seen()]).toEqual([
        [0, 0],
        [1, 1],
      ]);
      expect(decoded).toEqual([`l2delta.${SYMBOL}`]);
    } finally {
      sub.unsubscribe();
      pool.warm = decode;
      http.warm = build;
    }
  });

  it('a dropped connection: not connected and every held stream stale with why, then connected, fresh and a new snapshot', async () => {
    const seen: BookUpdate[] = [];
    subs.push(live.market.book$(SYMBOL).subscribe((u) => seen.push(u)));
    const from = health.length;
    const staleSets: ReadonlyMap<string, StreamHealth>[] = [];
    subs.push(live.health.health$.subscribe((h) => h.fresh || staleSets.push(live.health.stale())));
    venue.hub.close();
    await until(() => connected.includes(false), 'not connected');
    await until(() => staleSets.some((s) => s.size === 2), 'both streams stale');
    const lost = { fresh: false, reason: expect.stringMatching(/^connection /) };
    expect(health.slice(from)).toContainEqual({ stream: `l2delta.${SYMBOL}`, feeds: { symbol: SYMBOL }, ...lost });
    expect(health.slice(from)).toContainEqual({ stream: `account.${KEY.publicKey}`, feeds: { account: KEY.publicKey }, ...lost });
    expect([...staleSets.find((s) => s.size === 2)!.values()].map((h) => h.feeds)).toEqual(
      expect.arrayContaining([{ symbol: SYMBOL }, { account: KEY.publicKey }]),
    );

    await until(() => connected.at(-1) === true && live.health.stale().size === 0, 'connected and fresh again', 10_000);
    await until(() => seen.some((u) => u.kind === 'snapshot'), 'a snapshot after reconnecting');
    expect(
      health
        .slice(from)
        .filter((h) => h.fresh)
        .map((h) => h.stream)
        .sort(),
    ).toEqual([`account.${KEY.publicKey}`, `l2delta.${SYMBOL}`]);
    expect(live.pool.stats.invalidFrames).toMatchObject({ binary: 0, malformed: 0, schema: 0, venueError: 0 });
  }, 20_000);

  it('close: not connected any more, and connected$ completes', async () => {
    const other = connectVenue({ url: venue.url, wsUrl: venue.wsUrl, dialect: 'v1', network: 'mainnet' });
    const states: boolean[] = [];
    let completed = false;
    subs.push(other.health.connected$.subscribe({ next: (c) => states.push(c), complete: () => (completed = true) }));
    const book = other.market.book$(SYMBOL).subscribe();
    await until(() => states.at(-1) === true && states.includes(false), 'connecting, then connected');
    other.close();
    book.unsubscribe();
    expect(states).toEqual([true, false, true, false]);
    expect(completed).toBe(true);
  });
});
