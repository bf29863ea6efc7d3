import type { Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { AccountStreams } from '../../../src/account/account.js';
import type { AccountState } from '../../../src/account/state.js';
import { cancelAction, placeAction, signAction } from '../../../src/app/commands/actions.js';
import { HttpClient } from '../../../src/client/http.js';
import { liveVenueOf, type LiveVenue } from '../../../src/client/venue.js';
import { WsPool } from '../../../src/client/ws-pool.js';
import type { Fill, VenueOrder } from '../../../src/core/account-data.js';
import type { OrderSpec } from '../../../src/core/intent.js';
import type { BookView, L2Book } from '../../../src/market/book.js';
import { MarketStreams } from '../../../src/market/market.js';
import { Keypair } from '../../../src/protocol/keys.js';
import type { SignedRequest } from '../../../src/protocol/sign.js';
import { bookUpdateOf } from '../../../src/protocol/vocabulary.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { key, LoopbackVenue } from '../../support/loopback-venue.js';
import { until } from '../../support/until.js';

const SYMBOL = 'BTC-USD';

interface Rig {
  venue: Venue;
  live: LiveVenue;
  user: Keypair;
  /** Holds the book's other resting orders. */
  other: Keypair;
  /** Takes liquidity (another account than the resting orders', so no self-trade). */
  taker: Keypair;
}

let rig: Rig | undefined;
let loopback: LoopbackVenue | undefined;
const subs: Subscription[] = [];
let nonce = BigInt(Date.now()) * 1_000_000n;

afterEach(async () => {
  for (const s of subs.splice(0)) s.unsubscribe();
  rig?.live.close();
  await rig?.venue.close();
  await loopback?.close();
  rig = undefined;
  loopback = undefined;
});

/** The local venue speaking the current generation, with a book and two funded accounts; the client in `current`. */
async function start(): Promise<Rig> {
  const venue = await startVenue({ flow: false, dialect: 'current', network: 'mainnet', verifyOnWorker: false });
  const [user, other, taker] = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
  for (const k of [user, other, taker]) venue.engine.faucet(k.publicKey, 10_000);
  const pool = new WsPool({ url: venue.wsUrl, dialect: 'current', backoff: { initialMs: 20, maxMs: 100 } });
  const http = new HttpClient({ baseUrl: venue.url, dialect: 'current', timeoutMs: 2000, readRetries: 1, backoff: { initialMs: 10, maxMs: 20 } });
  rig = { venue, live: liveVenueOf({ http, pool, dialect: 'current', network: 'mainnet' }), user, other, taker };
  for (const [side, price, size] of [
    ['buy', 100, 1],
    ['buy', 99, 2],
    ['sell', 101, 1],
    ['sell', 102, 2],
  ] as const)
    await order(other, { symbol: SYMBOL, side, price, size, tif: 'GTC', reduceOnly: false });
  return rig;
}

function send(k: Keypair, actions: unknown): Promise<SignedRequest> {
  const request = signAction('current', 'mainnet', k, nonce++, actions);
  return rig!.live.http.submit(request).then((o) => {
    expect(o.outcome).toBe('accepted');
    return request;
  });
}

async function order(k: Keypair, spec: OrderSpec): Promise<string> {
  return (await send(k, placeAction('current', spec, undefined))).encoded.orderIds[0]!;
}

function watchAccount(accounts: AccountStreams, user: string) {
  const seen = { state: undefined as AccountState | undefined, orders: [] as VenueOrder[], fills: [] as Fill[] };
  subs.push(accounts.state$(user).subscribe((s) => (seen.state = s)));
  subs.push(accounts.orderUpdates$(user).subscribe((u) => seen.orders.push(u)));
  subs.push(accounts.fills$(user).subscribe((f) => seen.fills.push(f)));
  return seen;
}

/** The client's state equals the venue's: same open orders (side, sizes), positions and balance. */
function accountConverged(venue: Venue, user: string, state: AccountState | undefined): boolean {
  if (!state) return false;
  const open = venue.engine.openOrders(user);
  const positions = venue.engine.positionDetails(user);
  if (state.orders.size !== open.length || state.positions.size !== positions.length) return false;
  for (const o of open) {
    const mine = state.orders.get(o.orderId);
    if (!mine || mine.side !== (o.isBuy ? 'buy' : 'sell') || mine.remainingSize !== o.size || mine.filledSize !== o.filledSize) return false;
  }
  for (const p of positions) if (state.positions.get(p.symbol)?.size !== p.size) return false;
  // Collateral comes with the snapshot; marginUpdate (fees since) moves the margin's balance.
  return (state.margin?.totalBalanceUsd ?? state.collateral.get('USDC')) === venue.engine.marginSummary(user).totalBalance;
}

describe('the client against the local venue speaking the current generation', () => {
  it('book$ converges: snapshot, deltas, and a cross-check against /l2book that agrees', async () => {
    const { venue, live, other } = await start();
    const market = new MarketStreams({ source: live.market, crossCheckMs: 30, checkDepth: 50 });
    const seen: { book: BookView | undefined } = { book: undefined };
    subs.push(market.book$(SYMBOL).subscribe((b) => (seen.book = b)));
    const converged = async () => !!seen.book && (seen.book as L2Book).matches(bookUpdateOf(await live.http.l2book(SYMBOL), 0n));
    await until(converged, 'initial snapshot');
    const bid = venue.engine.openOrders(other.publicKey).find((o) => o.price === 100)!;
    await send(other, cancelAction('current', SYMBOL, bid.orderId));
    await order(other, { symbol: SYMBOL, side: 'sell', price: 100.5, size: 4, tif: 'GTC', reduceOnly: false });
    await order(other, { symbol: SYMBOL, side: 'buy', price: 99.5, size: 7, tif: 'GTC', reduceOnly: false });
    await until(async () => (await converged()) && seen.book!.bestAsk()?.price === 100.5, 'deltas applied');
    const stats = market.bookStats(SYMBOL)!;
    const checks = stats.checks;
    await until(() => stats.checks >= checks + 2, 'cross-checks after the deltas');
    expect(stats.rebuilds).toEqual({ crossed: 0, mismatch: 0 });
    expect(seen.book!.bestBid()).toEqual({ price: 99.5, size: 7, orders: 1 });
    expect(live.pool.stats.invalidFrames.schema).toBe(0);
  });

  it('account.state$ converges from the current snapshot and compact updates; order updates and fills in the vocabulary', async () => {
    const { venue, live, user, taker } = await start();
    const a = await order(user, { symbol: SYMBOL, side: 'sell', price: 103, size: 2, tif: 'ALO', reduceOnly: false });
    await order(user, { symbol: SYMBOL, side: 'buy', size: 0.5, tif: 'IOC', reduceOnly: false });
    const seen = watchAccount(new AccountStreams({ source: live.account }), user.publicKey);
    await until(() => accountConverged(venue, user.publicKey, seen.state) && seen.state!.margin !== undefined, 'snapshot');
    expect(seen.state!.orders.get(a)).toMatchObject({
      side: 'sell',
      originalSize: 2,
      remainingSize: 2,
      filledSize: 0,
      status: 'placed',
      tif: 'ALO',
      reduceOnly: false,
    });
    expect(seen.state!.positions.get(SYMBOL)).toMatchObject({ size: 0.5, entryPrice: 101 });
    expect(seen.state!.positions.get(SYMBOL)?.unrealizedPnlUsd).toBeDefined();
    expect(seen.state!.leverage.get(SYMBOL)).toBe(venue.engine.fullAccount(user.publicKey).settings.maxLeverage.find(([s]) => s === SYMBOL)![1]);

    const b = await order(user, { symbol: SYMBOL, side: 'buy', price: 98, size: 1, tif: 'GTC', reduceOnly: false });
    await order(taker, { symbol: SYMBOL, side: 'sell', size: 4, tif: 'IOC', reduceOnly: false });
    await send(user, cancelAction('current', SYMBOL, a));
    await until(() => accountConverged(venue, user.publicKey, seen.state) && seen.orders.length === 3, 'live updates');
    expect(seen.state!.orders.size).toBe(0);
    expect(seen.state!.positions.get(SYMBOL)?.size).toBe(1.5);
    expect(seen.orders.map((u) => [u.orderId === a ? 'a' : 'b', u.status, u.side, u.filledSize])).toEqual([
      ['b', 'placed', 'buy', 0],
      ['b', 'filled', 'buy', 1],
      ['a', 'cancelled', 'sell', 0],
    ]);
    expect(seen.fills.map((f) => [f.orderId, f.size, f.side, f.maker])).toEqual([[b, 1, 'buy', true]]);
    expect(seen.fills[0]!.venueTimeNs).toBeGreaterThan(1_770_000_000_000_000_000n);
    expect(live.pool.stats.invalidFrames.schema).toBe(0);
  });

  it('recovers what happened while disconnected through the current /account rows, each event once', async () => {
    const { venue, live, user, taker } = await start();
    const a = await order(user, { symbol: SYMBOL, side: 'buy', price: 98, size: 2, tif: 'GTC', reduceOnly: false });
    // Counts the reconciliation's answered reads: the first fills and order history after the snapshot set the baseline.
    const reads = { fills: 0, history: 0 };
    const source: typeof live.account = Object.create(live.account);
    source.fills = async (u) => {
      const r = await live.account.fills(u);
      reads.fills++;
      return r;
    };
    source.orderHistory = async (u) => {
      const r = await live.account.orderHistory(u);
      reads.history++;
      return r;
    };
    const seen = watchAccount(new AccountStreams({ source, backoff: { initialMs: 20, maxMs: 100 } }), user.publicKey);
    await until(() => accountConverged(venue, user.publicKey, seen.state) && reads.fills >= 1 && reads.history >= 1, 'snapshot and baseline');
    const hub = venue.hub as unknown as { clients: Set<{ ws: { terminate(): void } }> };
    for (const c of hub.clients) c.ws.terminate();
    await order(taker, { symbol: SYMBOL, side: 'sell', price: 98, size: 5, tif: 'IOC', reduceOnly: false });
    const b = await order(user, { symbol: SYMBOL, side: 'sell', price: 110, size: 1, tif: 'GTC', reduceOnly: false });
    await until(() => accountConverged(venue, user.publicKey, seen.state) && seen.fills.length === 1 && seen.orders.length === 2, 'reconciled');
    expect(seen.fills.map((f) => [f.orderId, f.size, f.maker])).toEqual([[a, 2, true]]);
    expect(seen.orders.map((u) => [u.orderId === a ? 'a' : u.orderId === b ? 'b' : '?', u.status, u.filledSize])).toEqual([
      ['a', 'filled', 2],
      ['b', 'placed', 0],
    ]);
    expect(live.pool.stats.opens).toBe(2);
  });

  it('HttpClient and the venue adapter read the current rows into the model: fullAccount, openOrders, exchangeInfo', async () => {
    const { venue, live, user } = await start();
    const oid = await order(user, { symbol: SYMBOL, side: 'sell', price: 103, size: 2, tif: 'ALO', reduceOnly: false });
    const [full] = await live.http.account('fullAccount', user.publicKey);
    expect(full!.fullAccount).toMatchObject({ marginSummary: { positions: [{ coin: 'USDC', size: 10_000 }] } });
    const [open] = await live.http.account('openOrders', user.publicKey);
    expect(open!.openOrder).toMatchObject({ isBuy: false, size: 2, tif: 'alo', status: 'placed' });
    expect(await live.account.openOrders(user.publicKey)).toEqual([
      expect.objectContaining({ orderId: oid, side: 'sell', originalSize: 2, remainingSize: 2, status: 'placed', tif: 'ALO' }),
    ]);
    const btc = venue.engine.marketInfo(SYMBOL)!;
    expect((await live.markets()).find((m) => m.symbol === SYMBOL)).toEqual({
      symbol: SYMBOL,
      tickSizeUsd: btc.tickSize,
      lotSizeBase: btc.lotSize,
      minNotionalUsd: btc.minNotional,
      maxLeverage: btc.maxLeverage,
    });
  });

  it("reads the venue's other spellings of an answer (cancelledIoc with a signed size, triggered) into the model", async () => {
    const oid = key(0xa1);
    const body = JSON.stringify({
      status: 'ok',
      response: { type: 'order', data: { statuses: [{ cancelledIoc: { oid, filledSz: -0.4 } }, { triggered: { oid } }] } },
    });
    loopback = await LoopbackVenue.start({ onAction: () => ({ status: 200, body }) });
    const http = new HttpClient({ baseUrl: loopback.httpUrl, dialect: 'current', timeoutMs: 2000 });
    const live = liveVenueOf({ http, pool: new WsPool({ url: loopback.wsUrl, dialect: 'current' }), dialect: 'current', network: 'mainnet' });
    subs.push({ unsubscribe: () => live.close() } as Subscription);
    const request = { encoded: { path: '/order' }, bodyText: '{"actions":[{"cxa":{"c":[]}}]}' } as SignedRequest;
    const outcome = await http.submit(request);
    expect(outcome.outcome === 'accepted' && outcome.response.response.data.statuses).toEqual([
      { cancelledIOC: { oid, filledSz: 0.4 } },
      { triggered: { oid } },
    ]);
    expect(await live.submitter.submit(request)).toEqual({
      outcome: 'accepted',
      items: [
        { kind: 'order', fact: { orderId: oid, status: 'cancelledIOC', filledSize: 0.4, reason: undefined } },
        { kind: 'order', fact: { orderId: oid, status: 'placed', filledSize: undefined, reason: undefined, parked: false } },
      ],
    });
  });
});
