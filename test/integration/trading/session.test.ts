import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrading, type TradingSession } from '../../../src/app/trading.js';
import { connectVenue, type LiveVenue } from '../../../src/client/venue.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { MemoryNonceStore } from '../../../src/protocol/nonce.js';
import { Presigner } from '../../../src/protocol/presigner.js';
import { loadStrategies } from '../../../src/strategy/loader.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { FaultProxy } from '../../support/fault-proxy.js';
import { until } from '../../support/until.js';
import { localSession } from '../../support/local-session.js';

let venue: Venue;
let session: TradingSession;
const key = Keypair.generate();

/** The built-in market maker trading `at` (funded and stepped 5 flow rounds) for `trader`. */
async function marketMaker(at: Venue, trader: Keypair, minIntervalMs: number): Promise<TradingSession> {
  for (let i = 0; i < 5; i++) at.step();
  at.engine.faucet(trader.publicKey, 100_000);
  const strategies = await loadStrategies([
    { name: 'mm', module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.001, maxPosition: 0.01, halfSpreadBps: 20, minIntervalMs } },
  ]);
  return localSession(at, {
    key: trader,
    strategies,
  });
}

beforeAll(async () => {
  venue = await startVenue({ seed: 21, flowIntervalMs: 50 });
  session = await marketMaker(venue, key, 50);
});
afterAll(() => venue.close());

const openOrders = () => venue.engine.openOrders(key.publicKey);

describe('trading session against the local venue', () => {
  it('the built-in market maker keeps a bid and an ask resting around the book as it moves', async () => {
    await until(() => openOrders().some((o) => o.isBuy) && openOrders().some((o) => !o.isBuy), 'a bid and an ask', 10_000, 10);
    const book = venue.engine.book('BTC-USD')!;
    const bid = openOrders().find((o) => o.isBuy)!;
    const ask = openOrders().find((o) => !o.isBuy)!;
    expect(bid.price).toBeLessThan(ask.price);
    expect(bid.price).toBeLessThanOrEqual(book.asks[0]!.px);
    expect(session.host.snapshot().map((s) => [s.name, s.state])).toEqual([['mm', 'running']]);
    const before = venue.engine.orderHistory(key.publicKey).length;
    await until(() => venue.engine.orderHistory(key.publicKey).length > before + 2, 'requotes as the market moves', 10_000, 10);
    // Every batch the venue accepted was signed with a precomputed commitment (the default), none deterministically.
    expect(session.signer).toBeInstanceOf(Presigner);
    expect((session.signer as Presigner).deterministicCount).toBe(0);
  });

  it('the kill switch halts: no new orders reach the venue while HALTED, quoting resumes after resume', async () => {
    session.risk.halt('test kill switch');
    expect(session.risk.state).toBe('HALTED');
    await session.execution.whenIdle();
    const ids = () => new Set([...openOrders().map((o) => o.orderId), ...venue.engine.orderHistory(key.publicKey).map((o) => o.orderId)]);
    const seen = ids();
    for (let i = 0; i < 10; i++) venue.step();
    await new Promise((r) => setTimeout(r, 300));
    expect([...ids()].filter((id) => !seen.has(id))).toEqual([]);
    session.risk.resume('test over');
    for (let i = 0; i < 10; i++) venue.step();
    await until(() => [...ids()].some((id) => !seen.has(id)), 'new quotes after resume', 10_000, 10);
  });

  it('stop cancels every order of the bot and waits for the venue to confirm', async () => {
    const report = await session.stop({ deadlineMs: 5000 });
    expect(report.timedOut).toBe(false);
    expect(openOrders()).toEqual([]);
  });
});

describe('the kill switch on a quiet market', () => {
  it('cancels every resting order at once (nothing else would: the market maker requotes only when the book moves)', async () => {
    const quiet = await startVenue({ seed: 22, flowIntervalMs: 3_600_000 });
    const trader = Keypair.generate();
    let s: TradingSession | undefined;
    try {
      s = await marketMaker(quiet, trader, 0);
      const resting = () => quiet.engine.openOrders(trader.publicKey);
      await until(() => resting().length >= 2, 'a bid and an ask resting', 10_000, 10);
      s.risk.halt('test kill switch');
      await until(() => resting().length === 0, 'the kill to cancel every resting order', 3_000, 5);
    } finally {
      await s?.stop({ deadlineMs: 3000 });
      await quiet.close();
    }
  });
});

describe('a halt by disconnection', () => {
  it('cancels every resting order over HTTP while the WebSocket streams are down', async () => {
    const quiet = await startVenue({ seed: 23, flowIntervalMs: 3_600_000 });
    const proxy = await FaultProxy.start(quiet.port);
    const trader = Keypair.generate();
    let s: TradingSession<LiveVenue> | undefined;
    try {
      for (let i = 0; i < 5; i++) quiet.step();
      quiet.engine.faucet(trader.publicKey, 100_000);
      const strategies = await loadStrategies([
        { name: 'mm', module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.001, maxPosition: 0.01, halfSpreadBps: 20, minIntervalMs: 0 } },
      ]);
      s = await startTrading({
        venue: connectVenue({ url: proxy.via(quiet.url), wsUrl: proxy.via(quiet.wsUrl), dialect: 'v1', network: 'mainnet' }),
        dialect: 'v1',
        network: 'mainnet',
        key: trader,
        nonceStore: new MemoryNonceStore(),
        strategies,
        risk: { disconnectGraceMs: 500 },
      });
      const resting = () => quiet.engine.openOrders(trader.publicKey);
      await until(() => resting().length >= 2, 'a bid and an ask resting', 10_000, 10);
      proxy.setWs({ kind: 'down' });
      let reason: string | undefined;
      const seen = s.risk.state$.subscribe((c) => {
        if (c.state === 'HALTED') reason = c.reason;
      });
      await until(() => reason !== undefined, 'the halt after the grace', 10_000, 10);
      seen.unsubscribe();
      expect(reason).toMatch(/connection lost/);
      await until(() => resting().length === 0, 'the halt to cancel every resting order over HTTP', 5_000, 5);
    } finally {
      proxy.heal();
      await s?.stop({ deadlineMs: 3000 });
      await proxy.close();
      await quiet.close();
    }
  });
});

describe('a session that fails to start', () => {
  it('closes what it opened (WebSocket connections, HTTP sockets, its signing worker) and rethrows', async () => {
    const strategies = await loadStrategies([{ name: 'mm', module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.001, maxPosition: 0.01 } }]);
    // The session stopped by the test before closes its connections asynchronously; count from none.
    await until(() => venue.hub.stats.connections === 0, 'the earlier session’s WebSocket connections to close', 10_000, 10);
    const before = venue.hub.stats.connections;
    const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    const socketsBefore = sockets();
    const started = localSession(venue, {
      key: Keypair.generate(),
      strategies,
      beforeStart: () => {
        // The account and book streams are subscribed by now; their connection may still be opening.
        throw new Error('refused by the test');
      },
    });
    await expect(started).rejects.toThrow('refused by the test');
    await until(() => venue.hub.stats.connections === before, 'the session’s WebSocket connections to close', 10_000, 10);
    // Both ends live in this process (the venue is in process): back to the count before means both are closed.
    await until(() => sockets() === socketsBefore, 'the session’s HTTP sockets to close', 10_000, 10);
  });
});

describe('a session with keep-warm', () => {
  it('dry-runs the hot path every keepWarmMs while quoting, and sends, signs and orders nothing of its own', async () => {
    const k = Keypair.generate();
    venue.engine.faucet(k.publicKey, 100_000);
    const strategies = await loadStrategies([
      { name: 'mm', module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.001, maxPosition: 0.01, halfSpreadBps: 20, minIntervalMs: 50 } },
    ]);
    let batches = 0;
    let places = 0;
    const warmSession = await localSession(venue, {
      key: k,
      strategies,
      keepWarmMs: 1,
      wrapSubmitter: (inner) => ({
        submit: (request, hooks) => {
          batches++;
          places += (JSON.parse(request.bodyText) as { action: { orders: object[] } }).action.orders.filter((o) => 'order' in o).length;
          return inner.submit(request, hooks);
        },
      }),
    });
    const signer = warmSession.signer as Presigner;
    let warmed = 0;
    const warm = signer.warm.bind(signer);
    signer.warm = (message) => (warmed++, warm(message));
    await until(() => batches >= 3 && warmed >= 50, 'requotes and dry runs', 10_000, 10);
    const report = await warmSession.stop({ deadlineMs: 5000 });
    expect(report.timedOut).toBe(false);
    // Every signature from a commitment belongs to a batch the session submitted; every order the venue has, to a place in one.
    expect(signer.precomputedCount + signer.deterministicCount).toBe(batches);
    expect(venue.engine.orderHistory(k.publicKey).length + venue.engine.openOrders(k.publicKey).length).toBe(places);
    expect(
      warmSession.venue.http.stats.outcomes.accepted + warmSession.venue.http.stats.outcomes.rejected + warmSession.venue.http.stats.outcomes.unknown,
    ).toBe(batches);
  });

  it('refuses a keepWarmMs between 0 and 1 ms', async () => {
    const strategies = await loadStrategies([{ name: 'mm', module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.001, maxPosition: 0.01 } }]);
    const started = localSession(venue, {
      key: Keypair.generate(),
      strategies,
      keepWarmMs: 0.5,
    });
    await expect(started).rejects.toThrow('keepWarmMs must be 0 (off) or a number >= 1, got 0.5');
  });

  it('refuses a strategy market the venue does not list (INVALID_INPUT)', async () => {
    const strategies = await loadStrategies([{ name: 'mm', module: 'market-maker', params: { symbol: 'DOGE-USD', size: 1, maxPosition: 10 } }]);
    const started = localSession(venue, {
      key: Keypair.generate(),
      strategies,
    });
    await expect(started).rejects.toMatchObject({ code: 'INVALID_INPUT', message: 'strategies: the venue lists no market DOGE-USD' });
  });
});
