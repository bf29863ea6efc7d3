import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { WsHub, type HubOptions, type TopicSource } from '../../../../src/venue-sim/server/ws-hub.js';

const source: TopicSource = {
  resolve(sub) {
    const s = sub as { type?: string; symbol?: string; user?: string | string[] };
    if (s?.type === 'ticker' && typeof s.symbol === 'string') return { topics: [`ticker.${s.symbol}`] };
    if (s?.type === 'account') return { topics: (Array.isArray(s.user) ? s.user : [s.user]).map((u) => `account.${u}`) };
    return { error: 'unknown subscription' };
  },
  initial: (topic) => [JSON.stringify({ type: 'snapshot', topic })],
};

let server: Server | undefined;
let hub: WsHub | undefined;

async function start(opts: HubOptions = {}): Promise<string> {
  server = createServer();
  const wss = new WebSocketServer({ server, path: '/ws' });
  hub = new WsHub(wss, source, opts);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;
}

afterEach(async () => {
  hub?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
  hub = undefined;
});

/** A connected client collecting parsed messages; `next(n)` waits for the n-th message. */
async function client(url: string, opts: { autoPong?: boolean } = {}) {
  const ws = new WebSocket(url, { autoPong: opts.autoPong ?? true });
  const got: any[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (d) => {
    got.push(JSON.parse(String(d)));
    waiters.splice(0).forEach((w) => w());
  });
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  const next = async (n: number) => {
    while (got.length < n) await new Promise<void>((r) => waiters.push(r));
    return got[n - 1];
  };
  const closed = new Promise<void>((r) => ws.once('close', () => r()));
  return { ws, got, next, closed, send: (m: unknown) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)) };
}

describe('WsHub', () => {
  it('confirms with topic strings, sends the snapshot first, then published messages in order', async () => {
    const c = await client(await start());
    c.send({
      method: 'subscribe',
      subscription: [
        { type: 'ticker', symbol: 'BTC-USD' },
        { type: 'account', user: ['A', 'B'] },
      ],
    });
    expect(await c.next(1)).toEqual({ type: 'subscriptionResponse', topics: ['ticker.BTC-USD', 'account.A', 'account.B'] });
    expect(await c.next(2)).toEqual({ type: 'snapshot', topic: 'ticker.BTC-USD' });
    await c.next(4);
    for (let i = 0; i < 50; i++) hub!.publish('ticker.BTC-USD', 'ticker', { i });
    await c.next(54);
    expect(c.got.slice(4).map((m) => m.data.i)).toEqual([...Array(50).keys()]);
    c.send({ method: 'unsubscribe', topic: 'ticker.BTC-USD' });
    expect(await c.next(55)).toEqual({ type: 'unsubscribeResponse', topic: 'ticker.BTC-USD' });
    expect(hub!.hasSubscribers('ticker.BTC-USD')).toBe(false);
    c.ws.close();
  });

  it('answers garbage with an error message and keeps serving', async () => {
    const c = await client(await start());
    c.send('not json{');
    c.send('[1,2]');
    c.send({ method: 'dance' });
    c.send({ method: 'subscribe', subscription: [{ type: 'nope' }] });
    c.send({ method: 'unsubscribe', topic: 'ticker.X' });
    await c.next(5);
    expect(c.got.every((m) => m.type === 'error' && typeof m.error.message === 'string')).toBe(true);
    expect(hub!.stats.garbageFrames).toBe(5);
    c.send({ method: 'subscribe', subscription: [{ type: 'ticker', symbol: 'ETH-USD' }] });
    expect((await c.next(6)).type).toBe('subscriptionResponse');
    c.ws.close();
  });

  it('refuses more than the subscription limit per connection', async () => {
    const c = await client(await start({ maxSubscriptions: 3 }));
    c.send({ method: 'subscribe', subscription: [{ type: 'account', user: ['a', 'b', 'c', 'd'] }] });
    expect((await c.next(1)).error.message).toMatch(/at most 3 subscriptions/);
    c.send({ method: 'subscribe', subscription: [{ type: 'account', user: ['a', 'b', 'c'] }] });
    expect((await c.next(2)).type).toBe('subscriptionResponse');
    c.ws.close();
  });

  it('drops a client that does not answer pings, keeps one that does', async () => {
    const url = await start({ pingIntervalMs: 50, pongTimeoutMs: 50 });
    const silent = await client(url, { autoPong: false });
    const alive = await client(url);
    await silent.closed;
    expect(hub!.stats.pongTimeouts).toBe(1);
    expect(alive.ws.readyState).toBe(WebSocket.OPEN);
    alive.ws.close();
  });

  it('disconnects a subscriber whose buffer overflows instead of buffering without bound', async () => {
    const c = await client(await start({ maxBufferedBytes: 64 * 1024 }));
    c.send({ method: 'subscribe', subscription: [{ type: 'ticker', symbol: 'BTC-USD' }] });
    await c.next(2);
    (c.ws as any)._socket.pause();
    const big = 'x'.repeat(16 * 1024);
    for (let i = 0; i < 2000 && hub!.stats.slowDisconnects === 0; i++) hub!.publish('ticker.BTC-USD', 'ticker', big);
    expect(hub!.stats.slowDisconnects).toBe(1);
    expect(hub!.hasSubscribers('ticker.BTC-USD')).toBe(false);
  });
});
