import type { IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { WsConnection } from '../../../src/client/ws-connection.js';
import { holdData } from '../../../src/core/command-hold.js';
import type { StreamMessage } from '../../../src/protocol/v1/stream.js';
import { until } from '../../support/until.js';

const SYMBOL = 'BTC-USD';
/** Routing work per frame in the sink (book, strategy), µs: a backlog read at once is then long enough to matter. */
const WORK_US = 50;
/** Book timestamps are epoch ms; frame i carries TS0 + i. */
const TS0 = 1_763_770_000_000;

/** `n` l2Delta frames, unmasked, in one buffer. */
function backlog(n: number): Buffer {
  const frames: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const book = `{"updateType":"delta","symbol":"${SYMBOL}","levels":[[{"px":${90_000 - (i % 100)},"sz":1,"n":1}],[]],"timestamp":${TS0 + i}}`;
    const payload = Buffer.from(`{"type":"l2Delta","data":{"book":${book}},"topic":"l2delta.${SYMBOL}"}`);
    frames.push(Buffer.from([0x81, 126, payload.length >> 8, payload.length & 255]), payload);
  }
  return Buffer.concat(frames);
}

/** A WebSocket server that writes `stream` in one write after the client's first message (its subscribe); then `after`. */
async function burstServer(stream: Buffer, after: 'stay' | 'drop'): Promise<{ url: string; server: Server }> {
  const wss = new WebSocketServer({ noServer: true });
  const server = createServer();
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) =>
    wss.handleUpgrade(req, socket, head, (ws) =>
      ws.once('message', () => {
        socket.write(stream);
        if (after === 'drop') socket.end();
      }),
    ),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`, server };
}

const busy = (us: number) => {
  const end = process.hrtime.bigint() + BigInt(us * 1000);
  while (process.hrtime.bigint() < end);
};

let conn: WsConnection | undefined;
let server: Server | undefined;
afterEach(async () => {
  conn?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

describe('WsConnection: a backlog of frames read at once', () => {
  it('routes every frame in order, a 1 ms timer firing between slices of at most 10 ms of routing', async () => {
    const n = 20_000;
    const s = await burstServer(backlog(n), 'stay');
    server = s.server;
    const seen: number[] = [];
    /** Frames routed since the timer last fired, and the most of them between two firings. */
    let sinceTick = 0;
    let mostBetweenTicks = 0;
    let ticks = 0;
    const c = new WsConnection({ url: s.url, idleTimeoutMs: 60_000 });
    conn = c;
    c.subscribe({ type: 'l2Delta', symbol: SYMBOL }, (m: StreamMessage) => {
      if (m.type !== 'l2Delta') return;
      if (seen.length === 0) tick();
      seen.push(Number(m.data.book.timestamp) - TS0);
      sinceTick++;
      busy(WORK_US);
    });
    // A timer chain standing for a command: how much routing runs before it gets its turn. Counted in frames (each
    // WORK_US of routing), not in wall time, so a loaded machine descheduling the test does not change the count.
    function tick() {
      setTimeout(() => {
        mostBetweenTicks = Math.max(mostBetweenTicks, sinceTick);
        sinceTick = 0;
        ticks++;
        if (seen.length < n) tick();
      }, 1);
    }
    await until(() => seen.length === n, `${n} frames`, 30_000);
    expect(seen).toEqual(Array.from({ length: n }, (_, i) => i));
    // Slices are 0.5 ms (10 frames here), two at most between timer turns (one read, one drain): 10 ms is 10 times that.
    expect(mostBetweenTicks * WORK_US).toBeLessThan(10_000);
    expect(ticks).toBeGreaterThan(50);
  }, 40_000);

  it('tells the close that followed a backlog only after every frame of it', async () => {
    const n = 5_000;
    const s = await burstServer(backlog(n), 'drop');
    server = s.server;
    let seen = 0;
    let seenAtClose: number | undefined;
    const c = new WsConnection({ url: s.url, backoff: { initialMs: 60_000, maxMs: 60_000 } });
    conn = c;
    c.state$.subscribe((state) => {
      if (state === 'backingOff') seenAtClose ??= seen;
    });
    c.subscribe({ type: 'l2Delta', symbol: SYMBOL }, () => {
      seen++;
      busy(WORK_US);
    });
    await until(() => seenAtClose !== undefined, 'the close', 30_000);
    expect(seenAtClose).toBe(n);
    expect(c.stats.messages).toBe(n);
  }, 40_000);

  it('routes no frame while a command holds data back (core/command-hold.ts), then the rest in order', async () => {
    const n = 5_000;
    const s = await burstServer(backlog(n), 'stay');
    server = s.server;
    const seen: number[] = [];
    let release: (() => void) | undefined;
    let routedWhileHeld = 0;
    const c = new WsConnection({ url: s.url, idleTimeoutMs: 60_000 });
    conn = c;
    c.subscribe({ type: 'l2Delta', symbol: SYMBOL }, (m: StreamMessage) => {
      if (m.type !== 'l2Delta') return;
      if (release) routedWhileHeld++;
      seen.push(Number(m.data.book.timestamp) - TS0);
      busy(WORK_US);
      if (seen.length === 100) {
        const r = holdData();
        release = r;
        // Three timer turns with the hold on (well within HOLD_MAX_MS of routing): none of them routes a frame.
        setTimeout(() =>
          setTimeout(() =>
            setTimeout(() => {
              release = undefined;
              r();
            }),
          ),
        );
      }
    });
    await until(() => seen.length === n, `${n} frames`, 30_000);
    expect(routedWhileHeld).toBe(0);
    expect(seen).toEqual(Array.from({ length: n }, (_, i) => i));
  }, 40_000);
});
