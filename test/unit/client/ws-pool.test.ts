import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Subscription } from 'rxjs';
import type { ConnectionState } from '../../../src/client/ws-connection.js';
import { WsPool, type TopicHealth } from '../../../src/client/ws-pool.js';
import { subscriptionOfTopic } from '../../../src/client/topics.js';
import type { StreamMessage } from '../../../src/protocol/v1/stream.js';
import { key, LoopbackVenue } from '../../support/loopback-venue.js';
import { until } from '../../support/until.js';
import { TICKER_NUMBERS } from '../protocol/v1/rows.js';

let venue: LoopbackVenue | undefined;
let pool: WsPool | undefined;
const subs: Subscription[] = [];

afterEach(async () => {
  for (const s of subs.splice(0)) s.unsubscribe();
  pool?.close();
  await venue?.close();
});

const ticker = (symbol: string) => ({ type: 'ticker' as const, symbol });

describe('WsConnection and WsPool', () => {
  it('exposes connecting → open → backingOff → connecting → open as an observable and resubscribes after reconnect', async () => {
    venue = await LoopbackVenue.start();
    pool = new WsPool({ url: venue.wsUrl, backoff: { initialMs: 10, maxMs: 20 }, random: () => 0.5 });
    const messages: StreamMessage[] = [];
    subs.push(pool.topic$({ type: 'account', user: key(1) }).subscribe((m) => messages.push(m)));
    const states: ConnectionState[] = [];
    subs.push(pool.connections[0]!.state$.subscribe((s) => states.push(s)));
    await until(() => messages.length === 1, 'account snapshot');
    venue.dropConnections();
    await until(() => messages.length === 2, 'snapshot after resubscribe');
    expect(states).toEqual(['connecting', 'open', 'backingOff', 'connecting', 'open']);
    expect(pool.connections[0]!.state).toBe('open');
  });

  it("a dropped connection makes its topics stale naming the connection's state, then fresh once confirmed again; connections$ follows the set", async () => {
    venue = await LoopbackVenue.start();
    pool = new WsPool({ url: venue.wsUrl, backoff: { initialMs: 10, maxMs: 20 }, random: () => 0.5 });
    const sets: number[] = [];
    subs.push(pool.connections$.subscribe((c) => sets.push(c.length)));
    const health: TopicHealth[] = [];
    subs.push(pool.health$.subscribe((h) => health.push(h)));
    subs.push(pool.topic$(ticker('BTC-USD')).subscribe());
    await until(() => health.some((h) => h.fresh), 'fresh');
    const from = health.length;
    venue.dropConnections();
    await until(() => health.slice(from).some((h) => h.fresh), 'fresh again');
    expect(health.slice(from)).toEqual([
      { topic: 'ticker.BTC-USD', fresh: false, reason: 'connection backingOff' },
      { topic: 'ticker.BTC-USD', fresh: true, reason: 'fresh' },
    ]);
    expect(sets).toEqual([0, 1]);
  });

  it('keeps integers beyond 2^53 exact (bare ns timestamps) and keeps reading plain frames after', async () => {
    venue = await LoopbackVenue.start();
    pool = new WsPool({ url: venue.wsUrl });
    const messages: StreamMessage[] = [];
    subs.push(pool.topic$(ticker('BTC-USD')).subscribe((m) => messages.push(m)));
    await until(() => venue!.topics().includes('ticker.BTC-USD'), 'subscribed');
    const frame = (ts: string) =>
      `{"type":"ticker","data":{"ticker":{"symbol":"BTC-USD",${TICKER_NUMBERS.map((f) => `"${f}":1`).join(',')},"timestamp":${ts}}},"topic":"ticker.BTC-USD"}`;
    venue.sendRaw(frame('1763770000000000001'));
    venue.sendRaw(frame('1763770000123'));
    await until(() => messages.length === 2, 'two tickers');
    const stamps = messages.map((m) => (m.type === 'ticker' ? m.data.ticker.timestamp : undefined));
    expect(stamps).toEqual([1763770000000000001n, 1763770000123n]);
    expect(pool.stats.invalidFrames.schema).toBe(0);
  });

  it('stamps each frame on arrival, before parsing: sinks read that stamp, nothing outside routing does', async () => {
    venue = await LoopbackVenue.start();
    let now = 1000n;
    pool = new WsPool({ url: venue.wsUrl, clock: { nowNs: () => (now += 7n) } });
    const seen: (bigint | undefined)[] = [];
    subs.push(pool.topic$({ type: 'account', user: key(1) }).subscribe(() => seen.push(pool!.frameArrivalNs)));
    await until(() => seen.length === 1, 'account snapshot');
    expect(seen[0]).toBe(now);
    venue.sendRaw('{"not json');
    venue.dropConnections();
    await until(() => seen.length === 2, 'snapshot after resubscribe');
    expect(seen[1]).toBe(now);
    expect(seen[1]! > seen[0]!).toBe(true);
    expect(pool.frameArrivalNs).toBeUndefined();
  });

  it('answers the venue pings (the venue keeps the connection)', async () => {
    venue = await LoopbackVenue.start({ hub: { pingIntervalMs: 20, pongTimeoutMs: 15 } });
    pool = new WsPool({ url: venue.wsUrl });
    subs.push(pool.topic$(ticker('BTC-USD')).subscribe());
    await until(() => venue!.pongs >= 5, 'five pongs');
    expect(pool.stats.opens).toBe(1);
    expect(venue.connections).toBe(1);
  });

  it('shares one venue subscription per topic and unsubscribes after the last subscriber', async () => {
    venue = await LoopbackVenue.start();
    pool = new WsPool({ url: venue.wsUrl });
    const a = pool.topic$(ticker('BTC-USD')).subscribe();
    const b = pool.topic$(ticker('BTC-USD')).subscribe();
    await until(() => venue!.topics().length === 1, 'subscribed');
    a.unsubscribe();
    expect(pool.connections[0]!.topicCount).toBe(1);
    b.unsubscribe();
    expect(pool.connections[0]!.topicCount).toBe(0);
    await until(() => venue!.topics().length === 0, 'unsubscribed on the venue');
  });

  it('opens another connection past 100 topics and the venue accepts every subscription', async () => {
    venue = await LoopbackVenue.start();
    pool = new WsPool({ url: venue.wsUrl });
    for (let i = 0; i < 101; i++) subs.push(pool.topic$(ticker(`S${i}-USD`)).subscribe());
    await until(() => venue!.topics().length === 101, 'all topics held');
    expect(pool.connections.map((c) => c.topicCount)).toEqual([100, 1]);
    expect(venue.connections).toBe(2);
    expect(pool.stats.invalidFrames.venueError).toBe(0);
    subs.pop()!.unsubscribe();
    await until(() => pool!.connections.length === 1 && venue!.connections === 1, 'emptied connection closed');
  });

  it("warm decodes the topic's last frame again, delivering and counting nothing; no-op without one", async () => {
    venue = await LoopbackVenue.start();
    pool = new WsPool({ url: venue.wsUrl });
    const messages: StreamMessage[] = [];
    subs.push(pool.topic$(ticker('BTC-USD')).subscribe((m) => messages.push(m)));
    subs.push(pool.topic$(ticker('ETH-USD')).subscribe());
    await until(() => venue!.topics().length === 2, 'subscribed');
    const frame = `{"type":"ticker","data":{"ticker":{"symbol":"BTC-USD",${TICKER_NUMBERS.map((f) => `"${f}":1`).join(',')},"timestamp":1763770000123}},"topic":"ticker.BTC-USD"}`;
    venue.sendRaw(frame);
    await until(() => messages.length === 1, 'ticker');
    const before = pool.stats;
    const parse = vi.spyOn(JSON, 'parse');
    try {
      pool.warm('ticker.BTC-USD');
      expect(parse.mock.calls).toEqual([[frame]]);
      expect(parse.mock.results[0]).toMatchObject({ type: 'return', value: { topic: 'ticker.BTC-USD' } });
      parse.mockClear();
      expect(() => pool!.warm('ticker.ETH-USD')).not.toThrow(); // held, no frame yet
      expect(() => pool!.warm('ticker.SOL-USD')).not.toThrow(); // never subscribed
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    expect(messages).toHaveLength(1);
    expect(pool.stats).toEqual(before);
  });
});

describe('subscriptionOfTopic', () => {
  it('inverts topicsOf for every single-topic stream and refuses anything else', () => {
    expect(subscriptionOfTopic('ticker.BTC-USD')).toEqual({ type: 'ticker', symbol: 'BTC-USD' });
    expect(subscriptionOfTopic('l2delta.ETH-USD')).toEqual({ type: 'l2Delta', symbol: 'ETH-USD' });
    expect(subscriptionOfTopic('l2snapshot.ETH-USD')).toEqual({ type: 'l2Snapshot', symbol: 'ETH-USD' });
    expect(subscriptionOfTopic('frontendContext')).toEqual({ type: 'frontendContext' });
    expect(subscriptionOfTopic(`account.${key(3)}`)).toEqual({ type: 'account', user: key(3) });
    for (const bad of ['ticker', 'ticker.btc', 'candle.BTC-USD', 'account.xyz', 'frontendContext.x', '']) expect(subscriptionOfTopic(bad)).toBeUndefined();
  });
});
