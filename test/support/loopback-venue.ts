// A controllable fake venue on 127.0.0.1:0 for the client's fault tests: v1 HTTP (account queries, l2book,
// exchangeInfo, canned action answers) and WebSocket topics through the real WsHub, plus fault switches.
// Invariant: every change to its book or accounts is published exactly as the venue would (snapshot first).

import bs58 from 'bs58';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { stringifyJson } from '../../src/core/json.js';
import type { Fill, OpenOrder, OrderHistoryEntry, Position } from '../../src/protocol/v1/account.js';
import type { Book } from '../../src/protocol/v1/stream.js';
import { WsHub, type HubOptions } from '../../src/venue-sim/server/ws-hub.js';

/** A base58 32-byte key filled with `byte` (users, order ids). */
export function key(byte: number): string {
  return bs58.encode(new Uint8Array(32).fill(byte));
}

export type HttpMode = 'ok' | 'error500' | 'hang';

interface BookModel {
  bids: Map<number, number>;
  asks: Map<number, number>;
}

export interface AccountModel {
  orders: Map<string, OpenOrder>;
  positions: Position[];
  collateral: number;
  leverage: [string, number][];
  fills: Fill[];
  history: OrderHistoryEntry[];
}

export interface ActionAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export interface LoopbackOptions {
  hub?: HubOptions;
  /** Answers signed actions (default: 200 with an `ok` order envelope and no statuses). */
  onAction?: (path: string, body: string) => ActionAnswer;
}

let clockNs = 1_700_000_000_000_000_000n;
const nextTs = () => (clockNs += 1_000_000n);
/** Book payloads carry epoch ms (venue-protocol §9.2). */
const nextMs = () => Number(nextTs() / 1_000_000n);

export class LoopbackVenue {
  httpMode: HttpMode = 'ok';
  /** While true, nothing is published and new subscribers get no initial messages. */
  silent = false;
  readonly requests = new Map<string, number>();
  /** Answers used, first to last, before any normal handling (one per request). */
  readonly answers: (ActionAnswer | 'hang' | 'destroy')[] = [];
  /** Bodies of the signed actions received, in order. */
  readonly actionBodies: string[] = [];
  readonly books = new Map<string, BookModel>();
  readonly accounts = new Map<string, AccountModel>();
  private server!: Server;
  private wss!: WebSocketServer;
  private hub!: WsHub;
  private readonly sockets = new Set<WebSocket>();
  private readonly conns = new Set<Socket>();
  private readonly hanging = new Set<ServerResponse>();
  port = 0;
  /** Pongs received from clients (answers to the hub's pings). */
  pongs = 0;

  private constructor(private readonly opts: LoopbackOptions) {}

  static async start(opts: LoopbackOptions = {}): Promise<LoopbackVenue> {
    const v = new LoopbackVenue(opts);
    await v.listen(0);
    return v;
  }

  get httpUrl(): string {
    return `http://127.0.0.1:${this.port}/api/v1`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}/ws`;
  }

  get connections(): number {
    return this.sockets.size;
  }

  /** Topics with a subscriber right now. */
  topics(): string[] {
    return [...this.hub.activeTopics()];
  }

  // ---- book -------------------------------------------------------------------------------------------

  book(symbol: string): BookModel {
    let b = this.books.get(symbol);
    if (!b) this.books.set(symbol, (b = { bids: new Map(), asks: new Map() }));
    return b;
  }

  /** Replaces a book without publishing (as a restarted venue would hold a different one). */
  setBook(symbol: string, bids: [number, number][], asks: [number, number][]): void {
    this.books.set(symbol, { bids: new Map(bids), asks: new Map(asks) });
  }

  /** Changes one level and publishes the delta (size 0 deletes). */
  setLevel(symbol: string, side: 'bid' | 'ask', px: number, sz: number): void {
    const b = this.book(symbol);
    const levels = side === 'bid' ? b.bids : b.asks;
    if (sz === 0) levels.delete(px);
    else levels.set(px, sz);
    const level = [{ px, sz, n: 0 }];
    this.publish(`l2delta.${symbol}`, 'l2Delta', {
      book: { updateType: 'delta', symbol, levels: side === 'bid' ? [level, []] : [[], level], timestamp: nextMs() },
    });
  }

  wireBook(symbol: string, nlevels = Infinity): Book {
    const b = this.book(symbol);
    const side = (m: Map<number, number>, desc: boolean) =>
      [...m.entries()]
        .sort((x, y) => (desc ? y[0] - x[0] : x[0] - y[0]))
        .slice(0, nlevels)
        .map(([px, sz]) => ({ px, sz, n: 1 }));
    return { updateType: 'snapshot', symbol, levels: [side(b.bids, true), side(b.asks, false)], timestamp: nextMs() };
  }

  // ---- accounts ---------------------------------------------------------------------------------------

  account(user: string): AccountModel {
    let a = this.accounts.get(user);
    if (!a) this.accounts.set(user, (a = { orders: new Map(), positions: [], collateral: 10_000, leverage: [], fills: [], history: [] }));
    return a;
  }

  fullAccount(user: string) {
    const a = this.account(user);
    return {
      positions: a.positions,
      openOrders: [...a.orders.values()],
      marginSummary: { positions: [{ coin: 'USDC', size: a.collateral }] },
      settings: { maxLeverage: a.leverage },
    };
  }

  placeOrder(user: string, orderId: string, symbol: string, isBuy: boolean, price: number, size: number): void {
    const order: OpenOrder = {
      symbol,
      orderId,
      price,
      originalSize: size,
      size,
      filledSize: 0,
      vwap: 0,
      isBuy,
      maker: true,
      reduceOnly: false,
      tif: 'gtc',
      status: 'placed',
      timestamp: nextTs(),
    };
    this.account(user).orders.set(orderId, order);
    this.publishOrder(user, order, null);
  }

  /** Fills `size` of a resting order against `taker` (fills row, fill and orderUpdate messages, history when done). */
  fillOrder(user: string, orderId: string, size: number, taker: string): void {
    const a = this.account(user);
    const o = a.orders.get(orderId)!;
    const ts = nextTs();
    const filledSize = o.filledSize + size;
    const updated: OpenOrder = {
      ...o,
      size: o.originalSize - filledSize,
      filledSize,
      vwap: o.price,
      status: filledSize >= o.originalSize ? 'filled' : 'working',
      timestamp: ts,
    };
    a.fills.unshift({
      maker: user,
      taker,
      orderIdMaker: orderId,
      orderIdTaker: key(0xee),
      isBuy: !o.isBuy,
      symbol: o.symbol,
      amount: size,
      price: o.price,
      makerFee: 0,
      takerFee: 0,
      slot: 1n,
      timestamp: ts,
    });
    this.publish(`account.${user}`, 'account', {
      type: 'fill',
      symbol: o.symbol,
      orderId,
      price: o.price,
      size,
      fee: 0,
      isBuy: !o.isBuy,
      reasonCode: 0,
      counterpartyHint: 'abcd..wxyz',
      timestamp: ts,
      maker: true,
    });
    if (updated.status === 'filled') this.finish(user, updated);
    else a.orders.set(orderId, updated);
    this.publishOrder(user, updated, null);
  }

  cancelOrder(user: string, orderId: string): void {
    const o = this.account(user).orders.get(orderId)!;
    const cancelled: OpenOrder = { ...o, status: 'cancelled', timestamp: nextTs() };
    this.finish(user, cancelled);
    this.publishOrder(user, cancelled, null);
  }

  private finish(user: string, o: OpenOrder): void {
    const a = this.account(user);
    a.orders.delete(o.orderId);
    a.history.unshift({
      orderId: o.orderId,
      symbol: o.symbol,
      side: o.isBuy ? 'buy' : 'sell',
      orderType: 'limit',
      tif: 'gtc',
      price: o.price,
      vwap: o.vwap,
      originalSize: o.originalSize,
      executedSize: o.filledSize,
      reduceOnly: false,
      status: o.status as OrderHistoryEntry['status'],
      reason: null,
      slot: 1n,
      timestamp: o.timestamp,
    });
  }

  private publishOrder(user: string, o: OpenOrder, reason: string | null): void {
    const { reduceOnly: _r, tif: _t, ...fields } = o;
    this.publish(`account.${user}`, 'account', { type: 'orderUpdate', ...fields, reason });
  }

  // ---- faults -----------------------------------------------------------------------------------------

  /** Closes every WebSocket abruptly (no close frame). */
  dropConnections(): void {
    for (const ws of this.sockets) ws.terminate();
  }

  /** Sends a raw text (or binary) frame to every client. */
  sendRaw(frame: string | Buffer): void {
    for (const ws of this.sockets) ws.send(frame);
  }

  /** Stops the venue (sockets cut) and listens again on the same port. */
  async restart(before?: () => void): Promise<void> {
    await this.stop();
    before?.();
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    await this.stop();
  }

  // ---- plumbing ---------------------------------------------------------------------------------------

  publish(topic: string, type: string, data: unknown): void {
    if (this.silent || !this.hub.hasSubscribers(topic)) return;
    this.hub.publish(topic, type, JSON.parse(JSON.stringify(data, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))));
  }

  private message(topic: string, type: string, data: unknown): string {
    return stringifyJson({ type, data, topic });
  }

  private initial(topic: string): string[] {
    if (this.silent) return [];
    const [stream, arg] = [topic.slice(0, topic.indexOf('.')), topic.slice(topic.indexOf('.') + 1)];
    if (stream === 'l2delta') return [this.message(topic, 'l2Delta', { book: this.wireBook(arg) })];
    if (stream === 'l2snapshot') return [this.message(topic, 'l2Snapshot', { book: this.wireBook(arg) })];
    if (stream === 'account') return [this.message(topic, 'account', { type: 'accountSnapshot', ...this.fullAccount(arg) })];
    return [];
  }

  private listen(port: number): Promise<void> {
    this.server = createServer((req, res) => this.onHttp(req, res));
    this.server.on('connection', (s: Socket) => {
      this.conns.add(s);
      s.on('close', () => this.conns.delete(s));
    });
    this.wss = new WebSocketServer({ server: this.server, path: '/ws' });
    this.wss.on('connection', (ws: WebSocket) => {
      this.sockets.add(ws);
      ws.on('pong', () => this.pongs++);
      ws.on('close', () => this.sockets.delete(ws));
    });
    this.hub = new WsHub(
      this.wss,
      {
        resolve: (sub) => {
          const s = sub as { type?: string; symbol?: string; user?: string };
          const topic =
            s.type === 'l2Delta'
              ? `l2delta.${s.symbol}`
              : s.type === 'l2Snapshot'
                ? `l2snapshot.${s.symbol}`
                : s.type === 'account'
                  ? `account.${s.user}`
                  : s.type === 'frontendContext'
                    ? 'frontendContext'
                    : `${s.type}.${s.symbol}`;
          return { topics: [topic] };
        },
        initial: (topic) => this.initial(topic),
      },
      this.opts.hub,
    );
    return new Promise((resolve) => {
      this.server.listen(port, '127.0.0.1', () => {
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  private stop(): Promise<void> {
    this.hub.close();
    for (const ws of this.sockets) ws.terminate();
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    this.wss.close();
    for (const s of this.conns) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private onHttp(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (!['/account', '/l2book', '/exchangeInfo'].includes(path)) this.actionBodies.push(body);
      const scripted = this.answers.shift();
      if (scripted === 'destroy') return req.socket.destroy();
      if (scripted === 'hang' || (!scripted && this.httpMode === 'hang')) {
        this.hanging.add(res);
        return;
      }
      if (scripted) return this.reply(res, scripted.status, scripted.body, scripted.headers);
      if (this.httpMode === 'error500') return this.reply(res, 500, '{"status":"error","error":{"code":"INTERNAL","message":"boom"}}');
      if (path === '/account') {
        const q = JSON.parse(body) as { type: string; user: string };
        return this.reply(res, 200, stringifyJson(this.accountRows(q.type, q.user)));
      }
      if (path === '/l2book')
        return this.reply(res, 200, stringifyJson(this.wireBook(url.searchParams.get('coin')!, Number(url.searchParams.get('nlevels') ?? Infinity))));
      if (path === '/exchangeInfo')
        return this.reply(
          res,
          200,
          JSON.stringify([...this.books.keys()].map((symbol) => ({ symbol, tickSize: 0.5, lotSize: 0.001, minNotional: 10, maxLeverage: 50 }))),
        );
      const answer = this.opts.onAction?.(path, body) ?? { status: 200, body: '{"status":"ok","response":{"type":"order","data":{"statuses":[]}}}' };
      this.reply(res, answer.status, answer.body, answer.headers);
    });
  }

  private accountRows(type: string, user: string): unknown[] {
    const a = this.account(user);
    if (type === 'fullAccount') return [{ fullAccount: this.fullAccount(user) }];
    if (type === 'openOrders') return [...a.orders.values()].map((openOrder) => ({ openOrder }));
    if (type === 'fills') return a.fills.map((fills) => ({ fills }));
    if (type === 'orderHistory') return a.history.map((orderHistory) => ({ orderHistory }));
    return [];
  }

  private reply(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }
}
