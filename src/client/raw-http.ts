// Minimal HTTP/1.1 client over kept-alive plain TCP sockets, for signed actions: the request is written synchronously on an open socket.
// Invariants: one request per socket at a time (no pipelining); a socket is reused only after a complete keep-alive answer; `written` = bytes handed to the kernel.

import { connect, type Socket } from 'node:net';

/** What happens to one request; exactly one of `answer` / `failed` is called, `written` at most once before it. */
export interface RawHandlers {
  written(): void;
  answer(status: number, headers: ReadonlyMap<string, string>, body: string): void;
  /** `malformed`: the answer broke HTTP framing (not a lost connection). */
  failed(message: string, malformed?: boolean): void;
}

export interface RawPoolOptions {
  host: string;
  port: number;
  /** Value of the Host header. */
  hostHeader: string;
  maxSockets: number;
  maxBodyBytes: number;
  /** An idle socket older than this is not reused (the server may be closing it). */
  idleMs: number;
  /**
   * Connected idle sockets kept ready while the pool is in use (requests in the last SPARE_ACTIVE_IDLE_PERIODS idle
   * periods), so that a burst or the first request after a pause does not wait for a TCP handshake. Default 0.
   */
  spare?: number;
  /**
   * Further connected idle sockets kept (like spares) for urgent requests only (cancels): the others leave them idle, so
   * a cancel never waits for a handshake behind a burst of orders. Default 0.
   */
  urgentSpare?: number;
  nowMs: () => number;
}

/** Spares are kept ready while a request was made within this many `idleMs`; then they lapse until the next one. */
const SPARE_ACTIVE_IDLE_PERIODS = 15;

const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const MAX_HEAD_BYTES = 64 * 1024;
/** A chunk size: hex digits only (RFC 9112 §7.1), at most 13 (a safe integer). */
const CHUNK_SIZE = /^[0-9a-fA-F]{1,13}$/;

type Parsed = { status: number; headers: Map<string, string>; body: string; keepAlive: boolean } | { error: string } | undefined;

/** Parses one complete answer from `buf`, undefined while incomplete; `closed` ends a body without length. */
function parseAnswer(buf: Buffer, closed: boolean, maxBodyBytes: number): Parsed {
  let start = 0;
  for (;;) {
    const headEnd = buf.indexOf(HEAD_END, start);
    if (headEnd < 0) return buf.length - start > MAX_HEAD_BYTES ? { error: 'answer headers too large' } : undefined;
    const lines = buf.toString('latin1', start, headEnd).split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0]!);
    if (!m) return { error: 'malformed status line' };
    const status = Number(m[2]);
    const headers = new Map<string, string>();
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0) return { error: 'malformed header line' };
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const before = headers.get(name);
      headers.set(name, before === undefined ? value : `${before}, ${value}`);
    }
    const bodyStart = headEnd + 4;
    if (status >= 100 && status < 200) {
      start = bodyStart;
      continue;
    }
    const keepAlive = m[1] === '1' && !/(^|,)\s*close\s*(,|$)/i.test(headers.get('connection') ?? '');
    if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) return parseChunked(buf, bodyStart, status, headers, keepAlive, maxBodyBytes);
    const length = headers.get('content-length');
    if (length !== undefined) {
      // 1*DIGIT (RFC 9110 §8.6): Number() would also take 1e3, 0x10, +5 or 5.0.
      const n = /^\d+$/.test(length) ? Number(length) : Number.NaN;
      if (!Number.isSafeInteger(n)) return { error: 'malformed content-length' };
      if (n > maxBodyBytes) return { error: `answer larger than ${maxBodyBytes} bytes` };
      if (buf.length < bodyStart + n) return undefined;
      return { status, headers, body: buf.toString('utf8', bodyStart, bodyStart + n), keepAlive: keepAlive && buf.length === bodyStart + n };
    }
    if (status === 204 || status === 304) return { status, headers, body: '', keepAlive };
    if (buf.length - bodyStart > maxBodyBytes) return { error: `answer larger than ${maxBodyBytes} bytes` };
    return closed ? { status, headers, body: buf.toString('utf8', bodyStart), keepAlive: false } : undefined;
  }
}

function parseChunked(buf: Buffer, from: number, status: number, headers: Map<string, string>, keepAlive: boolean, maxBodyBytes: number): Parsed {
  const parts: Buffer[] = [];
  let size = 0;
  let pos = from;
  for (;;) {
    const lineEnd = buf.indexOf(CRLF, pos);
    if (lineEnd < 0) return undefined;
    const sizeText = buf.toString('latin1', pos, lineEnd).split(';')[0]!.trimEnd();
    if (!CHUNK_SIZE.test(sizeText)) return { error: 'malformed chunk size' };
    const n = Number.parseInt(sizeText, 16);
    if (n === 0) {
      if (buf.length < lineEnd + 4) return undefined;
      const end = buf.indexOf(CRLF, lineEnd + 2) === lineEnd + 2 ? lineEnd + 4 : buf.indexOf(HEAD_END, lineEnd) + 4;
      if (end < 4) return undefined;
      return { status, headers, body: Buffer.concat(parts).toString('utf8'), keepAlive: keepAlive && buf.length === end };
    }
    size += n;
    if (size > maxBodyBytes) return { error: `answer larger than ${maxBodyBytes} bytes` };
    if (buf.length < lineEnd + 2 + n + 2) return undefined;
    if (buf[lineEnd + 2 + n] !== 13 || buf[lineEnd + 3 + n] !== 10) return { error: 'malformed chunk' };
    parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + n));
    pos = lineEnd + 2 + n + 2;
  }
}

/** One socket and the request it carries. */
class Connection {
  handlers: RawHandlers | undefined;
  idleSinceMs = 0;
  private buf: Buffer | undefined;

  constructor(
    readonly socket: Socket,
    private readonly pool: RawHttpPool,
    private readonly maxBodyBytes: number,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (e) => this.lost(e.message));
    socket.on('close', () => this.onClose());
  }

  start(data: string, handlers: RawHandlers): void {
    this.handlers = handlers;
    this.buf = undefined;
    let reported = false;
    const written = () => {
      if (reported || this.handlers !== handlers) return;
      reported = true;
      handlers.written();
    };
    this.socket.write(data, 'utf8', (e) => {
      if (!e) written();
    });
    // Fully handed to the kernel by the synchronous write: observable now, not a tick later.
    if (!this.socket.connecting && this.socket.writableLength === 0) written();
  }

  /** Drops the request (the caller settled it) and the socket. */
  abort(): void {
    this.handlers = undefined;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (!this.handlers) {
      this.socket.destroy(); // bytes nobody asked for: the socket cannot be trusted any more
      return;
    }
    this.buf = this.buf ? Buffer.concat([this.buf, chunk]) : chunk;
    this.complete(parseAnswer(this.buf, false, this.maxBodyBytes));
  }

  private onClose(): void {
    this.pool.forget(this);
    if (!this.handlers) return;
    if (this.buf) this.complete(parseAnswer(this.buf, true, this.maxBodyBytes));
    this.lost(this.buf ? 'connection lost while reading the answer' : 'socket hang up');
  }

  private complete(parsed: Parsed): void {
    if (!parsed) return;
    const handlers = this.handlers!;
    this.handlers = undefined;
    this.buf = undefined;
    if ('error' in parsed) {
      this.socket.destroy();
      return handlers.failed(parsed.error, true);
    }
    if (parsed.keepAlive) this.pool.release(this);
    else this.socket.destroy();
    handlers.answer(parsed.status, parsed.headers, parsed.body);
  }

  private lost(message: string): void {
    const handlers = this.handlers;
    this.handlers = undefined;
    this.socket.destroy();
    handlers?.failed(message);
  }
}

/** Kept-alive sockets to one host; requests beyond `maxSockets` wait for a free socket. */
export class RawHttpPool {
  private readonly idle: Connection[] = [];
  private readonly open = new Set<Connection>();
  /** Spares not connected yet (also in `open`). */
  private readonly connecting = new Set<Connection>();
  private readonly waiting: (() => void)[] = [];
  private readonly spare: number;
  private readonly urgentSpare: number;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private lastRequestMs = 0;

  constructor(private readonly opts: RawPoolOptions) {
    this.spare = opts.spare ?? 0;
    this.urgentSpare = opts.urgentSpare ?? 0;
    for (const [name, n] of [
      ['spare', this.spare],
      ['urgentSpare', this.urgentSpare],
    ] as const)
      if (!Number.isInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative integer, got ${n}`);
  }

  /**
   * Sends `method path` with a JSON `body`; returns a function that aborts it (destroying its socket). An `urgent`
   * request (a cancel) takes any idle socket, the urgent spares too, and never waits: with every socket busy it opens
   * one beyond maxSockets.
   */
  request(method: string, path: string, body: string, handlers: RawHandlers, urgent = false): () => void {
    const data = this.requestText(method, path, body);
    let conn: Connection | undefined;
    let aborted = false;
    const go = () => {
      if (aborted) return;
      conn = this.take(urgent);
      if (conn) conn.start(data, handlers);
      else this.waiting.push(go);
    };
    go();
    this.lastRequestMs = this.opts.nowMs();
    this.keepSpares();
    return () => {
      aborted = true;
      conn?.abort();
    };
  }

  /** The text request() writes for `method path` with a JSON `body`. */
  requestText(method: string, path: string, body: string): string {
    return `${method} ${path} HTTP/1.1\r\nhost: ${this.opts.hostHeader}\r\naccept: application/json\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`;
  }

  /** Destroys every socket (their requests fail); later requests open new ones, like an http.Agent after destroy(). */
  close(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const c of this.open) c.socket.destroy();
  }

  /** A kept-alive socket is free again. */
  release(conn: Connection): void {
    const next = this.waiting.shift();
    conn.idleSinceMs = this.opts.nowMs();
    this.idle.push(conn);
    next?.();
  }

  forget(conn: Connection): void {
    this.open.delete(conn);
    this.connecting.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    this.waiting.shift()?.();
  }

  /**
   * The idle socket that waited longest, if still fresh (in turn, so that spares stay in use and need no replacing
   * while requests come), or a new one; undefined when maxSockets are busy.
   */
  private take(urgent: boolean): Connection | undefined {
    const now = this.opts.nowMs();
    const keep = urgent ? 0 : this.urgentSpare;
    while (this.idle.length > keep) {
      const conn = this.idle.shift()!;
      if (!conn.socket.destroyed && now - conn.idleSinceMs < this.opts.idleMs) return conn;
      conn.abort();
    }
    if (!urgent && this.open.size >= this.opts.maxSockets + this.urgentSpare) return undefined;
    return this.connect();
  }

  private connect(): Connection {
    const conn = new Connection(connect({ host: this.opts.host, port: this.opts.port }), this, this.opts.maxBodyBytes);
    this.open.add(conn);
    return conn;
  }

  /**
   * Tops the connected idle sockets up to `spare` (opened in the background; each joins the idle list, or serves a
   * waiting request, once connected) and keeps a sweep running that replaces the ones grown stale. A spare that
   * fails to connect is not retried before the next request or sweep.
   */
  private keepSpares(): void {
    const ready = this.spare + this.urgentSpare;
    if (ready === 0) return;
    if (this.sweeper === undefined) {
      this.sweeper = setInterval(() => this.sweep(), Math.max(1, this.opts.idleMs / 4));
      this.sweeper.unref();
    }
    while (this.idle.length + this.connecting.size < ready && this.open.size < this.opts.maxSockets + this.urgentSpare) {
      const conn = this.connect();
      this.connecting.add(conn);
      conn.socket.once('connect', () => {
        if (!this.connecting.delete(conn)) return;
        this.release(conn);
      });
    }
  }

  /** Every idleMs/4: idle sockets idle for 3/4 of idleMs are replaced, so a request never finds only stale ones. */
  private sweep(): void {
    const now = this.opts.nowMs();
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const conn = this.idle[i]!;
      if (now - conn.idleSinceMs < (this.opts.idleMs * 3) / 4) continue;
      this.idle.splice(i, 1);
      conn.abort();
    }
    if (now - this.lastRequestMs < SPARE_ACTIVE_IDLE_PERIODS * this.opts.idleMs) return this.keepSpares();
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
