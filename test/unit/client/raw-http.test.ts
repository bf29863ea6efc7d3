import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RawHttpPool } from '../../../src/client/raw-http.js';
import { until } from '../../support/until.js';

/** A TCP server answering each request (one per read) with the next canned bytes ('CLOSE' drops the socket, 'HANG' says nothing). */
async function rawServer(answers: string[]): Promise<{ server: Server; port: number; sockets: Set<Socket>; served: Map<Socket, number> }> {
  const sockets = new Set<Socket>();
  const served = new Map<Socket, number>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => {
      served.set(socket, (served.get(socket) ?? 0) + 1);
      const answer = answers.shift();
      if (answer === undefined || answer === 'HANG') return;
      if (answer === 'CLOSE') return socket.destroy();
      // split in two writes so the parser sees partial answers
      socket.write(answer.slice(0, 10));
      setTimeout(() => socket.write(answer.slice(10)), 5);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port, sockets, served };
}

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

function pool(port: number, opts: { spare?: number; urgentSpare?: number; idleMs?: number; nowMs?: () => number } = {}): RawHttpPool {
  const p = new RawHttpPool({
    host: '127.0.0.1',
    port,
    hostHeader: `127.0.0.1:${port}`,
    maxSockets: 2,
    maxBodyBytes: 1000,
    idleMs: 4000,
    nowMs: () => Date.now(),
    ...opts,
  });
  cleanup.push(() => p.close());
  return p;
}

function send(p: RawHttpPool, body = '{}'): Promise<{ written: boolean; status?: number; body?: string; retryAfter?: string; error?: string }> {
  return new Promise((resolve) => {
    let written = false;
    p.request('POST', '/api/v1/order', body, {
      written: () => (written = true),
      answer: (status, headers, text) => resolve({ written, status, body: text, retryAfter: headers.get('retry-after') }),
      failed: (error) => resolve({ written, error }),
    });
  });
}

describe('RawHttpPool', () => {
  it('reads content-length and chunked answers (skipping 1xx) and reuses the kept-alive socket', async () => {
    const { server, port, sockets } = await rawServer([
      'HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{"ok":true}',
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many\r\nTransfer-Encoding: chunked\r\nRetry-After: 2\r\n\r\n4\r\n{"a"\r\n3;x=1\r\n:1}\r\n0\r\n\r\n',
    ]);
    cleanup.push(() => server.close());
    const p = pool(port);
    expect(await send(p)).toEqual({ written: true, status: 200, body: '{"ok":true}', retryAfter: undefined });
    expect(await send(p)).toEqual({ written: true, status: 429, body: '{"a":1}', retryAfter: '2' });
    expect(sockets.size).toBe(1);
  });

  it('reads an answer without length up to the close and does not reuse a Connection: close socket', async () => {
    const { server, port, sockets } = await rawServer([
      'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok',
      'HTTP/1.0 200 OK\r\n\r\nuntil close',
    ]);
    cleanup.push(() => server.close());
    const p = pool(port);
    expect(await send(p)).toMatchObject({ status: 200, body: 'ok' });
    const second = send(p);
    await new Promise((r) => setTimeout(r, 20));
    for (const s of sockets) s.end();
    expect(await second).toMatchObject({ status: 200, body: 'until close' });
    expect(sockets.size).toBe(2);
  });

  it('fails a request whose socket closes before the answer, or whose answer is malformed or too large', async () => {
    const { server, port } = await rawServer(['CLOSE', 'garbage\r\n\r\n', `HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n`]);
    cleanup.push(() => server.close());
    const p = pool(port);
    expect(await send(p)).toEqual({ written: true, error: 'socket hang up' });
    expect(await send(p)).toEqual({ written: true, error: 'malformed status line' });
    expect(await send(p)).toEqual({ written: true, error: 'answer larger than 1000 bytes' });
  });

  it('a content-length that is not plain digits (1e2, 0x10, +5, 5.0) is a malformed answer, not a lost connection', async () => {
    const lengths = ['1e2', '0x10', '+5', '5.0'];
    const { server, port } = await rawServer(lengths.map((l) => `HTTP/1.1 200 OK\r\nContent-Length: ${l}\r\n\r\n{"ok":true}`));
    cleanup.push(() => server.close());
    const p = pool(port);
    for (const _ of lengths) expect(await send(p)).toEqual({ written: true, error: 'malformed content-length' });
  });

  it('a chunk size that is not plain hex digits (4z, 0x4, -4, +4, empty) or chunk data not followed by CRLF is a malformed answer', async () => {
    const sizes = ['4z', '0x4', '-4', '+4', ''];
    const answers = sizes.map((n) => `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${n}\r\n{"a"\r\n0\r\n\r\n`);
    const overrun = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{"a"}\r\n0\r\n\r\n';
    const { server, port } = await rawServer([...answers, overrun]);
    cleanup.push(() => server.close());
    const p = pool(port);
    for (const _ of answers) expect(await send(p)).toEqual({ written: true, error: 'malformed chunk size' });
    expect(await send(p)).toEqual({ written: true, error: 'malformed chunk' });
  });

  it('close() fails the request in flight; the pool still serves later requests', async () => {
    const { server, port } = await rawServer(['HANG', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok']);
    cleanup.push(() => server.close());
    const p = pool(port);
    const stuck = send(p);
    await new Promise((r) => setTimeout(r, 20));
    p.close();
    expect(await stuck).toMatchObject({ error: 'socket hang up' });
    expect(await send(p)).toMatchObject({ status: 200, body: 'ok' });
  });

  it('reports a refused connection without having written anything', async () => {
    const { server, port } = await rawServer([]);
    await new Promise((r) => server.close(r));
    expect(await send(pool(port))).toMatchObject({ written: false, error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('requestText: the exact request, content-length in UTF-8 bytes; building it opens no socket', async () => {
    const { server, port, sockets } = await rawServer([]);
    cleanup.push(() => server.close());
    const p = pool(port);
    expect(p.requestText('POST', '/api/v1/order', '{"a":"é€"}')).toBe(
      `POST /api/v1/order HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\naccept: application/json\r\ncontent-type: application/json\r\ncontent-length: 13\r\nconnection: keep-alive\r\n\r\n{"a":"é€"}`,
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(sockets.size).toBe(0);
  });

  describe('spare sockets', () => {
    const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

    it('keeps one connected socket ready beside the busy one, so the next request needs no handshake', async () => {
      const { server, port, sockets } = await rawServer(['HANG', OK]);
      cleanup.push(() => server.close());
      const p = pool(port, { spare: 1 });
      const first = send(p);
      await until(() => sockets.size === 2, 'the busy socket and a spare', 1_000);
      // The second request is written on the spare at once (not after a connect), while the first still hangs.
      let writtenSync = false;
      const second = new Promise((resolve) => {
        p.request('POST', '/', '{}', { written: () => (writtenSync = true), answer: (status) => resolve(status), failed: resolve });
      });
      expect(writtenSync).toBe(true);
      expect(await second).toBe(200);
      p.close();
      expect(await first).toMatchObject({ error: 'socket hang up' });
    });

    it('uses idle sockets in turn, so that a spare is in use (and stays fresh) while requests come', async () => {
      const { server, port, sockets, served } = await rawServer([OK, OK, OK, OK]);
      cleanup.push(() => server.close());
      const p = pool(port, { spare: 1 });
      for (let i = 0; i < 4; i++) {
        expect(await send(p)).toMatchObject({ status: 200 });
        await until(() => sockets.size === 2, 'the used socket and a spare', 1_000);
      }
      expect([...served.values()]).toEqual([2, 2]);
    });

    it('never opens more than maxSockets, spares included', async () => {
      const { server, port, sockets } = await rawServer(['HANG', 'HANG', 'HANG']);
      cleanup.push(() => server.close());
      const p = pool(port, { spare: 5 });
      void send(p);
      await until(() => sockets.size === 2, 'maxSockets (2) sockets', 1_000);
      await new Promise((r) => setTimeout(r, 30));
      expect(sockets.size).toBe(2);
    });

    it('replaces idle sockets before they grow stale while requests come, and lets spares lapse once they stop', async () => {
      const { server, port, sockets } = await rawServer([OK, OK]);
      cleanup.push(() => server.close());
      let now = 0;
      const p = pool(port, { spare: 1, idleMs: 40, nowMs: () => now });
      expect(await send(p)).toMatchObject({ status: 200 });
      await until(() => sockets.size === 2, 'the used socket and a spare', 1_000);
      const firstTwo = [...sockets];
      now += 35; // both idle sockets are past 3/4 of idleMs: the next sweep (every 10 ms) replaces them with one spare
      await until(() => firstTwo.every((s) => s.destroyed) && sockets.size === 3, 'both idle sockets replaced by one spare', 1_000);
      expect(await send(p)).toMatchObject({ status: 200 });
      now += 40 * 15; // no request for 15 idle periods: stale sockets go and no spare replaces them
      await until(() => [...sockets].every((s) => s.destroyed), 'every socket closed', 1_000);
      const seen = sockets.size;
      await new Promise((r) => setTimeout(r, 50));
      expect(sockets.size).toBe(seen);
    });

    it('does not retry a spare that cannot connect until the next request', async () => {
      const { server, port } = await rawServer([]);
      await new Promise((r) => server.close(r));
      let connects = 0;
      const p = pool(port, { spare: 1 });
      const original = (p as unknown as { connect: () => unknown }).connect.bind(p);
      (p as unknown as { connect: () => unknown }).connect = () => (connects++, original());
      expect(await send(p)).toMatchObject({ written: false, error: expect.stringMatching(/ECONNREFUSED/) });
      await new Promise((r) => setTimeout(r, 50));
      expect(connects).toBe(2);
    });

    it('keeps a socket for urgent requests (cancels) beside maxSockets: the others leave it idle and wait', async () => {
      const { server, port, sockets } = await rawServer(['HANG', 'HANG', OK, OK]);
      cleanup.push(() => server.close());
      const p = pool(port, { urgentSpare: 1 });
      const busy = [send(p), send(p)];
      await until(() => sockets.size === 3, 'maxSockets (2) busy sockets and the urgent spare', 1_000);
      let thirdWritten = false;
      const third = new Promise((resolve) => {
        p.request('POST', '/', '{}', { written: () => (thirdWritten = true), answer: (status) => resolve(status), failed: resolve });
      });
      expect(thirdWritten).toBe(false);
      let urgentWritten = false;
      const urgent = new Promise((resolve) => {
        p.request('POST', '/', '{}', { written: () => (urgentWritten = true), answer: (status) => resolve(status), failed: resolve }, true);
      });
      expect(urgentWritten).toBe(true);
      expect(await urgent).toBe(200);
      expect(await third).toBe(200);
      p.close();
      for (const b of busy) expect(await b).toMatchObject({ error: 'socket hang up' });
    });

    it('an urgent request with every socket busy opens one beyond maxSockets instead of waiting', async () => {
      const { server, port, sockets } = await rawServer(['HANG', 'HANG', OK]);
      cleanup.push(() => server.close());
      const p = pool(port);
      void send(p);
      void send(p);
      await until(() => sockets.size === 2, 'maxSockets (2) busy sockets', 1_000);
      const urgent = new Promise((resolve) => {
        p.request('POST', '/', '{}', { written: () => undefined, answer: (status) => resolve(status), failed: resolve }, true);
      });
      expect(await urgent).toBe(200);
      expect(sockets.size).toBe(3);
    });

    it('rejects a negative spare count', () => {
      expect(() => pool(1, { spare: -1 })).toThrow(/spare must be a non-negative integer/);
    });
  });
});
