// Loopback load generator for bench `venue-http` (wrk-style): signs N single-order actions up front,
// then pipelines them as raw HTTP/1.1 requests over a few keep-alive TCP connections, parses every
// response, and prints {"ordersPerS", "accepted", "sent"}. Connection i signs with keyForConnection(seed, i).
// Usage: node http-load.js URL SEED_HEX N CONNECTIONS

import { connect, type Socket } from 'node:net';
import { systemClock } from '../../src/core/clock.js';
import type { Keypair } from '../../src/protocol/keys.js';
import { MemoryNonceStore, NonceSource } from '../../src/protocol/nonce.js';
import { signRequest } from '../../src/protocol/sign.js';
import { v1Codec } from '../../src/protocol/v1/codec.js';
import { keyForConnection } from './keys.js';

const [url, seedHex, countText, connectionsText] = process.argv.slice(2) as [string, string, string, string];
const count = Number(countText);
const connections = Number(connectionsText);
/** Requests in flight per connection. */
const WINDOW = 32;
const target = new URL(`${url}/order`);

/** Requests of one connection, one signer: nonces increase in the order they are sent. */
function signedRequests(key: Keypair, n: number): string[] {
  const nonces = new NonceSource({ signer: key.publicKey, clock: systemClock(), store: new MemoryNonceStore() });
  return Array.from({ length: n }, (_, i) => {
    const isBuy = i % 2 === 0;
    const order = { c: 'BTC-USD', b: isBuy, px: isBuy ? 1000 : 500_000, sz: 0.01, r: false, t: { limit: { tif: 'GTC' } } };
    const input = {
      actions: { type: 'order', orders: [{ order }] },
      account: key.publicKey,
      signer: key.publicKey,
      nonce: nonces.next(),
      network: 'mainnet' as const,
      mode: 'raw' as const,
    };
    const body = signRequest(v1Codec, key, input).bodyText;
    return `POST ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  });
}

/** Parses complete HTTP responses off the front of `buf`; returns the rest and counts accepted orders. */
function takeResponses(buf: Buffer, onResponse: (accepted: boolean) => void): Buffer {
  for (;;) {
    const headEnd = buf.indexOf('\r\n\r\n');
    if (headEnd < 0) return buf;
    const head = buf.subarray(0, headEnd).toString('latin1');
    const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (buf.length < headEnd + 4 + length) return buf;
    const body = buf.subarray(headEnd + 4, headEnd + 4 + length);
    onResponse(head.startsWith('HTTP/1.1 200') && body.includes('"resting"'));
    buf = buf.subarray(headEnd + 4 + length);
  }
}

let accepted = 0;

function run(socket: Socket, requests: string[]): Promise<void> {
  let next = 0;
  return new Promise((resolve, reject) => {
    let pending = 0;
    let buf: Buffer = Buffer.alloc(0);
    const send = () => {
      const batch: string[] = [];
      while (pending + batch.length < WINDOW && next < requests.length) batch.push(requests[next++]!);
      pending += batch.length;
      if (batch.length) socket.write(batch.join(''));
      else if (pending === 0) {
        socket.end();
        resolve();
      }
    };
    socket.on('data', (chunk: Buffer) => {
      buf = takeResponses(buf.length ? Buffer.concat([buf, chunk]) : chunk, (ok) => {
        pending--;
        if (ok) accepted++;
      });
      send();
    });
    socket.on('error', reject);
    send();
  });
}

const sockets = await Promise.all(
  Array.from(
    { length: connections },
    () =>
      new Promise<Socket>((resolve) => {
        const s = connect(Number(target.port), target.hostname, () => resolve(s));
      }),
  ),
);
const perConnection = sockets.map((_, i) => signedRequests(keyForConnection(seedHex, i), Math.floor(count / connections)));
const sent = perConnection.reduce((n, r) => n + r.length, 0);
const start = process.hrtime.bigint();
await Promise.all(sockets.map((s, i) => run(s, perConnection[i]!)));
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
process.stdout.write(`${JSON.stringify({ ordersPerS: accepted / seconds, accepted, sent })}\n`);
