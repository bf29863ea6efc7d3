// HTTP plumbing of the local venue: bounded body reading, JSON replies, error bodies (gaps §4),
// and an optional per-address token-bucket rate limiter. Invariant: a failed request changes no state.

import type { IncomingMessage, ServerResponse } from 'node:http';

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
    req.on('error', (e) => {
      if (!done) reject(e);
      done = true;
    });
  });
}

export function sendJson(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, e: HttpError): void {
  sendJson(res, e.status, JSON.stringify({ status: 'error', error: { code: e.code, message: e.message } }), e.headers);
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
