// HTTP plumbing of the local venue: request targets, bounded body reading, JSON replies, error bodies
// (gaps §4), and an optional per-address token-bucket rate limiter. Invariants: a failed request changes
// no state; nothing a client sends (target, headers, framing) throws outside a request's error path.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** A request the venue refuses before touching any state: answered with `status` and an error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * The request target as a URL: origin-form (`/path?query`, read as a path even when it starts with `//`)
 * or absolute-form (`http://host/path`). Anything the URL parser rejects is a 400.
 */
export function requestUrl(target: string | undefined): URL {
  try {
    return target?.startsWith('/') ? new URL(`http://venue${target}`) : new URL(target ?? '');
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', `request target ${JSON.stringify((target ?? '').slice(0, 64))} is not a valid URL`);
  }
}

/** Reads the whole body as UTF-8; rejects with 413 past `limitBytes` (and stops reading). */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limitBytes) {
      reject(new HttpError(413, 'PAYLOAD_TOO_LARGE', `body larger than ${limitBytes} bytes`));
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limitBytes) {
        done = true;
        reject(new HttpError(413, 'PAYLOAD_TOO_LARGE', `body larger than ${limitBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', () => {
      if (!done) reject(new HttpError(400, 'BAD_REQUEST', 'request aborted before its body was complete'));
      done = true;
    });
  });
}

export function sendJson(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function errorBody(code: string, message: string): string {
  return JSON.stringify({ status: 'error', error: { code, message } });
}

export function sendError(res: ServerResponse, e: HttpError): void {
  sendJson(res, e.status, errorBody(e.code, e.message), e.headers);
}

const PARSER_ERRORS: Record<string, { status: string; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: '431 Request Header Fields Too Large', code: 'PAYLOAD_TOO_LARGE', message: 'request headers too large' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: '413 Payload Too Large', code: 'PAYLOAD_TOO_LARGE', message: 'chunk extensions too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: '408 Request Timeout', code: 'BAD_REQUEST', message: 'request not received in time' },
};

/** Writes a whole JSON error response on a connection that has no ServerResponse, then closes the connection. */
export function endWithError(socket: Duplex, statusLine: string, code: string, message: string): void {
  const body = errorBody(code, message);
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${statusLine}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

/**
 * The server's `clientError` listener: a request the HTTP parser rejects (framing, headers, version,
 * timeout) gets a JSON error like every other refusal, then the connection closes. Nothing is written
 * when a response is already under way on the connection (the peer would read a corrupt reply).
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const known = PARSER_ERRORS[err.code ?? ''];
  endWithError(
    socket,
    known?.status ?? '400 Bad Request',
    known?.code ?? 'BAD_REQUEST',
    known?.message ?? `malformed HTTP request (${err.code ?? 'parse error'})`,
  );
}

/**
 * Runs costly jobs one per event-loop turn, so that the I/O of other clients is served between two of
 * them (a burst of N jobs delays another request by about one job, not N). At most `maxWaiting` jobs
 * wait; past that a job is refused with 429 and Retry-After.
 */
export class TurnQueue {
  private readonly waiting: Array<() => void> = [];
  private busy = false;

  constructor(private readonly maxWaiting: number) {}

  async run<T>(job: () => T): Promise<T> {
    if (this.busy) {
      if (this.waiting.length >= this.maxWaiting) throw new HttpError(429, 'RATE_LIMITED', 'too many queries waiting', { 'retry-after': '1' });
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.busy = true;
    try {
      return job();
    } finally {
      setImmediate(() => this.next());
    }
  }

  private next(): void {
    const resume = this.waiting.shift();
    if (resume) resume();
    else this.busy = false;
  }
}

export interface RateLimitOptions {
  /** Sustained requests per second per client address. */
  perSecond: number;
  /** Bucket size (burst). Default: one second's worth. */
  burst?: number;
}

/** Token bucket per client address; `take` throws HttpError 429 with Retry-After when empty. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();
  private readonly burst: number;

  constructor(private readonly opts: RateLimitOptions) {
    this.burst = opts.burst ?? Math.max(1, opts.perSecond);
  }

  take(address: string, nowMs: number): void {
    let b = this.buckets.get(address);
    if (!b) {
      if (this.buckets.size > 100_000) this.buckets.clear();
      this.buckets.set(address, (b = { tokens: this.burst, atMs: nowMs }));
    }
    b.tokens = Math.min(this.burst, b.tokens + ((nowMs - b.atMs) / 1000) * this.opts.perSecond);
    b.atMs = nowMs;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return;
    }
    const retryAfterS = Math.max(1, Math.ceil((1 - b.tokens) / this.opts.perSecond));
    throw new HttpError(429, 'RATE_LIMITED', 'too many requests', { 'retry-after': String(retryAfterS) });
  }
}
