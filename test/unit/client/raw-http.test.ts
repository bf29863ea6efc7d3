import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RawHttpPool } from '../../../src/client/raw-http.js';

/** A TCP server answering each request (one per read) with the next canned bytes ('CLOSE' drops the socket, 'HANG' says nothing). */
async function rawServer(answers: string[]): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => {
      const answer = answers.shift();
      if (answer === undefined || answer === 'HANG') return;
      if (answer === 'CLOSE') return socket.destroy();
      // split in two writes so the parser sees partial answers
      socket.write(answer.slice(0, 10));
      setTimeout(() => socket.write(answer.slice(10)), 5);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port, sockets };
}

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

function pool(port: number): RawHttpPool {
  const p = new RawHttpPool({ host: '127.0.0.1', port, hostHeader: `127.0.0.1:${port}`, maxSockets: 2, maxBodyBytes: 1000, idleMs: 4000, nowMs: () => Date.now() });
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
    const { server, port, sockets } = await rawServer(['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok', 'HTTP/1.0 200 OK\r\n\r\nuntil close']);
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
});
