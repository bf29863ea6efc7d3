// Raw TCP exchanges for the venue fuzz: bytes written as they are (no HTTP or WebSocket library in the way), the
// answers' status codes read back in order. Invariant: every socket is closed by the time the promise settles.

import { connect } from 'node:net';

export interface RawExchange {
  /** Status codes of the HTTP answers read, in order (the 101 of a WebSocket upgrade included). */
  statuses: number[];
  /** Bytes read after the last complete HTTP head (WebSocket frames after a 101). */
  tail: Buffer;
  /** Who ended the exchange: the server closed, or our wait ran out (then we closed). */
  end: 'closed' | 'timeout';
}

/** Status codes of the HTTP answers in `buf`, in order; stops at a 101 (what follows is not HTTP) or an incomplete answer. */
export function readStatuses(buf: Buffer): { statuses: number[]; rest: Buffer } {
  const statuses: number[] = [];
  let at = 0;
  for (;;) {
    const headEnd = buf.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const head = buf.toString('latin1', at, headEnd);
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
    if (!m) {
      statuses.push(-1);
      return { statuses, rest: buf.subarray(at) };
    }
    const status = Number(m[1]);
    statuses.push(status);
    at = headEnd + 4;
    if (status === 101) break;
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!length) return { statuses, rest: Buffer.alloc(0) };
    at += Number(length[1]);
  }
  return { statuses, rest: buf.subarray(at) };
}

/**
 * Connects to 127.0.0.1:`port`, writes `chunks` one after the other, half-closes (unless `keepOpen`), and collects
 * what comes back until the server closes or `timeoutMs` passes.
 */
export function exchange(port: number, chunks: readonly Buffer[], opts: { timeoutMs: number; keepOpen?: boolean }): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const received: Buffer[] = [];
    let settled = false;
    const finish = (end: RawExchange['end']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const { statuses, rest } = readStatuses(Buffer.concat(received));
      resolve({ statuses, tail: rest, end });
    };
    const timer = setTimeout(() => finish('timeout'), opts.timeoutMs);
    socket.on('data', (d: Buffer) => received.push(d));
    socket.on('error', () => finish('closed'));
    socket.on('close', () => finish('closed'));
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
      if (!opts.keepOpen) socket.end();
    });
  });
}

/** A WebSocket frame, built byte by byte so that any field may be wrong. */
export interface FrameSpec {
  fin?: boolean;
  rsv?: number;
  opcode: number;
  /** Mask key; undefined sends an unmasked frame (a protocol error from a client). */
  mask?: Buffer | undefined;
  payload: Buffer;
  /** Length to declare instead of the payload's. */
  declaredLength?: bigint;
  /** Force the 16- or 64-bit length form even when the length fits a shorter one (non-minimal encoding). */
  lengthForm?: 7 | 16 | 64;
}

export function frame(spec: FrameSpec): Buffer {
  const len = spec.declaredLength ?? BigInt(spec.payload.length);
  const form = spec.lengthForm ?? (len < 126n ? 7 : len < 65536n ? 16 : 64);
  const head: number[] = [((spec.fin ?? true) ? 0x80 : 0) | ((spec.rsv ?? 0) << 4) | (spec.opcode & 0x0f)];
  const maskBit = spec.mask ? 0x80 : 0;
  let ext = Buffer.alloc(0);
  if (form === 7) head.push(maskBit | Number(len & 0x7fn));
  else if (form === 16) {
    head.push(maskBit | 126);
    ext = Buffer.alloc(2);
    ext.writeUInt16BE(Number(len & 0xffffn));
  } else {
    head.push(maskBit | 127);
    ext = Buffer.alloc(8);
    ext.writeBigUInt64BE(len & 0xffffffffffffffffn);
  }
  const body = Buffer.from(spec.payload);
  if (spec.mask) for (let i = 0; i < body.length; i++) body[i]! ^= spec.mask[i % 4]!;
  return Buffer.concat([Buffer.from(head), ext, spec.mask ?? Buffer.alloc(0), body]);
}

/** The HTTP upgrade request of a WebSocket client (RFC 6455 §4.1) for `path`. */
export function upgradeRequest(path: string, headers: Record<string, string> = {}): Buffer {
  const all: Record<string, string> = {
    host: '127.0.0.1',
    upgrade: 'websocket',
    connection: 'Upgrade',
    'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    'sec-websocket-version': '13',
    ...headers,
  };
  const lines = Object.entries(all)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k}: ${v}`);
  return Buffer.from(`GET ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}
