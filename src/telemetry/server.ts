// The daemon's HTTP control server: GET /metrics /livez /readyz /status, POST /kill /resume behind a bearer token.
// Invariants: loopback by default; the token is compared in constant time; without a token the POST endpoints are disabled;
// /status answers only loopback peers or holders of the token.

import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { holdData } from '../core/command-hold.js';
import { stringifyJson } from '../core/json.js';

/** The port the daemon serves on unless configured (ops/prometheus/prometheus.yml scrapes it). */
export const DEFAULT_CONTROL_PORT = 9464;

/** Largest accepted POST body, bytes. */
export const MAX_BODY_BYTES = 4096;

export interface ControlServerOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Bearer token for POST /kill and /resume (config key telemetry.token); absent or empty disables both. */
  readonly token?: string | undefined;
  readonly metrics: { readonly contentType: string; text(): Promise<string> };
  ready(): { ready: boolean; reasons: string[] };
  status(): unknown;
  /** Receives the body's `reason` ('' when none was sent); the answer is returned as JSON. */
  kill(reason: string): unknown;
  resume(reason: string): unknown;
  readonly logger?: { warn(fields: object, msg: string): void };
}

export interface ControlServer {
  /** `http://host:port`. */
  readonly url: string;
  readonly port: number;
  /** Stops listening and closes every connection, idle or not. */
  close(): Promise<void>;
}

type Reply = { readonly status: number; readonly type: string; readonly body: string; readonly headers?: Record<string, string> };

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function json(status: number, value: unknown, headers?: Record<string, string>): Reply {
  return { status, type: 'application/json; charset=utf-8', body: stringifyJson(value ?? null), ...(headers && { headers }) };
}

/**
 * Constant-time check of an `Authorization: Bearer <token>` header: the comparison always runs over the token's length
 * (a presented value of another length is compared with the token itself, then refused), with no hash on the kill's path.
 */
function authorized(header: string | undefined, token: Buffer): boolean {
  const presented = Buffer.from(header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : '', 'utf8');
  const sameLength = presented.length === token.length;
  return timingSafeEqual(sameLength ? presented : token, token) && sameLength;
}

/** The path of an origin-form request target, its query dropped (no URL parse on the kill's path). */
function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}

/** True for a peer on this host: 127.0.0.0/8, ::1, or either written as an IPv4-mapped IPv6 address. */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** /status (positions, orders, PnL) answers a loopback peer, or any peer presenting the control token. */
export function mayReadStatus(remoteAddress: string | undefined, authorization: string | undefined, token: string): boolean {
  return isLoopback(remoteAddress) || (token !== '' && authorized(authorization, Buffer.from(token, 'utf8')));
}

/**
 * The request's body: taken from the request's buffer once the parser pushed all the bytes Content-Length declares (a
 * kill in one packet: no stream events between its arrival and its action), else collected from the stream.
 */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  const tooBig = () => new HttpError(413, `body over ${MAX_BODY_BYTES} bytes`);
  const declared = req.headers['content-length'];
  const length = Number(declared ?? 0);
  if (length > MAX_BODY_BYTES) throw tooBig();
  // The request event comes with the head; the parser pushes the rest of the packet before this continues.
  await undefined;
  if (declared !== undefined && req.readableLength === length) return (req.read() as Buffer | null) ?? Buffer.alloc(0);
  return streamBody(req, tooBig);
}

function streamBody(req: IncomingMessage, tooBig: () => HttpError): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size <= MAX_BODY_BYTES) return;
      req.off('data', onData).pause();
      reject(tooBig());
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** The optional `reason` of a `{"reason": "..."}` body; '' for an empty body or no reason. */
async function readReason(req: IncomingMessage): Promise<string> {
  const text = (await readBody(req)).toString('utf8').trim();
  if (text === '') return '';
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'body must be a JSON object');
  const reason = (body as { reason?: unknown }).reason;
  if (reason !== undefined && typeof reason !== 'string') throw new HttpError(400, 'reason must be a string');
  return reason ?? '';
}

/** Starts listening; rejects when the address cannot be bound. */
export function startControlServer(opts: ControlServerOptions): Promise<ControlServer> {
  const token = opts.token ?? '';
  const tokenBytes = Buffer.from(token, 'utf8');

  const control = async (req: IncomingMessage, action: (reason: string) => unknown): Promise<Reply> => {
    if (token === '') return json(403, { error: 'control endpoints are disabled: set telemetry.token in the config to enable them' });
    if (!authorized(req.headers.authorization, tokenBytes)) {
      opts.logger?.warn({ path: req.url, remote: req.socket.remoteAddress }, 'control request refused: missing or wrong token');
      return json(401, { error: 'missing or wrong bearer token' }, { 'WWW-Authenticate': 'Bearer' });
    }
    return json(200, await action(await readReason(req)));
  };

  const routes: Record<string, { readonly method: 'GET' | 'POST'; handle(req: IncomingMessage): Promise<Reply> }> = {
    '/metrics': { method: 'GET', handle: async () => ({ status: 200, type: opts.metrics.contentType, body: await opts.metrics.text() }) },
    '/livez': { method: 'GET', handle: async () => json(200, { status: 'alive' }) },
    '/readyz': {
      method: 'GET',
      handle: async () => {
        const r = opts.ready();
        return r.ready ? json(200, { ready: true }) : json(503, { ready: false, reasons: r.reasons });
      },
    },
    '/status': {
      method: 'GET',
      handle: async (req) =>
        mayReadStatus(req.socket.remoteAddress, req.headers.authorization, token)
          ? json(200, await opts.status())
          : json(
              401,
              { error: 'status is served to loopback clients, or with the control token (telemetry.token) as a bearer token' },
              { 'WWW-Authenticate': 'Bearer' },
            ),
    },
    '/kill': { method: 'POST', handle: (req) => control(req, (reason) => opts.kill(reason)) },
    '/resume': { method: 'POST', handle: (req) => control(req, (reason) => opts.resume(reason)) },
  };

  const answer = async (req: IncomingMessage): Promise<Reply> => {
    try {
      const route = routes[pathOf(req.url ?? '/')];
      if (!route) return json(404, { error: 'not found' });
      const allowed = route.method === 'GET' ? ['GET', 'HEAD'] : ['POST'];
      if (!allowed.includes(req.method ?? '')) return json(405, { error: 'method not allowed' }, { Allow: allowed.join(', ') });
      return await route.handle(req);
    } catch (e) {
      if (e instanceof HttpError) return json(e.status, { error: e.message }, e.status === 413 ? { Connection: 'close' } : undefined);
      opts.logger?.warn({ err: e, path: req.url }, 'control server request failed');
      return json(500, { error: 'internal error' });
    }
  };

  const send = (res: ServerResponse, reply: Reply) => {
    res.writeHead(reply.status, {
      'Content-Type': reply.type,
      'Content-Length': Buffer.byteLength(reply.body),
      'Cache-Control': 'no-store',
      ...reply.headers,
    });
    res.end(reply.body);
  };

  // A new connection may carry a command (a kill): market data waits while it is read (core/command-hold.ts). A read
  // (GET, HEAD) lets it go on at once; a command, once answered.
  const holds = new WeakMap<Socket, () => void>();
  const server = createServer((req, res) => {
    const release = holds.get(req.socket);
    if (release) req.method === 'POST' ? res.once('close', release) : release();
    void answer(req).then((reply) => send(res, reply));
  });
  server.on('connection', (socket) => {
    const release = holdData();
    holds.set(socket, release);
    socket.once('close', release);
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      const { address, port } = server.address() as AddressInfo;
      resolve({
        url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
        port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()));
            server.closeAllConnections();
          }),
      });
    });
  });
}
