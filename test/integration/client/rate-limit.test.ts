import { afterEach, describe, expect, it } from 'vitest';
import { startTrading, type TradingSession } from '../../../src/app/trading.js';
import { HttpClient } from '../../../src/client/http.js';
import { connectVenue, type LiveVenue } from '../../../src/client/venue.js';
import { codecFor } from '../../../src/protocol/codecs.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { MemoryNonceStore } from '../../../src/protocol/nonce.js';
import { signRequest } from '../../../src/protocol/sign.js';
import { loadStrategies } from '../../../src/strategy/loader.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { until } from '../../support/until.js';

let venue: Venue | undefined;
let http: HttpClient | undefined;
let session: TradingSession<LiveVenue> | undefined;

afterEach(async () => {
  await session?.stop({ deadlineMs: 5_000 });
  session = undefined;
  http?.close();
  await venue?.close();
});

const KEY = Keypair.generate();
let nonce = BigInt(Date.now()) * 1_000_000n;

function signed(action: unknown) {
  return signRequest(codecFor('v1'), KEY, { actions: action, account: KEY.publicKey, signer: KEY.publicKey, nonce: nonce++, network: 'mainnet', mode: 'raw' });
}

function order(price: number) {
  return signed({ type: 'order', orders: [{ order: { c: 'BTC-USD', b: true, px: price, sz: 0.01, r: false, t: { limit: { tif: 'GTC' } } } }] });
}

describe('HTTP 429 is back-pressure', () => {
  it('a rate-limited action waits out Retry-After and goes through; cancels waiting with it go first; 429s are counted', async () => {
    venue = await startVenue({ port: 0, rateLimit: { perSecond: 1, burst: 2 } });
    for (let i = 0; i < 5; i++) venue.step();
    venue.engine.faucet(KEY.publicKey, 100_000);
    http = new HttpClient({ baseUrl: venue.url });
    const [bid] = venue.engine.book('BTC-USD')!.bids;
    const price = Math.floor((bid!.px * 0.8) / 10) * 10;
    const first = order(price);
    expect((await http.submit(first)).outcome).toBe('accepted');
    const oid = first.encoded.orderIds[0]!;
    // The venue's bucket is empty after this one: the next two are answered 429 (Retry-After: 1).
    expect((await http.submit(order(price - 10))).outcome).toBe('accepted');
    const startedMs = Date.now();
    const place = http.submit(order(price - 20));
    const cancel = http.submit(signed({ type: 'order', orders: [{ cancel: { c: 'BTC-USD', oid } }] }));
    const [placed, cancelled] = await Promise.all([place, cancel]);
    expect(placed.outcome).toBe('accepted');
    expect(cancelled.outcome).toBe('accepted');
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(950);
    expect(http.stats.rateLimited).toBeGreaterThanOrEqual(1);
    const history = venue.engine.orderHistory(KEY.publicKey);
    const cancelledAt = history.find((o) => o.orderId === oid)!.timestamp;
    const newest = venue.engine.openOrders(KEY.publicKey).find((o) => o.price === price - 20)!;
    expect(cancelledAt).toBeLessThanOrEqual(newest.timestamp);
  });

  it('a session quoting against a rate-limited venue keeps trading (no halt) and keeps its quotes', async () => {
    venue = await startVenue({ port: 0, seed: 5, flowIntervalMs: 20, rateLimit: { perSecond: 5, burst: 5 } });
    for (let i = 0; i < 5; i++) venue.step();
    const key = Keypair.generate();
    venue.engine.faucet(key.publicKey, 100_000);
    const strategies = await loadStrategies([
      { name: 'mm', module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.001, maxPosition: 0.01, halfSpreadBps: 5, minIntervalMs: 100 } },
    ]);
    const live = connectVenue({ url: venue.url, wsUrl: venue.wsUrl, dialect: 'v1', network: 'mainnet' });
    session = await startTrading({ venue: live, dialect: 'v1', network: 'mainnet', key, nonceStore: new MemoryNonceStore(), strategies });
    await until(() => session!.venue.http.stats.rateLimited >= 12, '12 answers 429', 30_000);
    expect(session.risk.state).toBe('ACTIVE');
    const open = () => venue!.engine.openOrders(key.publicKey);
    await until(() => open().some((o) => o.isBuy) && open().some((o) => !o.isBuy), 'a bid and an ask resting', 20_000);
  }, 60_000);
});
