// A fault-injecting loopback proxy in front of a venue, HTTP and WebSocket on one port: resets, stalls, status answers,
// applied-but-unanswered requests, latency and outages. Invariant: with no fault set it forwards every byte unchanged and in order.

import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** What happens to an HTTP request a rule matches. */
export type HttpFault =
  /** The connection is reset; nothing reaches the venue. */
  | { readonly kind: 'reset' }
  /** Held, unanswered, until heal(); then forwarded if its client is still connected. */
  | { readonly kind: 'stall' }
  /** Answered with `status` (and Retry-After when given); nothing reaches the venue. */
  | { readonly kind: 'status'; readonly status: number; readonly retryAfterS?: number }
  /** Forwarded (the venue applies it), then the answer is dropped: `reset` resets the connection, `silent` leaves it open unanswered until heal(), a number answers that status instead. */
  | { readonly kind: 'applied'; readonly answer: 'reset' | 'silent' | number }
  /** Forwarded after `ms`. */
  | { readonly kind: 'delay'; readonly ms: number };

/** A fault for the requests `match` accepts, for at most `hits` of them (unbounded when absent). */
export interface HttpRule {
  readonly fault: HttpFault;
  readonly match?: (req: IncomingMessage) => boolean;
  readonly hits?: number;
}

/**
 * What happens to WebSocket bytes: `stall` holds the venue's bytes (the sockets stay open) until heal(); `delay` delays
 * both directions; `down` resets every WebSocket and refuses new ones (HTTP still passes) until heal().
 */
export type WsFault = { readonly kind: 'stall' } | { readonly kind: 'delay'; readonly ms: number } | { readonly kind: 'down' };

/** A signed action (every POST but the account queries). */
export function isAction(req: IncomingMessage): boolean {
  return req.method === 'POST' && !(req.url ?? '').endsWith('/account');
}

/** A refused nonce in a venue answer (the local venue's messages: "nonce already used", "stale nonce: ..."). */
const NONCE_REFUSED = /"message":"[^"]*nonce/i;

/** One direction of a tunnel: chunks leave in arrival order, each no sooner than its due time (Infinity: held until release()). */
class Lane {
  private readonly queue: { dueMs: number; chunk: Buffer }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly to: Duplex) {}

  push(chunk: Buffer, dueMs: number): void {
    if (this.queue.length === 0 && dueMs <= Date.now()) return void this.write(chunk);
    this.queue.push({ dueMs, chunk });
    this.schedule();
  }

  release(): void {
    for (const e of this.queue) if (e.dueMs === Number.POSITIVE_INFINITY) e.dueMs = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.schedule();
  }

  private schedule(): void {
    const head = this.queue[0];
    if (this.timer || !head || head.dueMs === Number.POSITIVE_INFINITY) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        while (this.queue.length > 0 && this.queue[0]!.dueMs <= Date.now()) this.write(this.queue.shift()!.chunk);
        this.schedule();
      },
      Math.max(0, head.dueMs - Date.now()),
    );
  }

  private write(chunk: Buffer): void {
    if (!this.to.destroyed) this.to.write(chunk);
  }
}

interface Tunnel {
  readonly client: Duplex;
  readonly upstream: Socket;
  readonly toClient: Lane;
  readonly toVenue: Lane;
}

export class FaultProxy {
  /** Requests the current rule applied to, since it was set. */
  hits = 0;
  /** Venue answers refusing a nonce (seen by the proxy, whether or not the client got them). */
  readonly nonceRefusals: string[] = [];
  /** HTTP requests forwarded to the venue. */
  forwarded = 0;
  private rule: HttpRule | undefined;
  private ws: WsFault | undefined;
  private down = false;
  private readonly clients = new Set<Socket>();
  private readonly tunnels = new Set<Tunnel>();
  private readonly stalled: (() => void)[] = [];
  private readonly silent = new Set<ServerResponse>();
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private targetPort: number,
  ) {}

  /** Listens on 127.0.0.1:`port` (0: a free one) and forwards to 127.0.0.1:`targetPort`. */
  static async start(targetPort: number, port = 0): Promise<FaultProxy> {
    const server = createServer({ keepAliveTimeout: 30_000 });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const proxy = new FaultProxy(server, (server.address() as AddressInfo).port, targetPort);
    server.on('connection', (s: Socket) => {
      proxy.clients.add(s);
      s.on('close', () => proxy.clients.delete(s));
    });
    server.on('request', (req, res) => proxy.onRequest(req, res));
    server.on('upgrade', (req, socket, head) => proxy.onUpgrade(req, socket, head));
    return proxy;
  }

  /** `url` (of the target) with its port replaced by the proxy's. */
  via(url: string): string {
    const u = new URL(url);
    u.port = String(this.port);
    return u.toString().replace(/\/$/, '');
  }

  /** Forwards to another port from now on (a venue started again elsewhere). */
  retarget(targetPort: number): void {
    this.targetPort = targetPort;
    this.agent.destroy();
  }

  /** Sets the HTTP fault (replacing any) and zeroes `hits`. */
  setHttp(rule: HttpRule): void {
    this.rule = rule;
    this.hits = 0;
  }

  setWs(fault: WsFault): void {
    this.ws = fault;
    if (fault.kind === 'down') for (const t of this.tunnels) this.dropTunnel(t);
  }

  /** Resets every open connection, HTTP and WebSocket (the next requests connect again). */
  resetAll(): void {
    for (const t of this.tunnels) this.dropTunnel(t);
    for (const s of this.clients) s.resetAndDestroy();
  }

  /** Refuses connections (the port stops listening) and resets every open one, until restore(). */
  async outage(): Promise<void> {
    if (this.down) return;
    this.down = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.resetAll();
    this.agent.destroy();
    await closed;
  }

  /** Listens again on the same port after outage(). */
  async restore(): Promise<void> {
    if (!this.down) return;
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.down = false;
  }

  /** Ends every fault: held venue bytes are delivered, stalled requests forwarded, silent ones reset. */
  heal(): void {
    this.rule = undefined;
    this.ws = undefined;
    for (const t of this.tunnels) {
      t.toClient.release();
      t.toVenue.release();
    }
    for (const release of this.stalled.splice(0)) release();
    for (const res of this.silent) res.socket?.resetAndDestroy();
    this.silent.clear();
  }

  async close(): Promise<void> {
    this.heal();
    if (!this.down) {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.resetAll();
      await closed;
    }
    this.agent.destroy();
  }

  private take(req: IncomingMessage): HttpFault | undefined {
    const rule = this.rule;
    if (!rule || (rule.match && !rule.match(req))) return undefined;
    if (rule.hits !== undefined && this.hits >= rule.hits) return undefined;
    this.hits++;
    return rule.fault;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const fault = this.take(req);
      switch (fault?.kind) {
        case undefined:
          return this.forward(req, body, res, 'answer');
        case 'reset':
          return void req.socket.resetAndDestroy();
        case 'stall':
          return void this.stalled.push(() => {
            if (!res.destroyed && !req.socket.destroyed) this.forward(req, body, res, 'answer');
          });
        case 'status':
          res.writeHead(fault.status, {
            'content-type': 'application/json',
            ...(fault.retryAfterS !== undefined ? { 'retry-after': String(fault.retryAfterS) } : {}),
          });
          return void res.end(JSON.stringify({ error: { code: 'INJECTED', message: `injected ${fault.status}` } }));
        case 'applied':
          return this.forward(req, body, res, fault.answer);
        case 'delay':
          return void setTimeout(() => this.forward(req, body, res, 'answer'), fault.ms);
      }
    });
  }

  private forward(req: IncomingMessage, body: Buffer, res: ServerResponse, answer: 'answer' | 'reset' | 'silent' | number): void {
    this.forwarded++;
    const headers = { ...req.headers, host: `127.0.0.1:${this.targetPort}` };
    const up = request({ host: '127.0.0.1', port: this.targetPort, method: req.method, path: req.url, headers, agent: this.agent }, (upRes) => {
      const parts: Buffer[] = [];
      upRes.on('data', (c: Buffer) => parts.push(c));
      upRes.on('error', () => req.socket.resetAndDestroy());
      upRes.on('end', () => {
        const text = Buffer.concat(parts);
        const refused = text.toString('utf8').match(NONCE_REFUSED);
        if (refused) this.nonceRefusals.push(text.toString('utf8').slice(0, 300));
        if (answer === 'reset') return void req.socket.resetAndDestroy();
        if (answer === 'silent') return void this.silent.add(res);
        if (typeof answer === 'number') {
          res.writeHead(answer, { 'content-type': 'application/json' });
          return void res.end(JSON.stringify({ error: { code: 'INJECTED', message: `injected ${answer} after applying` } }));
        }
        if (res.destroyed) return;
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        res.end(text);
      });
    });
    // The venue is unreachable (down or restarting): the client sees its connection reset.
    up.on('error', () => req.socket.resetAndDestroy());
    up.end(body);
  }

  private onUpgrade(req: IncomingMessage, client: Duplex, head: Buffer): void {
    if (this.ws?.kind === 'down') return void client.end('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    const upstream = connect(this.targetPort, '127.0.0.1');
    const tunnel: Tunnel = { client, upstream, toClient: new Lane(client), toVenue: new Lane(upstream) };
    this.tunnels.add(tunnel);
    for (const s of [client, upstream]) {
      s.on('error', () => this.dropTunnel(tunnel));
      s.on('close', () => this.dropTunnel(tunnel));
    }
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    client.on('data', (chunk: Buffer) => tunnel.toVenue.push(chunk, this.dueMs(false)));
    upstream.on('data', (chunk: Buffer) => tunnel.toClient.push(chunk, this.dueMs(true)));
  }

  private dueMs(fromVenue: boolean): number {
    const ws = this.ws;
    if (ws?.kind === 'stall') return fromVenue ? Number.POSITIVE_INFINITY : 0;
    return ws?.kind === 'delay' ? Date.now() + ws.ms : 0;
  }

  private dropTunnel(t: Tunnel): void {
    if (!this.tunnels.delete(t)) return;
    if ('resetAndDestroy' in t.client) (t.client as Socket).resetAndDestroy();
    else t.client.destroy();
    t.upstream.resetAndDestroy();
  }
}
