import { afterEach, describe, expect, it } from 'vitest';
import type { Subscription } from 'rxjs';
import { AccountStreams } from '../../../src/account/account.js';
import type { AccountState } from '../../../src/account/state.js';
import { HttpClient } from '../../../src/client/http.js';
import { liveVenueOf, type LiveVenue } from '../../../src/client/venue.js';
import { WsPool } from '../../../src/client/ws-pool.js';
import type { Fill, VenueOrder } from '../../../src/core/account-data.js';
import type { Logger } from '../../../src/core/logger.js';
import type { BookView, L2Book } from '../../../src/market/book.js';
import { MarketStreams } from '../../../src/market/market.js';
import { bookUpdateOf } from '../../../src/protocol/vocabulary.js';
import { key, LoopbackVenue } from '../../support/loopback-venue.js';
import { until } from '../../support/until.js';

const SYMBOL = 'BTC-USD';
const USER = key(0x11);
const OTHER = key(0x22);

interface Rig {
  venue: LoopbackVenue;
  live: LiveVenue;
  market: MarketStreams;
  accounts: AccountStreams;
  warnings: { fields: object; message: string }[];
}

const rigs: Rig[] = [];
const subs: Subscription[] = [];

afterEach(async () => {
  for (const s of subs.splice(0)) s.unsubscribe();
  for (const r of rigs.splice(0)) {
    r.live.close();
    await r.venue.close();
  }
});

async function rig(opts: { staleMs?: number; crossCheckMs?: number; idleMs?: number } = {}): Promise<Rig> {
  const venue = await LoopbackVenue.start();
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
  const warnings: Rig['warnings'] = [];
  const logger: Logger = { warn: (fields, message) => warnings.push({ fields, message }), info: () => undefined };
  const backoff = { initialMs: 20, maxMs: 100 };
  const pool = new WsPool({
    url: venue.wsUrl,
    backoff,
    logger,
    idleTimeoutMs: opts.idleMs ?? 45_000,
    staleAfterMs: (topic) => (topic.startsWith('l2delta.') ? opts.staleMs : undefined),
  });
  const http = new HttpClient({ baseUrl: venue.httpUrl, timeoutMs: 300, readRetries: 1, backoff: { initialMs: 10, maxMs: 20 } });
  const live = liveVenueOf({ http, pool, dialect: 'v1', network: 'mainnet', logger });
  const market = new MarketStreams({ source: live.market, crossCheckMs: opts.crossCheckMs ?? 60_000, checkDepth: 50 });
  const accounts = new AccountStreams({ source: live.account, backoff: { initialMs: 20, maxMs: 100 }, logger });
  const r = { venue, live, market, accounts, warnings };
  rigs.push(r);
  return r;
}

function watchBook(r: Rig): { book: BookView | undefined } {
  const seen: { book: BookView | undefined } = { book: undefined };
  subs.push(r.market.book$(SYMBOL).subscribe((b) => (seen.book = b)));
  return seen;
}

function converged(r: Rig, seen: { book: BookView | undefined }): boolean {
  const b = seen.book as L2Book | undefined;
  return !!b && b.matches(bookUpdateOf(r.venue.wireBook(SYMBOL), 0n));
}

function opens(r: Rig): number {
  return r.live.pool.stats.opens;
}

describe('book$ against a loopback venue', () => {
  it('builds the book from snapshot then deltas, and unsubscribes the topic when the last subscriber leaves', async () => {
    const r = await rig();
    const seen = watchBook(r);
    await until(() => converged(r, seen), 'initial snapshot');
    r.venue.setLevel(SYMBOL, 'bid', 100, 0);
    r.venue.setLevel(SYMBOL, 'ask', 100.5, 4);
    r.venue.setLevel(SYMBOL, 'bid', 99.5, 7);
    await until(() => converged(r, seen) && seen.book!.bestAsk()?.price === 100.5, 'deltas applied');
    expect(seen.book!.bestBid()).toEqual({ price: 99.5, size: 7, orders: 0 });
    expect(r.venue.topics()).toEqual([`l2delta.${SYMBOL}`]);
    subs.pop()!.unsubscribe();
    await until(() => r.venue.topics().length === 0, 'venue unsubscribed');
  });

  it('converges after the venue closes the socket mid-stream (changes made while disconnected included)', async () => {
    const r = await rig();
    const seen = watchBook(r);
    await until(() => converged(r, seen), 'initial snapshot');
    r.venue.dropConnections();
    r.venue.setLevel(SYMBOL, 'ask', 101, 0);
    r.venue.setLevel(SYMBOL, 'ask', 103, 9);
    await until(() => opens(r) >= 2 && converged(r, seen), 'reconnected and converged');
    expect(seen.book!.bestAsk()?.price).toBe(102);
  });

  it('subscribes a silent topic again and converges once the venue speaks again', async () => {
    const r = await rig({ staleMs: 100 });
    const seen = watchBook(r);
    await until(() => converged(r, seen), 'initial snapshot');
    r.venue.silent = true;
    r.venue.setLevel(SYMBOL, 'bid', 97, 5);
    r.venue.setLevel(SYMBOL, 'bid', 100, 0);
    await until(() => r.live.pool.stats.staleResubscribes >= 1, 'stale resubscribe');
    expect(converged(r, seen)).toBe(false);
    r.venue.silent = false;
    await until(() => converged(r, seen), 'converged after silence');
    expect(opens(r)).toBe(1);
  });

  it('drops a connection on which nothing at all arrives and reconnects', async () => {
    const r = await rig({ idleMs: 150 });
    const seen = watchBook(r);
    await until(() => converged(r, seen), 'initial snapshot');
    await until(() => r.live.pool.stats.idleDrops >= 1 && opens(r) >= 2, 'idle drop and reconnect');
    r.venue.setLevel(SYMBOL, 'bid', 96, 1);
    await until(() => converged(r, seen), 'converged after reconnect');
  });

  it('counts garbage per kind, logs each kind once, and keeps the book', async () => {
    const r = await rig();
    const seen = watchBook(r);
    await until(() => converged(r, seen), 'initial snapshot');
    for (let i = 0; i < 2; i++) {
      r.venue.sendRaw('not json {');
      r.venue.sendRaw(Buffer.from([1, 2, 3]));
      r.venue.sendRaw(JSON.stringify({ type: 'l2Delta', data: { book: { updateType: 'delta' } }, topic: `l2delta.${SYMBOL}` }));
      r.venue.sendRaw(JSON.stringify({ type: 'ticker', data: { ticker: {} }, topic: 'ticker.ETH-USD' }));
    }
    r.venue.setLevel(SYMBOL, 'ask', 101, 3);
    await until(() => converged(r, seen) && seen.book!.bestAsk()?.size === 3, 'delta after garbage');
    const frames = r.live.pool.stats.invalidFrames;
    expect(frames).toMatchObject({ malformed: 2, binary: 2, schema: 4 });
    const kinds = r.warnings.map((w) => (w.fields as { kind?: string }).kind).filter(Boolean);
    expect(kinds.sort()).toEqual(['binary', 'malformed', 'schema']);
  });

  it('converges to a different book after the venue restarts', async () => {
    const r = await rig();
    const seen = watchBook(r);
    await until(() => converged(r, seen), 'initial snapshot');
    await r.venue.restart(() =>
      r.venue.setBook(
        SYMBOL,
        [[50, 1]],
        [
          [51, 1],
          [52, 1],
        ],
      ),
    );
    await until(() => converged(r, seen), 'converged to the new book');
    expect(seen.book!.bestBid()?.price).toBe(50);
  });

  it('rebuilds when the cross-check keeps disagreeing, and ignores an HTTP 500 cross-check', async () => {
    const r = await rig({ crossCheckMs: 40 });
    const seen = watchBook(r);
    await until(() => converged(r, seen), 'initial snapshot');
    r.venue.httpMode = 'error500';
    await until(() => (r.venue.requests.get('/l2book') ?? 0) >= 4, 'failing cross-checks');
    expect(r.market.bookStats(SYMBOL)!.rebuilds.mismatch).toBe(0);
    r.venue.httpMode = 'ok';
    r.venue.setBook(
      SYMBOL,
      [
        [100, 1],
        [99, 2],
      ],
      [[101, 5]],
    );
    await until(() => converged(r, seen), 'rebuilt after mismatch');
    expect(r.market.bookStats(SYMBOL)!.rebuilds.mismatch).toBeGreaterThanOrEqual(1);
  });

  it('gives a slow subscriber conflated books without holding up the socket', async () => {
    const r = await rig();
    let deliveries = 0;
    let latest: BookView | undefined;
    subs.push(
      r.market.book$(SYMBOL).subscribe((b) => {
        deliveries++;
        latest = b;
        const busyUntil = performance.now() + 5;
        while (performance.now() < busyUntil);
      }),
    );
    await until(() => converged(r, { book: latest }), 'initial snapshot');
    for (let i = 0; i < 2_000; i++) r.venue.setLevel(SYMBOL, i % 2 ? 'bid' : 'ask', i % 2 ? 90 - (i % 7) : 110 + (i % 7), 1 + (i % 5));
    await until(() => converged(r, { book: latest }) && latest!.version === 2_001, 'all deltas applied');
    expect(deliveries).toBeLessThan(200);
    expect(opens(r)).toBe(1);
  });

  it('rebuilds a crossed book from a fresh snapshot', async () => {
    const r = await rig();
    const seen = watchBook(r);
    await until(() => converged(r, seen), 'initial snapshot');
    const crossing = { updateType: 'delta', symbol: SYMBOL, levels: [[{ px: 105, sz: 1, n: 0 }], []], timestamp: 1 };
    r.venue.sendRaw(JSON.stringify({ type: 'l2Delta', data: { book: crossing }, topic: `l2delta.${SYMBOL}` }));
    await until(() => r.market.bookStats(SYMBOL)!.rebuilds.crossed === 1, 'crossed detected');
    await until(() => converged(r, seen) && !seen.book!.isCrossed(), 'rebuilt');
  });
});

describe('account streams against a loopback venue', () => {
  function watchAccount(r: Rig) {
    const seen = { state: undefined as AccountState | undefined, orders: [] as VenueOrder[], fills: [] as Fill[] };
    subs.push(r.accounts.state$(USER).subscribe((s) => (seen.state = s)));
    subs.push(r.accounts.orderUpdates$(USER).subscribe((u) => seen.orders.push(u)));
    subs.push(r.accounts.fills$(USER).subscribe((f) => seen.fills.push(f)));
    return seen;
  }

  function accountConverged(r: Rig, state: AccountState | undefined): boolean {
    if (!state) return false;
    const venue = r.venue.account(USER);
    if (state.orders.size !== venue.orders.size) return false;
    for (const [id, o] of venue.orders) {
      const mine = state.orders.get(id);
      if (!mine || mine.status !== o.status || mine.filledSize !== o.filledSize) return false;
    }
    return true;
  }

  it('recovers what happened while disconnected, each event once, even when the HTTP re-read first hangs or fails', async () => {
    const r = await rig();
    const a = key(0xa1);
    const b = key(0xa2);
    const c = key(0xa3);
    r.venue.placeOrder(USER, a, SYMBOL, true, 100, 2);
    const seen = watchAccount(r);
    await until(() => accountConverged(r, seen.state) && (r.venue.requests.get('/account') ?? 0) >= 2, 'snapshot and baseline');
    r.venue.placeOrder(USER, b, SYMBOL, false, 110, 1);
    r.venue.fillOrder(USER, b, 0.5, OTHER);
    await until(() => accountConverged(r, seen.state) && seen.fills.length === 1, 'live updates');

    r.venue.httpMode = 'hang';
    r.venue.dropConnections();
    r.venue.fillOrder(USER, a, 1, OTHER);
    r.venue.cancelOrder(USER, a);
    r.venue.placeOrder(USER, c, SYMBOL, true, 95, 1);
    r.venue.fillOrder(USER, b, 0.5, OTHER);
    await until(() => accountConverged(r, seen.state), 'state after reconnect');
    r.venue.httpMode = 'error500';
    await until(() => (r.venue.requests.get('/account') ?? 0) >= 6, 'failing re-reads');
    r.venue.httpMode = 'ok';
    await until(() => seen.fills.length === 3, 'missed fills recovered');

    expect(seen.fills.map((f) => [f.orderId, f.size])).toEqual([
      [b, 0.5],
      [a, 1],
      [b, 0.5],
    ]);
    const statuses = seen.orders.map((u) => `${u.orderId === a ? 'a' : u.orderId === b ? 'b' : 'c'}:${u.status}:${u.filledSize}`);
    expect(statuses).toEqual(['b:placed:0', 'b:working:0.5', 'a:cancelled:1', 'c:placed:0', 'b:filled:1']);
    expect([...seen.state!.orders.keys()]).toEqual([c]);
  });
});
