// Hardening of the local venue against hostile input (issue 14, venue defects 1 and 3): raw bytes on a
// real socket, an account resting orders without bound, costly unsigned queries and subscribers that never read.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { venueConfigSchema, venueOptions } from '../../../src/app/venue-config.js';
import { loadYamlFile } from '../../../src/app/yaml-config.js';
import type { Venue } from '../../../src/venue-sim/server/index.js';
import { http, quietVenue, Trader, WsClient } from './harness.js';

interface RawReply {
  /** HTTP status of the first response on the connection; 0 when the venue closed it without one */
  status: number;
  head: string;
  body: string;
}

/**
 * Writes `bytes` on a new connection and collects the venue's reply: until the first response is complete
 * (its head, and as many body bytes as its content-length says), or until the venue closes the connection.
 * With `untilHead`, the head alone is enough (a WebSocket upgrade stays open).
 */
function raw(venue: Venue, bytes: string | Buffer, untilHead = false, timeoutMs = 5000): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(venue.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no end of reply within ${timeoutMs} ms; got ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 200))}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body: split < 0 ? '' : text.slice(split + 4) });
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return;
      const length = /\r\ncontent-length: (\d+)/i.exec(all.subarray(0, split).toString('latin1'));
      if (untilHead || (length && all.length - split - 4 >= Number(length[1]))) finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.write(bytes);
  });
}

/** A kept-alive raw connection: one request at a time, each answered with a content-length body. */
class KeptAlive {
  private buffer = Buffer.alloc(0);
  private waiter: (() => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (c: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, c]);
      this.waiter?.();
    });
  }

  static async open(port: number): Promise<KeptAlive> {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new KeptAlive(socket);
  }

  async request(bytes: string): Promise<RawReply> {
    this.socket.write(bytes);
    for (;;) {
      const split = this.buffer.indexOf('\r\n\r\n');
      const head = split < 0 ? '' : this.buffer.subarray(0, split).toString('latin1');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      if (split >= 0 && this.buffer.length - split - 4 >= length) {
        const body = this.buffer.subarray(split + 4, split + 4 + length).toString('latin1');
        this.buffer = this.buffer.subarray(split + 4 + length);
        return { status: Number(head.slice(9, 12)), head, body };
      }
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Rests `count` SOL-USD buys of size 1 for `account` straight on the engine (set-up only), from 50 USD up a tick each. */
function restBuys(v: Venue, account: string, count: number): void {
  for (let start = 0; start < count; start += 100) {
    const items = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({
      order: { c: 'SOL-USD', b: true, px: Number((50 + (start + i) / 1000).toFixed(3)), sz: 1, r: false, t: { limit: { tif: 'GTC' as const } } },
    }));
    v.engine.applyOrderAction(account, items);
  }
}

/** Counts event-loop turns (one setImmediate each); `install` hooks `record` into the calls whose turn is wanted. */
function recordTurns(install: (record: () => void) => void): { turns: number[]; stop: () => void } {
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  tick();
  const turns: number[] = [];
  install(() => turns.push(turn));
  return {
    turns,
    stop: () => {
      ticking = false;
    },
  };
}

const request = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\nHost: venue\r\nConnection: close\r\n${extra}\r\n`;

function expectJsonError(r: RawReply, status: number): void {
  expect(r.status, r.head).toBe(status);
  expect(r.head.toLowerCase()).toContain('content-type: application/json');
  const body = JSON.parse(r.body);
  expect(body).toEqual({ status: 'error', error: { code: expect.any(String), message: expect.any(String) } });
}

let venue: Venue;
beforeAll(async () => {
  venue = await quietVenue({ seed: 14, verifyOnWorker: false });
});
afterAll(() => venue.close());

async function expectAlive(): Promise<void> {
  const r = await http(`${venue.url}/exchangeInfo`);
  expect(r.status).toBe(200);
}

describe('local venue: no request ends the process', () => {
  it.each(['//', '///', '/\\', 'http://[', '//api/v1/exchangeInfo', 'http://[::1', '//[', 'http://:99999/api/v1/exchangeInfo'])(
    'a request target a URL parser rejects (%s) gets a 4xx JSON error and the venue keeps answering',
    async (target) => {
      const r = await raw(venue, request(target));
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expectJsonError(r, r.status);
      await expectAlive();
    },
  );

  it('the same targets on POST with a body, and on a keep-alive connection after a good request', async () => {
    const body = JSON.stringify({ type: 'openOrders', user: 'x' });
    expectJsonError(
      await raw(
        venue,
        `POST http://[ HTTP/1.1\r\nHost: venue\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      ),
      400,
    );
    const keepAlive = await raw(venue, `GET /api/v1/exchangeInfo HTTP/1.1\r\nHost: venue\r\n\r\n${request('http://[')}`);
    expect(keepAlive.status).toBe(200);
    const second = keepAlive.body.slice(keepAlive.body.indexOf('HTTP/1.1 '));
    expect(second).toMatch(/^HTTP\/1\.1 400 /);
    expect(second).toContain('"code":"BAD_REQUEST"');
    await expectAlive();
  });

  it.each([
    ['a non-numeric content-length', 'POST /api/v1/account HTTP/1.1\r\nHost: venue\r\nContent-Length: abc\r\n\r\n{}'],
    ['two different content-lengths', 'POST /api/v1/account HTTP/1.1\r\nHost: venue\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
    [
      'content-length with chunked encoding',
      'POST /api/v1/account HTTP/1.1\r\nHost: venue\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    ],
    ['a malformed chunk', 'POST /api/v1/account HTTP/1.1\r\nHost: venue\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
    ['a header without a colon', 'GET /api/v1/exchangeInfo HTTP/1.1\r\nHost: venue\r\nbroken header\r\n\r\n'],
    ['a control character in a header value', 'GET /api/v1/exchangeInfo HTTP/1.1\r\nHost: venue\r\nX-A: a\x01b\r\n\r\n'],
    ['a control character in the target', 'GET /api/v1/\x7fexchangeInfo HTTP/1.1\r\nHost: venue\r\n\r\n'],
    ['not HTTP at all', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n'],
    ['an unknown HTTP version', 'GET /api/v1/exchangeInfo HTTP/9.9\r\nHost: venue\r\n\r\n'],
    ['an Expect header other than 100-continue', 'POST /api/v1/account HTTP/1.1\r\nHost: venue\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}'],
    ['the asterisk target', 'OPTIONS * HTTP/1.1\r\nHost: venue\r\n\r\n'],
  ])('a request with %s gets a 4xx JSON error and the venue keeps answering', async (_name, bytes) => {
    const r = await raw(venue, bytes);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expectJsonError(r, r.status);
    await expectAlive();
  });

  it('headers larger than the parser accepts get 431 as JSON', async () => {
    expectJsonError(await raw(venue, request('/api/v1/exchangeInfo', `X-Big: ${'a'.repeat(70_000)}\r\n`)), 431);
    await expectAlive();
  });

  it.each([
    '/api/v1/l2book?symbol=%E0%A4%A&nlevels=%zz',
    '/api/v1/l2book?symbol=BTC-USD&nlevels=1e999',
    '/api/v1/l2book?%',
    '/api/v1/exchangeInfo?a=%00&a=%ff',
  ])('a bad query string (%s) gets a 4xx or 200, never a dropped connection', async (target) => {
    const r = await raw(venue, request(target));
    expect([200, 400, 404]).toContain(r.status);
    expect(() => JSON.parse(r.body)).not.toThrow();
    await expectAlive();
  });

  const upgrade = 'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n';

  it.each([
    ['a rejected target', '//'],
    ['an absolute-form target the parser rejects', 'http://['],
    ['another path', '/api/v1/account'],
    ['a path that only starts like /ws', '//ws'],
  ])('a WebSocket upgrade with %s is refused with a 400 and the venue keeps answering', async (_name, target) => {
    const r = await raw(venue, `GET ${target} HTTP/1.1\r\nHost: venue\r\n${upgrade}\r\n`);
    expect(r.status).toBe(400);
    await expectAlive();
  });

  it.each([
    ['a broken protocol list', 'Sec-WebSocket-Protocol: ,,a b\r\n', 400],
    ['a second, different version', 'Sec-WebSocket-Version: x\r\n', 400],
    ['a broken extension list (ignored: the venue negotiates none)', 'Sec-WebSocket-Extensions: permessage-deflate; =;;\r\n', 101],
    ['a bad query string (ignored)', '', 101],
  ])('a WebSocket upgrade of /ws with %s is answered %s and the venue keeps answering', async (name, extra, status) => {
    const target = name.startsWith('a bad query') ? '/ws?%zz&=' : '/ws';
    const r = await raw(venue, `GET ${target} HTTP/1.1\r\nHost: venue\r\n${upgrade}${extra}\r\n`, true);
    expect(r.status).toBe(status);
    await expectAlive();
  });

  it('CONNECT gets a 405 JSON error; a connection closed mid-request leaves the venue answering', async () => {
    expectJsonError(await raw(venue, 'CONNECT venue:443 HTTP/1.1\r\nHost: venue:443\r\n\r\n'), 405);
    const socket = connect(venue.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.end('POST /api/v1/account HTTP/1.1\r\nHost: venue\r\nContent-Length: 1000\r\n\r\n{"type":');
    socket.resume();
    await new Promise((resolve) => socket.once('close', resolve));
    await expectAlive();
  });
});

describe('perpbot venue (its own process): no request ends it', () => {
  it('the process answers each target a URL parser rejects with a 4xx and keeps serving', async () => {
    const child = spawn(process.execPath, [join(import.meta.dirname, '../../../dist/src/cli.js'), 'venue', '--port', '0', '--no-flow'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      const url = await new Promise<URL>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += String(d);
          const m = /listening: (http:\/\/\S+)/.exec(out);
          if (m) resolve(new URL(m[1]!));
        });
        child.once('exit', (code) => reject(new Error(`venue exited ${code}: ${out}`)));
      });
      const port = Number(url.port);
      for (const target of ['//', '///', '/\\', 'http://[']) {
        const r = await raw({ port } as Venue, request(target));
        expect(r.status, target).toBe(target === 'http://[' ? 400 : 404);
      }
      expect((await http(`${url.origin}/api/v1/exchangeInfo`)).status).toBe(200);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('local venue: start-up faults', () => {
  it('a port already in use rejects startVenue with EADDRINUSE (no uncaught error)', async () => {
    await expect(quietVenue({ port: venue.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await expectAlive();
  });
});

describe('local venue: open orders per account are capped', () => {
  const statusOf = (r: { body: any }, i = 0) => r.body.response.data.statuses[i];
  /** A stop-market sell: it parks (a live order) until the mark falls to `triggerPx`. */
  const stop = (symbol: string, sz: number, triggerPx: number) => ({
    order: { c: symbol, b: false, px: 0, sz, r: false, t: { trigger: { is_market: true, triggerPx } } },
  });

  it('the order past the cap is refused with rejectedRiskLimit and changes no book, open order or balance', async () => {
    const v = await quietVenue({ seed: 15, verifyOnWorker: false, engine: { maxOpenOrdersPerAccount: 5 } });
    try {
      const t = new Trader(v);
      await t.faucet(100_000);
      const placed = await t.orders(...[1, 2, 3, 4].map((i) => t.limit('ETH-USD', true, 1000 + i, 0.1)), stop('ETH-USD', 0.1, 500));
      expect(placed.body.response.data.statuses.map((s: object) => Object.keys(s)[0])).toEqual(['resting', 'resting', 'resting', 'resting', 'resting']);
      const before = {
        open: await t.query('openOrders'),
        full: await t.query('fullAccount'),
        levels: (await http(`${v.url}/l2book?symbol=ETH-USD`)).body.levels,
      };

      for (const item of [t.limit('ETH-USD', true, 900, 0.1), t.limit('ETH-USD', false, 5000, 0.1, 'ALO'), stop('ETH-USD', 0.1, 400)]) {
        const r = await t.orders(item);
        expect(statusOf(r)).toEqual({ rejectedRiskLimit: { oid: r.orderIds[0], reason: 'at most 5 open orders per account' } });
      }
      expect(await t.query('openOrders')).toEqual(before.open);
      expect(await t.query('fullAccount')).toEqual(before.full);
      expect((await http(`${v.url}/l2book?symbol=ETH-USD`)).body.levels).toEqual(before.levels);

      const ioc = await t.orders(t.limit('ETH-USD', false, 5000, 0.1, 'IOC'));
      expect(Object.keys(statusOf(ioc))).toEqual(['cancelledIOC']);
      const freed = await t.orders(
        { cancel: { c: 'ETH-USD', oid: placed.orderIds[0] } },
        t.limit('ETH-USD', true, 950, 0.1),
        t.limit('ETH-USD', true, 940, 0.1),
      );
      expect(freed.body.response.data.statuses.map((s: object) => Object.keys(s)[0])).toEqual(['cancelled', 'resting', 'rejectedRiskLimit']);
      expect(await t.query('openOrders')).toHaveLength(5);
      expect(v.engine.selfCheck()).toEqual([]);
    } finally {
      await v.close();
    }
  });

  it('the default cap is 1000 open orders per account', async () => {
    const v = await quietVenue({ seed: 16, verifyOnWorker: false });
    try {
      const t = new Trader(v);
      await t.faucet(1_000_000);
      for (let b = 0; b < 10; b++) {
        const r = await t.orders(...Array.from({ length: 100 }, (_, i) => t.limit('SOL-USD', true, Number((10 + (b * 100 + i) / 1000).toFixed(3)), 1)));
        expect(r.body.response.data.statuses.every((s: object) => 'resting' in s)).toBe(true);
      }
      const over = await t.orders(t.limit('SOL-USD', true, 9, 2));
      expect(statusOf(over)).toEqual({ rejectedRiskLimit: { oid: over.orderIds[0], reason: 'at most 1000 open orders per account' } });
      expect(await t.query('openOrders')).toHaveLength(1000);
    } finally {
      await v.close();
    }
  });
});

describe('local venue: one unsigned query costs bounded work', () => {
  it('eight concurrent queries of the heaviest account run one per event-loop turn, so another client waits for one, not eight', async () => {
    const v = await quietVenue({ seed: 17, verifyOnWorker: false });
    try {
      const heavy = new Trader(v);
      const taker = new Trader(v);
      await heavy.faucet(1_000_000_000);
      await taker.faucet(1_000_000_000);
      // Rest as many orders as the venue takes, fill them (and refuse the rest), rest again: full histories, 1000 open.
      restBuys(v, heavy.account, 6000);
      for (let b = 0; b < 60; b++)
        v.engine.applyOrderAction(
          taker.account,
          Array.from({ length: 100 }, () => ({ order: { c: 'SOL-USD', b: false, px: 40, sz: 1, r: false, t: { limit: { tif: 'IOC' as const } } } })),
        );
      restBuys(v, heavy.account, 6000);
      v.engine.drainEvents();
      const open = v.engine.openOrders(heavy.account).length;

      // Eight kept-alive connections send their query in the same tick, so the venue reads them in one poll.
      // Each query must run in its own event-loop turn: between two, the venue serves everyone else, so a
      // burst delays another client by one query (bounded by the open-order cap and historyLimit), not by eight.
      const conns = await Promise.all(Array.from({ length: 9 }, () => KeptAlive.open(v.port)));
      const keepAlive = request('/api/v1/exchangeInfo').replace('Connection: close', 'Connection: keep-alive');
      for (const c of conns) expect((await c.request(keepAlive)).status).toBe(200);
      const query = v.engine.query.bind(v.engine);
      const { turns, stop } = recordTurns((record) => {
        v.engine.query = (type, user) => {
          record();
          return query(type, user);
        };
      });
      for (const type of ['openOrders', 'fullAccount', 'orderHistory', 'fills']) {
        const body = JSON.stringify({ type, user: heavy.account });
        const text = `POST /api/v1/account HTTP/1.1\r\nHost: venue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
        turns.length = 0;
        const replies = await Promise.all([...conns.slice(0, 8).map((c) => c.request(text)), conns[8]!.request(keepAlive)]);
        expect(replies.map((r) => r.status)).toEqual(Array(9).fill(200));
        expect(new Set(turns).size, `${type}: queries ran in turns ${turns.join(' ')}`).toBe(8);
      }
      stop();
      for (const c of conns) c.close();
      expect(open).toBe(1000);
    } finally {
      await v.close();
    }
  });
});

describe('local venue: account queries waiting for their turn are bounded', () => {
  it('past maxWaitingQueries a query gets 429 with Retry-After, and the venue changes nothing', async () => {
    const v = await quietVenue({ seed: 19, verifyOnWorker: false, maxWaitingQueries: 2 });
    try {
      const conns = await Promise.all(Array.from({ length: 8 }, () => KeptAlive.open(v.port)));
      const keepAlive = request('/api/v1/exchangeInfo').replace('Connection: close', 'Connection: keep-alive');
      for (const c of conns) expect((await c.request(keepAlive)).status).toBe(200);
      const body = JSON.stringify({ type: 'openOrders', user: new Trader(v).account });
      const text = `POST /api/v1/account HTTP/1.1\r\nHost: venue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const replies = await Promise.all(conns.map((c) => c.request(text)));
      expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
      for (const r of replies.filter((x) => x.status === 429)) {
        expect(r.head.toLowerCase()).toContain('retry-after: 1');
        expect(JSON.parse(r.body).error.code).toBe('RATE_LIMITED');
      }
      expect((await conns[0]!.request(text)).status).toBe(200);
      for (const c of conns) c.close();
    } finally {
      await v.close();
    }
  });
});

describe('local venue: subscribers that never read are dropped by bytes buffered', () => {
  it('eight clients that stop reading and ask for account snapshots again and again are disconnected; buffered memory stays bounded', async () => {
    const v = await quietVenue({ seed: 18, verifyOnWorker: false });
    try {
      const heavy = new Trader(v);
      await heavy.faucet(1_000_000_000);
      restBuys(v, heavy.account, 1000);
      const snapshotBytes = JSON.stringify(v.engine.fullAccount(heavy.account), (_k, x) => (typeof x === 'bigint' ? Number(x) : x)).length;
      const topic = `account.${heavy.account}`;
      const clients = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const c = await WsClient.open(v.wsUrl);
          c.ws.on('error', () => undefined);
          c.send({ method: 'subscribe', subscription: [{ type: 'account', user: heavy.account }] });
          await c.until((m) => m.data?.type === 'accountSnapshot');
          (c.ws as unknown as { _socket: Socket })._socket.pause();
          return c;
        }),
      );
      const limit = 1024 * 1024;
      let peak = 0;
      for (let round = 0; v.hub.stats.slowDisconnects < clients.length; round++) {
        expect(round, `dropped ${v.hub.stats.slowDisconnects} of ${clients.length}`).toBeLessThan(5000);
        for (const c of clients) {
          if (c.ws.readyState !== c.ws.OPEN) continue;
          c.send({ method: 'unsubscribe', topic });
          c.send({ method: 'subscribe', subscription: [{ type: 'account', user: heavy.account }] });
        }
        await new Promise((resolve) => setImmediate(resolve));
        peak = Math.max(peak, v.hub.bufferedBytes());
      }
      expect(peak).toBeLessThanOrEqual(clients.length * (limit + snapshotBytes + 4096));
      expect(v.hub.bufferedBytes()).toBe(0);
      expect(v.hub.hasSubscribers(topic)).toBe(false);
      expect(v.hub.stats.connections).toBe(0);
      expect((await http(`${v.url}/exchangeInfo`)).status).toBe(200);
      for (const c of clients) c.ws.terminate();
    } finally {
      await v.close();
    }
  });
});

describe('local venue: one WebSocket connection cannot monopolize the venue', () => {
  it('frames sent back to back (each asking for an account snapshot) are handled one per event-loop turn', async () => {
    const v = await quietVenue({ seed: 20, verifyOnWorker: false });
    try {
      const heavy = new Trader(v);
      await heavy.faucet(1_000_000);
      restBuys(v, heavy.account, 100);
      const c = await WsClient.open(v.wsUrl);
      const fullAccount = v.engine.fullAccount.bind(v.engine);
      const { turns, stop } = recordTurns((record) => {
        v.engine.fullAccount = (user) => {
          record();
          return fullAccount(user);
        };
      });
      const topic = `account.${heavy.account}`;
      const frames = 20;
      for (let i = 0; i < frames; i++) {
        c.send({ method: 'subscribe', subscription: [{ type: 'account', user: heavy.account }] });
        c.send({ method: 'unsubscribe', topic });
      }
      await c.until(() => c.messages.filter((m) => m.type === 'unsubscribeResponse').length === frames);
      stop();
      expect(turns).toHaveLength(frames);
      expect(new Set(turns).size, `snapshots built in turns ${turns.join(' ')}`).toBe(frames);
      c.close();
    } finally {
      await v.close();
    }
  });
});

describe('venue config: the hardening limits', () => {
  it('config/venue.example.yaml documents the defaults; each key reaches the venue; a bad value names its key and line', () => {
    const root = resolve(import.meta.dirname, '../../..');
    const example = venueOptions(loadYamlFile(join(root, 'config/venue.example.yaml'), venueConfigSchema));
    expect(example).toMatchObject({ maxWaitingQueries: 64, ws: { maxBufferedBytes: 1_048_576 }, engine: { maxOpenOrdersPerAccount: 1000 } });
    const file = join(mkdtempSync(join(tmpdir(), 'perpbot-hardening-')), 'venue.yaml');
    writeFileSync(file, 'seed: 1\nmaxOpenOrdersPerAccount: 0\n');
    expect(() => loadYamlFile(file, venueConfigSchema)).toThrow(/maxOpenOrdersPerAccount \(line 2\)/);
    writeFileSync(file, 'wsMaxBufferedBytes: 100\n');
    expect(() => loadYamlFile(file, venueConfigSchema)).toThrow(/wsMaxBufferedBytes \(line 1\)/);
  });
});
