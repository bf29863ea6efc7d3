// Benchmark `ingest`: L2 deltas through one connection into book$, beside a bare ws + JSON.parse client, and book apply;
// each rate per wall second and per second of the process's CPU time (`*_per_cpu_s`: on a shared machine the wall-clock
// rates follow the load; the CPU-time ones less, though contention still slows a CPU second). Invariant: both clients
// read identical pre-built frames from the same loopback server in the same run; values are medians.

import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket } from 'ws';
import { HttpClient } from '../src/client/http.js';
import { liveVenueOf } from '../src/client/venue.js';
import { WsPool } from '../src/client/ws-pool.js';
import type { BookUpdate } from '../src/core/market-data.js';
import { L2Book } from '../src/market/book.js';
import { MarketStreams } from '../src/market/market.js';
import { median, rate, report } from './lib.js';
import { wsTextFrames } from './support/ws-frames.js';

const BENCH = 'ingest';
const SYMBOL = 'BTC-USD';
const DELTAS = 200_000;
const RUNS = 5;
/** Book timestamps are milliseconds (venue-protocol §9.2). */
const TS0 = 1_763_770_000_000;

/** Book levels as the v1 wire writes them: bids, then asks. */
type WireLevels = [{ px: number; sz: number; n: number }[], { px: number; sz: number; n: number }[]];

/** Deterministic deltas around a 90 000 mid: bids below, asks above (never crossed), one in eight a delete. */
function deltas(n: number): WireLevels[] {
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: WireLevels[] = [];
  for (let i = 0; i < n; i++) {
    const bid = i % 2 === 0;
    const px = bid ? 90_000 - 0.5 * (1 + Math.floor(rnd() * 400)) : 90_000 + 0.5 * (1 + Math.floor(rnd() * 400));
    const sz = rnd() < 0.125 ? 0 : Math.round(rnd() * 10_000) / 1000;
    const level = [{ px, sz, n: 0 }];
    out.push(bid ? [level, []] : [[], level]);
  }
  return out;
}

function frameText(updateType: 'snapshot' | 'delta', levels: WireLevels, i: number): string {
  const book = `{"updateType":"${updateType}","symbol":"${SYMBOL}","levels":${JSON.stringify(levels)},"timestamp":${TS0 + i}}`;
  return `{"type":"l2Delta","data":{"book":${book}},"topic":"l2delta.${SYMBOL}"}`;
}

/** A minimal WebSocket server: after the client's first frame (its subscribe), writes every pre-built frame at once. */
function startServer(stream: Buffer): Promise<{ url: string; close: () => void }> {
  const server = createServer();
  const sockets = new Set<Socket>();
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    socket.once('data', () => socket.write(stream));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `ws://127.0.0.1:${port}/ws`,
        close: () => {
          for (const s of sockets) s.destroy();
          server.close();
        },
      });
    }),
  );
}

const SUBSCRIBE = JSON.stringify({ method: 'subscribe', subscription: [{ type: 'l2Delta', symbol: SYMBOL }] });

/** Frames per wall second and per second of process CPU time. */
interface Rates {
  wall: number;
  cpu: number;
}

/** Starts measuring now; `rates(n)` gives n per wall second and per CPU second since then. */
function stopwatch(): { rates(n: number): Rates } {
  const wall = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  return {
    rates(n) {
      const wallS = Number(process.hrtime.bigint() - wall) / 1e9;
      const used = process.cpuUsage(cpu);
      return { wall: n / wallS, cpu: n / ((used.user + used.system) / 1e6) };
    },
  };
}

/** lib's rate() of `fn` over `ms`, with its CPU-time twin (the calls it made over the CPU time they took). */
function callRates(fn: () => void, ms: number): Rates {
  const watch = stopwatch();
  const wall = rate(fn, ms);
  const per = watch.rates(1);
  return { wall, cpu: (wall / per.wall) * per.cpu };
}

/** Bare ws client + JSON.parse: frames per second until the last delta. */
function rawRun(url: string, frames: number): Promise<Rates> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    let count = 0;
    let watch: ReturnType<typeof stopwatch>;
    let sink = 0;
    ws.on('open', () => {
      watch = stopwatch();
      ws.send(SUBSCRIBE);
    });
    ws.on('message', (data) => {
      sink += (JSON.parse(data.toString()) as { topic: string }).topic.length;
      if (++count === frames) {
        const rates = watch.rates(frames - 1);
        ws.terminate();
        resolve(sink > 0 ? rates : { wall: 0, cpu: 0 });
      }
    });
  });
}

/** perpbot: one connection → validated routing → the venue port (vocabulary) → book builder → book$ subscriber. */
function bookRun(url: string, frames: number): Promise<Rates> {
  return new Promise((resolve) => {
    const pool = new WsPool({ url });
    // The cross-check is off: the HTTP client is never asked anything.
    const http = new HttpClient({ baseUrl: 'http://127.0.0.1:9/api/v1' });
    const venue = liveVenueOf({ http, pool, dialect: 'v1', network: 'mainnet' });
    const market = new MarketStreams({ source: venue.market, crossCheckMs: 0 });
    const watch = stopwatch();
    let best = 0;
    const sub = market.book$(SYMBOL).subscribe((book) => {
      best += book.bestBid()?.price ?? 0;
      if (book.version === frames) {
        const rates = watch.rates(frames - 1);
        sub.unsubscribe();
        venue.close();
        resolve(best > 0 ? rates : { wall: 0, cpu: 0 });
      }
    });
  });
}

const all = deltas(DELTAS);
const snapshot: WireLevels = [
  Array.from({ length: 100 }, (_, i) => ({ px: 89_999.5 - i * 0.5, sz: 1, n: 1 })),
  Array.from({ length: 100 }, (_, i) => ({ px: 90_000.5 + i * 0.5, sz: 1, n: 1 })),
];
const stream = wsTextFrames([frameText('snapshot', snapshot, 0), ...all.map((d, i) => frameText('delta', d, i + 1))]);
const server = await startServer(stream);
const frames = DELTAS + 1;
const raw: Rates[] = [];
const ours: Rates[] = [];
const ratios: number[] = [];
await rawRun(server.url, frames);
await bookRun(server.url, frames);
for (let r = 0; r < RUNS; r++) {
  const a = await rawRun(server.url, frames);
  const b = await bookRun(server.url, frames);
  raw.push(a);
  ours.push(b);
  ratios.push(b.wall / a.wall);
}
server.close();

/** The book update the venue port delivers for `levels`. */
const updateOf = (kind: BookUpdate['kind'], [bids, asks]: WireLevels): BookUpdate => {
  const level = (l: { px: number; sz: number; n: number }) => ({ price: l.px, size: l.sz, orders: l.n });
  return { kind, symbol: SYMBOL, bids: bids.map(level), asks: asks.map(level), venueTimeMs: TS0, arrivalNs: 0n };
};
const book = new L2Book(SYMBOL);
book.apply(updateOf('snapshot', snapshot));
const updates = all.map((d) => updateOf('delta', d));
let i = 0;
const applyRates: Rates[] = [];
for (let r = 0; r < RUNS; r++) applyRates.push(callRates(() => book.apply(updates[i++ % DELTAS]!), 300));

const wall = (rs: Rates[]) => median(rs.map((x) => x.wall));
const cpu = (rs: Rates[]) => median(rs.map((x) => x.cpu));
report(BENCH, 'deltas_per_s', wall(ours), 'deltas/s');
report(BENCH, 'raw_ws_parse_per_s', wall(raw), 'frames/s');
report(BENCH, 'ingest_ratio', median(ratios), 'ratio');
report(BENCH, 'book_apply_per_s', wall(applyRates), 'deltas/s');
report(BENCH, 'deltas_per_cpu_s', cpu(ours), 'deltas/s');
report(BENCH, 'raw_ws_parse_per_cpu_s', cpu(raw), 'frames/s');
report(BENCH, 'book_apply_per_cpu_s', cpu(applyRates), 'deltas/s');
