// A fake venue on 127.0.0.1:0 that speaks only the current dialect (venue-protocol §8–9): POST /account rows, /l2book,
// /exchangeInfo, POST /order answers, and WebSocket topics through the real WsHub with compact account updates.
// Invariant: every change to its book or accounts is published as that venue would (snapshot first, signed sizes, ns).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { stringifyJson } from '../../src/core/json.js';
import type { Book as WireBook } from '../../src/protocol/v1/stream.js';
import { WsHub } from '../../src/venue-sim/server/ws-hub.js';

import { key } from './loopback-venue.js';

export { key } from './loopback-venue.js';

interface Book {
  bids: Map<number, number>;
  asks: Map<number, number>;
}

/** An open order row in long names (venue-protocol §8.3): sizes signed, negative = sell. */
export interface OpenOrderRow {
  symbol: string;
  orderId: string;
  price: number;
  originalSize: number;
  size: number;
  filledSize: number;
  vwap: number;
  maker: boolean;
  reduceOnly: boolean;
  orderType: 'limit';
  trigger: null;
  tif: 'gtc' | 'postOnly';
  status: string;
  timestamp: bigint;
  iso: boolean;
}

export interface CurrentAccount {
  orders: Map<string, OpenOrderRow>;
  /** Signed position size per symbol, with its entry price. */
  positions: Map<string, { size: number; price: number }>;
  balance: number;
  fills: Record<string, unknown>[];
  history: Record<string, unknown>[];
}

let clockNs = 1_770_000_000_000_000_000n;
const nextNs = () => (clockNs += 1_000_000n);
const nextMs = () => Number(nextNs() / 1_000_000n);

export class CurrentVenue {
  readonly books = new Map<string, Book>();
  readonly accounts = new Map<string, CurrentAccount>();
  /** Bodies of POST /order answered next, first to last (default: an `ok` answer with no statuses). */
  readonly orderAnswers: string[] = [];
  /** HTTP requests received per path. */
  readonly requests = new Map<string, number>();
  private server!: Server;
  private wss!: WebSocketServer;
  private hub!: WsHub;
  private readonly sockets = new Set<WebSocket>();
  private readonly conns = new Set<Socket>();
  port = 0;

  static async start(): Promise<CurrentVenue> {
    const v = new CurrentVenue();
    await v.listen();
    return v;
  }

  get httpUrl(): string {
    return `http://127.0.0.1:${this.port}/api/v1`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  // ---- book -------------------------------------------------------------------------------------------

  setBook(symbol: string, bids: [number, number][], asks: [number, number][]): void {
    this.books.set(symbol, { bids: new Map(bids), asks: new Map(asks) });
  }

  /** Changes one level and publishes the delta (size 0 deletes; `n` is always 0 in deltas). */
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

  wireBook(symbol: string, nlevels = Infinity): WireBook {
    const b = this.book(symbol);
    const side = (m: Map<number, number>, desc: boolean) =>
      [...m.entries()]
        .sort((x, y) => (desc ? y[0] - x[0] : x[0] - y[0]))
        .slice(0, nlevels)
        .map(([px, sz]) => ({ px, sz, n: 1 }));
    return { updateType: 'snapshot', symbol, levels: [side(b.bids, true), side(b.asks, false)], timestamp: nextMs() };
  }

  private book(symbol: string): Book {
    let b = this.books.get(symbol);
    if (!b) this.books.set(symbol, (b = { bids: new Map(), asks: new Map() }));
    return b;
  }

  // ---- accounts ---------------------------------------------------------------------------------------

  account(user: string): CurrentAccount {
    let a = this.accounts.get(user);
    if (!a) this.accounts.set(user, (a = { orders: new Map(), positions: new Map(), balance: 10_000, fills: [], history: [] }));
    return a;
  }

  /** The fullAccount object (and accountSnapshot body) of venue-protocol §8.3 / §9.4. */
  fullAccount(user: string) {
    const a = this.account(user);
    return {
      kind: 'MasterEOA',
      authorizedAgentWallets: [],
      margin: this.margin(a),
      positions: [...a.positions.keys()].map((symbol) => this.positionRow(a, symbol)),
      openOrders: [...a.orders.values()],
      feeTiers: [],
      leverageSettings: [{ symbol: 'BTC-USD', leverage: 10 }],
    };
  }

  /** Places a resting limit order (a post-only one when `postOnly`) and publishes its compact orderUpdate. */
  placeOrder(user: string, orderId: string, symbol: string, isBuy: boolean, price: number, size: number, postOnly = false): void {
    const signed = isBuy ? size : -size;
    const order: OpenOrderRow = {
      symbol,
      orderId,
      price,
      originalSize: signed,
      size: signed,
      filledSize: 0,
      vwap: 0,
      maker: true,
      reduceOnly: false,
      orderType: 'limit',
      trigger: null,
      tif: postOnly ? 'postOnly' : 'gtc',
      status: 'resting',
      timestamp: nextNs(),
      iso: false,
    };
    this.account(user).orders.set(orderId, order);
    this.publishOrder(user, order);
  }

  /** Fills `size` of a resting order against `taker`: fills row, fill, orderUpdate, positionUpdate and marginUpdate. */
  fillOrder(user: string, orderId: string, size: number, taker: string): void {
    const a = this.account(user);
    const o = a.orders.get(orderId)!;
    const ts = nextNs();
    const sign = Math.sign(o.originalSize);
    const filledSize = o.filledSize + size;
    const done = filledSize >= Math.abs(o.originalSize);
    const updated: OpenOrderRow = {
      ...o,
      size: sign * (Math.abs(o.originalSize) - filledSize),
      filledSize,
      vwap: o.price,
      status: done ? 'filled' : 'working',
      timestamp: ts,
    };
    a.fills.unshift({
      maker: user,
      taker,
      orderIdMaker: orderId,
      orderIdTaker: key(0xee),
      isBuy: sign < 0,
      symbol: o.symbol,
      amount: size,
      price: o.price,
      makerFee: 0,
      takerFee: 0,
      fee: 0,
      reasonCode: 0,
      iso: false,
      counterpartyHint: 'abcd..wxyz',
      slot: 1,
      timestamp: ts,
    });
    const pos = a.positions.get(o.symbol) ?? { size: 0, price: o.price };
    a.positions.set(o.symbol, { size: pos.size + sign * size, price: o.price });
    this.publish(`account.${user}`, 'account', {
      type: 'fill',
      symbol: o.symbol,
      orderId,
      price: o.price,
      size,
      fee: 0,
      isBuy: sign < 0,
      reasonCode: 0,
      counterpartyHint: 'abcd..wxyz',
      timestamp: ts,
      maker: true,
    });
    if (done) this.finish(user, updated);
    else a.orders.set(orderId, updated);
    this.publishOrder(user, updated);
    this.publish(`account.${user}`, 'account', { type: 'positionUpdate', ...this.positionRow(a, o.symbol) });
    this.publish(`account.${user}`, 'account', { type: 'marginUpdate', ...this.margin(a) });
  }

  /** Cancels a resting order; the update spells the status `canceled`, as some venue pages do. */
  cancelOrder(user: string, orderId: string): void {
    const o = this.account(user).orders.get(orderId)!;
    const cancelled: OpenOrderRow = { ...o, status: 'canceled', timestamp: nextNs() };
    this.finish(user, cancelled);
    this.publishOrder(user, cancelled);
  }

  private finish(user: string, o: OpenOrderRow): void {
    const a = this.account(user);
    a.orders.delete(o.orderId);
    a.history.unshift({
      orderId: o.orderId,
      symbol: o.symbol,
      side: o.originalSize < 0 ? 'sell' : 'buy',
      orderType: o.orderType,
      tif: o.tif,
      price: o.price,
      vwap: o.vwap,
      originalSize: o.originalSize,
      executedSize: o.filledSize,
      reduceOnly: o.reduceOnly,
      trigger: null,
      status: o.status,
      reason: null,
      iso: false,
      slot: 1,
      timestamp: o.timestamp,
    });
  }

  private publishOrder(user: string, o: OpenOrderRow): void {
    this.publish(`account.${user}`, 'account', {
      type: 'orderUpdate',
      ot: o.orderType,
      status: o.status,
      sym: o.symbol,
      oid: o.orderId,
      px: o.price,
      origSz: o.originalSize,
      sz: o.size,
      fillSz: o.filledSize,
      vwap: o.vwap,
      tif: o.tif,
      r: o.reduceOnly,
      mk: o.maker,
      trigger: null,
      ts: o.timestamp,
    });
  }

  private margin(a: CurrentAccount) {
    return { totalBalance: a.balance, availableBalance: a.balance, marginUsed: 0, notional: 0, realizedPnl: 0, unrealizedPnl: 0, fees: 0, funding: 0 };
  }

  private positionRow(a: CurrentAccount, symbol: string) {
    const { size, price } = a.positions.get(symbol)!;
    return {
      symbol,
      size,
      price,
      fairPrice: price,
      notional: Math.abs(size) * price,
      realizedPnl: 0,
      unrealizedPnl: 1.5,
      leverage: 10,
      liquidationPrice: price * 0.9,
      fees: 0,
      funding: 0,
      maintenanceMargin: 1,
      lambda: 0,
      riskAllocation: 0,
      iso: false,
      protection: null,
    };
  }

  // ---- faults and plumbing ----------------------------------------------------------------------------

  /** Closes every WebSocket abruptly (no close frame). */
  dropConnections(): void {
    for (const ws of this.sockets) ws.terminate();
  }

  /** Topics with a subscriber right now. */
  topics(): string[] {
    return [...this.hub.activeTopics()];
  }

  close(): Promise<void> {
    this.hub.close();
    this.wss.close();
    for (const s of this.conns) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private publish(topic: string, type: string, data: unknown): void {
    this.hub.publish(topic, type, data);
  }

  private initial(topic: string): string[] {
    const [stream, arg] = [topic.slice(0, topic.indexOf('.')), topic.slice(topic.indexOf('.') + 1)];
    if (stream === 'l2delta') return [stringifyJson({ type: 'l2Delta', data: { book: this.wireBook(arg) }, topic })];
    if (stream === 'account') return [stringifyJson({ type: 'account', data: { type: 'accountSnapshot', ...this.fullAccount(arg) }, topic })];
    return [];
  }

  private listen(): Promise<void> {
    this.server = createServer((req, res) => this.onHttp(req, res));
    this.server.on('connection', (s: Socket) => {
      this.conns.add(s);
      s.on('close', () => this.conns.delete(s));
    });
    this.wss = new WebSocketServer({ server: this.server });
    this.wss.on('connection', (ws: WebSocket) => {
      this.sockets.add(ws);
      ws.on('close', () => this.sockets.delete(ws));
    });
    const topicOf = (s: { type?: string; symbol?: string; user?: string }) =>
      s.type === 'l2Delta'
        ? `l2delta.${s.symbol}`
        : s.type === 'l2Snapshot'
          ? `l2snapshot.${s.symbol}`
          : s.type === 'account'
            ? `account.${s.user}`
            : `${s.type}.${s.symbol}`;
    this.hub = new WsHub(this.wss, { resolve: (sub) => ({ topics: [topicOf(sub as object)] }), initial: (topic) => this.initial(topic) });
    return new Promise((resolve) => {
      this.server.listen(0, '127.0.0.1', () => {
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  private onHttp(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (path === '/account') {
        const q = JSON.parse(body) as { type: string; user: string };
        return this.reply(res, stringifyJson(this.accountRows(q.type, q.user)));
      }
      if (path === '/l2book')
        return this.reply(res, stringifyJson(this.wireBook(url.searchParams.get('coin')!, Number(url.searchParams.get('nlevels') ?? Infinity))));
      if (path === '/exchangeInfo') {
        const markets = Object.fromEntries(
          [...this.books.keys()].map((symbol) => [symbol, { symbol, status: 'TRADING', tickSize: 0.5, lotSize: 0.001, minNotional: 10, maxLeverage: 50 }]),
        );
        return this.reply(res, JSON.stringify({ symbols: Object.keys(markets), markets }));
      }
      if (path === '/order') return this.reply(res, this.orderAnswers.shift() ?? '{"status":"ok","response":{"type":"order","data":{"statuses":[]}}}');
      res.writeHead(404).end();
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

  private reply(res: ServerResponse, text: string): void {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }
}
