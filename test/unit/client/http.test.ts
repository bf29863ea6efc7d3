import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { TransportError, VenueRejectError } from '../../../src/core/errors.js';
import { HttpClient } from '../../../src/client/http.js';
import { RawHttpPool } from '../../../src/client/raw-http.js';
import { codecFor } from '../../../src/protocol/codecs.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { signRequest } from '../../../src/protocol/sign.js';
import { key, LoopbackVenue } from '../../support/loopback-venue.js';

const KEY = Keypair.generate();
let nonce = 1_763_770_000_000_000_000n;

function signed(actions: unknown, dialect: 'v1' | 'current' = 'v1') {
  return signRequest(codecFor(dialect), KEY, { actions, account: KEY.publicKey, signer: KEY.publicKey, nonce: nonce++, network: 'mainnet', mode: 'raw' });
}

const PLACE = { type: 'order', orders: [{ order: { c: 'BTC-USD', b: true, px: 100, sz: 1, r: false, t: { limit: { tif: 'GTC' } } } }] };
const CANCEL = { type: 'order', orders: [{ cancel: { c: 'BTC-USD', oid: key(0x44) } }] };
const OK = (statuses: unknown[]) => JSON.stringify({ status: 'ok', response: { type: 'order', data: { statuses } } });

let venue: LoopbackVenue;
let http: HttpClient;
const sleeps: number[] = [];

beforeEach(async () => {
  venue = await LoopbackVenue.start();
  sleeps.length = 0;
  http = new HttpClient({ baseUrl: venue.httpUrl, timeoutMs: 200, readRetries: 2, sleep: async (ms) => void sleeps.push(ms), random: () => 0 });
});

afterEach(async () => {
  http.close();
  await venue.close();
});

describe('HttpClient.submit outcomes', () => {
  it('accepted: the venue processed the action (item statuses validated)', async () => {
    venue.answers.push({ status: 200, body: OK([{ resting: { oid: key(0x44) } }]) });
    const outcome = await http.submit(signed(PLACE));
    expect(outcome).toEqual({
      outcome: 'accepted',
      response: { status: 'ok', response: { type: 'order', data: { statuses: [{ resting: { oid: key(0x44) } }] } } },
    });
  });

  it('rejected: a status "error" envelope, a 4xx error body', async () => {
    venue.answers.push({
      status: 200,
      body: JSON.stringify({ status: 'error', response: { type: 'order', data: { statuses: [{ error: { message: 'bad signature' } }] } } }),
    });
    venue.answers.push({ status: 400, body: JSON.stringify({ status: 'error', error: { code: 'INVALID', message: 'orders: missing field' } }) });
    expect(await http.submit(signed(PLACE))).toMatchObject({ outcome: 'rejected', reason: 'bad signature', httpStatus: 200 });
    expect(await http.submit(signed(PLACE))).toMatchObject({ outcome: 'rejected', reason: 'orders: missing field', code: 'INVALID', httpStatus: 400 });
    expect(venue.actionBodies).toHaveLength(2);
  });

  it('a 429 is back-pressure: Retry-After (seconds or HTTP date) is waited out and the same bytes are sent again; counted', async () => {
    const limited = JSON.stringify({ status: 'error', error: { code: 'RATE_LIMITED', message: 'too many requests' } });
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    venue.answers.push(
      { status: 429, body: limited, headers: { 'retry-after': '2' } },
      { status: 429, body: limited, headers: { 'retry-after': inTenSeconds } },
    );
    venue.answers.push({ status: 200, body: OK([{ resting: { oid: key(0x44) } }]) });
    const request = signed(PLACE);
    expect(await http.submit(request)).toMatchObject({ outcome: 'accepted' });
    expect(venue.actionBodies).toEqual([request.bodyText, request.bodyText, request.bodyText]);
    expect(sleeps[0]).toBe(2000);
    expect(sleeps[1]).toBeGreaterThan(8_000);
    expect(sleeps[1]).toBeLessThanOrEqual(10_000);
    expect(http.stats).toMatchObject({ rateLimited: 2, outcomes: { accepted: 1, rejected: 0, unknown: 0 } });
  });

  it('cancels waiting behind a 429 go first when the wait is over', async () => {
    let wake: (() => void) | undefined;
    const gated = new HttpClient({ baseUrl: venue.httpUrl, sleep: () => new Promise<void>((r) => (wake = r)) });
    try {
      venue.answers.push({ status: 429, body: '', headers: { 'retry-after': '1' } });
      const first = signed(PLACE);
      const placing = gated.submit(first);
      await vi.waitFor(() => expect(wake).toBeDefined());
      const later = signed(PLACE);
      const cancel = signed(CANCEL);
      const waiting = [gated.submit(later), gated.submit(cancel)];
      expect(venue.actionBodies).toEqual([first.bodyText]);
      venue.answers.push(...[0, 1, 2].map(() => ({ status: 200, body: OK([{ success: true }]) })));
      wake!();
      await Promise.all([placing, ...waiting]);
      expect(venue.actionBodies[1]).toBe(cancel.bodyText);
      expect(venue.actionBodies.slice(2).sort()).toEqual([first.bodyText, later.bodyText].sort());
    } finally {
      gated.close();
    }
  });

  it('a 429 that outlasts rateLimitMaxWaitMs is rejected with its status', async () => {
    const patient = new HttpClient({ baseUrl: venue.httpUrl, rateLimitMaxWaitMs: 1_500, sleep: async () => undefined });
    try {
      const limited = {
        status: 429,
        body: JSON.stringify({ status: 'error', error: { code: 'RATE_LIMITED', message: 'too many requests' } }),
        headers: { 'retry-after': '1' },
      };
      venue.answers.push(limited, limited);
      expect(await patient.submit(signed(PLACE))).toMatchObject({ outcome: 'rejected', httpStatus: 429, code: 'RATE_LIMITED', retryAfterMs: 1000 });
      expect(patient.stats).toMatchObject({ rateLimited: 2, outcomes: { rejected: 1 } });
    } finally {
      patient.close();
    }
  });

  it('unknown: HTTP 500, a timeout, the connection lost after sending, an unreadable 200; never retried by itself', async () => {
    venue.answers.push({ status: 500, body: 'oops' }, 'hang', 'destroy', { status: 200, body: '{"status":"ok"' });
    for (const reason of [/HTTP 500/, /timed out after 200 ms/, /socket hang up|ECONNRESET/, /unreadable answer/]) {
      const outcome = await http.submit(signed(PLACE));
      expect(outcome.outcome).toBe('unknown');
      expect((outcome as { reason: string }).reason).toMatch(reason);
    }
    expect(venue.requests.get('/order')).toBe(4);
    expect(http.stats.outcomes).toEqual({ accepted: 0, rejected: 0, unknown: 4 });
  });

  it('resend posts the identical signed bytes of an unknown outcome', async () => {
    venue.answers.push('hang', { status: 200, body: OK([{ rejectedDuplicate: { oid: key(0x44) } }]) });
    const request = signed(PLACE);
    const first = await http.submit(request);
    if (first.outcome !== 'unknown') throw new Error('expected unknown');
    const second = await http.resend(first);
    expect(second.outcome).toBe('accepted');
    expect(venue.actionBodies).toEqual([request.bodyText, request.bodyText]);
  });

  it('a request that could not be sent at all is rejected (nothing reached the venue)', async () => {
    const port = venue.port;
    await venue.close();
    const dead = new HttpClient({ baseUrl: `http://127.0.0.1:${port}/api/v1`, timeoutMs: 200 });
    expect(await dead.submit(signed(PLACE))).toMatchObject({ outcome: 'rejected', reason: expect.stringMatching(/^not sent: .*ECONNREFUSED/) });
    dead.close();
    venue = await LoopbackVenue.start();
  });

  it('validates current-dialect answers with the current POST /order schema (venue-protocol §8.4)', async () => {
    const current = new HttpClient({ baseUrl: venue.httpUrl, dialect: 'current' });
    venue.answers.push({ status: 200, body: OK([{ triggered: { oid: key(0x44) } }]) }, { status: 200, body: '{"status":"ok","response":{}}' });
    const place = signed([{ l: { c: 'BTC-USD', b: true, px: 100, sz: 1, tif: 'GTC', r: false, i: false } }], 'current');
    expect((await current.submit(place)).outcome).toBe('accepted');
    expect((await current.submit(place)).outcome).toBe('unknown');
    current.close();
  });
});

describe('HttpClient.warm (keep-warm dry run)', () => {
  it('builds the request text submit() writes, sending, counting and spending nothing', async () => {
    const clock = new ManualClock(0n);
    const limited = new HttpClient({
      baseUrl: venue.httpUrl,
      clock,
      rateLimit: { perSecond: 1, burst: 1 },
      sleep: async (ms) => void (sleeps.push(ms), clock.advanceMs(ms)),
    });
    const request = signed(PLACE);
    const text = vi.spyOn(RawHttpPool.prototype, 'requestText');
    try {
      for (let i = 0; i < 5; i++) limited.warm(request);
      expect(text.mock.calls).toEqual(Array(5).fill(['POST', '/api/v1/order', request.bodyText]));
      await new Promise((r) => setTimeout(r, 30));
      expect(venue.requests.size).toBe(0);
      expect((venue as unknown as { conns: Set<unknown> }).conns.size).toBe(0); // not even a socket opened
      expect(limited.stats).toEqual({
        requests: 0,
        rateLimited: 0,
        readRetries: 0,
        timeouts: 0,
        invalidAnswers: 0,
        outcomes: { accepted: 0, rejected: 0, unknown: 0 },
      });
      venue.answers.push({ status: 200, body: OK([{ resting: { oid: key(0x44) } }]) });
      expect(await limited.submit(request)).toMatchObject({ outcome: 'accepted' });
      expect(text.mock.calls[5]).toEqual(['POST', '/api/v1/order', request.bodyText]);
      expect(text.mock.results[5]!.value).toBe(text.mock.results[0]!.value);
    } finally {
      text.mockRestore();
      limited.close();
    }
    expect(venue.actionBodies).toEqual([request.bodyText]);
    expect(sleeps).toEqual([]); // the one order token was still there
    expect(limited.stats).toMatchObject({ requests: 1, outcomes: { accepted: 1, rejected: 0, unknown: 0 } });
  });
});

describe('HttpClient reads', () => {
  it('retries 5xx, waits out a 429 (honouring Retry-After, not counted as a retry), and then answers', async () => {
    venue.answers.push({ status: 503, body: '' }, { status: 429, body: '', headers: { 'retry-after': '3' } });
    venue.setBook('BTC-USD', [[100, 1]], [[101, 2]]);
    const book = await http.l2book('BTC-USD', 10);
    expect(book.levels).toEqual([[{ px: 100, sz: 1, n: 1 }], [{ px: 101, sz: 2, n: 1 }]]);
    expect(sleeps).toEqual([100, 3000]);
    expect(http.stats).toMatchObject({ readRetries: 1, rateLimited: 1 });
  });

  it('gives up with a TransportError after the retries, and a 4xx is a VenueRejectError at once', async () => {
    venue.httpMode = 'hang';
    await expect(http.account('openOrders', key(1))).rejects.toThrow(TransportError);
    expect(venue.requests.get('/account')).toBe(3);
    venue.httpMode = 'ok';
    venue.answers.push({ status: 404, body: JSON.stringify({ status: 'error', error: { code: 'NOT_FOUND', message: 'no such path' } }) });
    await expect(http.exchangeInfo()).rejects.toThrow(VenueRejectError);
    expect(venue.requests.get('/exchangeInfo')).toBe(1);
  });

  it('reads and validates account queries and exchangeInfo (both published shapes)', async () => {
    venue.placeOrder(key(1), key(2), 'BTC-USD', true, 100, 1);
    const rows = await http.account('openOrders', key(1));
    expect(rows[0]!.openOrder).toMatchObject({ orderId: key(2), status: 'placed' });
    venue.setBook('ETH-USD', [], []);
    expect(await http.exchangeInfo()).toEqual([{ symbol: 'ETH-USD', tickSize: 0.5, lotSize: 0.001, minNotional: 10, maxLeverage: 50 }]);
    venue.answers.push({
      status: 200,
      body: JSON.stringify({ symbols: ['SOL-USD'], markets: { 'SOL-USD': { symbol: 'SOL-USD', tickSize: 0.01, lotSize: 0.1, maxLeverage: 20 } } }),
    });
    expect(await http.exchangeInfo()).toEqual([{ symbol: 'SOL-USD', tickSize: 0.01, lotSize: 0.1, maxLeverage: 20 }]);
  });

  it('reuses keep-alive connections', async () => {
    const sockets = new Set<unknown>();
    venue.setBook('BTC-USD', [], []);
    const server = (venue as unknown as { server: import('node:http').Server }).server;
    server.on('request', (req: import('node:http').IncomingMessage) => sockets.add(req.socket));
    for (let i = 0; i < 5; i++) await http.l2book('BTC-USD');
    expect(sockets.size).toBe(1);
  });
});

describe('rate limiting', () => {
  it('cancels have their own budget and are not held up by queued orders', async () => {
    const clock = new ManualClock(0n);
    const released: (() => void)[] = [];
    const limited = new HttpClient({
      baseUrl: venue.httpUrl,
      clock,
      rateLimit: { perSecond: 1, burst: 1 },
      cancelRateLimit: { perSecond: 10, burst: 2 },
      sleep: (ms) =>
        new Promise<void>((resolve) =>
          released.push(() => {
            clock.advanceMs(ms);
            resolve();
          }),
        ),
    });
    const done: string[] = [];
    const a = limited.submit(signed(PLACE)).then(() => done.push('place 1'));
    const b = limited.submit(signed(PLACE)).then(() => done.push('place 2'));
    const c = limited.submit(signed(CANCEL)).then(() => done.push('cancel'));
    await Promise.all([a, c]);
    expect(done.sort()).toEqual(['cancel', 'place 1']);
    expect(released).toHaveLength(1);
    released[0]!();
    await b;
    expect(done).toContain('place 2');
    limited.close();
  });

  it('a huge Retry-After shuts the client for at most rateLimitMaxWaitMs: later requests, cancels included, are not held for days', async () => {
    const waits: number[] = [];
    const patient = new HttpClient({ baseUrl: venue.httpUrl, rateLimitMaxWaitMs: 1_500, sleep: async (ms) => void waits.push(ms) });
    try {
      const limited = {
        status: 429,
        body: JSON.stringify({ status: 'error', error: { code: 'RATE_LIMITED', message: 'slow down' } }),
        headers: { 'retry-after': '2000000' },
      };
      venue.answers.push(limited, { status: 200, body: OK([{ cancelled: { oid: key(0x44) } }]) });
      expect(await patient.submit(signed(PLACE))).toMatchObject({ outcome: 'rejected', httpStatus: 429, retryAfterMs: 2_000_000_000 });
      expect(await patient.submit(signed(CANCEL))).toMatchObject({ outcome: 'accepted' });
      expect(waits.length).toBeGreaterThan(0);
      expect(Math.max(...waits)).toBeLessThanOrEqual(1_500);
    } finally {
      patient.close();
    }
  });

  it('classifies cancel-only actions in both dialects', () => {
    expect(signed(CANCEL).encoded.cancelOnly).toBe(true);
    expect(signed({ type: 'order', orders: [{ cancelAll: { c: [] } }] }).encoded.cancelOnly).toBe(true);
    expect(signed({ type: 'order', orders: [...CANCEL.orders, ...PLACE.orders] }).encoded.cancelOnly).toBe(false);
    expect(signed({ type: 'faucet', user: KEY.publicKey }).encoded.cancelOnly).toBe(false);
    expect(signed([{ cx: { c: 'BTC-USD', oid: key(0x44) } }, { cxa: { c: [] } }], 'current').encoded.cancelOnly).toBe(true);
    expect(signed([{ l: { c: 'BTC-USD', b: true, px: 100, sz: 1, tif: 'GTC', r: false, i: false } }], 'current').encoded.cancelOnly).toBe(false);
  });
});

describe('answers that cannot be used', () => {
  /** A server that writes `raw` (a whole HTTP answer, possibly broken) to every request, then closes. */
  async function rawServer(raw: string): Promise<{ url: string; close: () => Promise<void> }> {
    const { createServer } = await import('node:net');
    const server = createServer((socket) => {
      socket.once('data', () => socket.end(raw, 'latin1'));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as import('node:net').AddressInfo;
    return { url: `http://127.0.0.1:${port}/api/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it('a 200 read whose body is not JSON or fails the schema, and an unreadable 200 to an action, are counted', async () => {
    venue.answers.push({ status: 200, body: '{"truncated' }, { status: 200, body: '[{"openOrder":1}]' }, { status: 200, body: '{"status":"ok"' });
    await expect(http.account('openOrders', key(1))).rejects.toThrow();
    await expect(http.account('openOrders', key(1))).rejects.toThrow();
    expect((await http.submit(signed(PLACE))).outcome).toBe('unknown');
    expect(http.stats.invalidAnswers).toBe(3);
    venue.setBook('BTC-USD', [], []);
    await http.l2book('BTC-USD');
    expect(http.stats.invalidAnswers).toBe(3);
  });

  it('an answer with broken HTTP framing is counted, to a read (node:http) and to an action (raw pool)', async () => {
    for (const raw of [
      'HTTP/1.1 2x0 OK\r\ncontent-length: 2\r\n\r\n[]',
      'HTTP/1.1 200 OK\r\ncontent-length: abc\r\n\r\n[]',
      'HTTP/1.1 200 OK\r\nno colon\r\n\r\n',
    ]) {
      const server = await rawServer(raw);
      const client = new HttpClient({ baseUrl: server.url, readRetries: 0, timeoutMs: 2000, spareSockets: 0 });
      try {
        await expect(client.exchangeInfo()).rejects.toThrow();
        expect((await client.submit(signed(PLACE))).outcome).toBe('unknown');
        expect(client.stats.invalidAnswers).toBe(2);
      } finally {
        client.close();
        await server.close();
      }
    }
  });
});
