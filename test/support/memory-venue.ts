// An exchange in memory behind the venue port (v1 dialect): the test publishes books and trades; the bot's signed order
// actions are verified, decoded and matched against them. Invariants: no socket and no timer of its own; an action with
// a bad signature is rejected whole and changes nothing; every emission happens synchronously inside a call.

import { asyncScheduler, BehaviorSubject, concat, defer, NEVER, Observable, of, Subject } from 'rxjs';
import type { AccountUpdate, Fill, Position, VenueOrder } from '../../src/core/account-data.js';
import { systemClock } from '../../src/core/clock.js';
import { parseJson } from '../../src/core/json.js';
import type { Side } from '../../src/core/intent.js';
import { silentLogger } from '../../src/core/logger.js';
import type { BookLevel, BookUpdate, MarketRules, Ticker, Trade } from '../../src/core/market-data.js';
import type { TimeInForce } from '../../src/core/types.js';
import type { SignedRequest } from '../../src/protocol/sign.js';
import { v1Codec } from '../../src/protocol/v1/codec.js';
import type { OrderItem } from '../../src/protocol/v1/actions.js';
import { SignatureVerifier } from '../../src/protocol/verify.js';
import type { ItemResult, StreamHealth, SubmitOutcome, Venue } from '../../src/venue/port.js';

interface Resting {
  order: VenueOrder;
  owner: string;
}

export class MemoryVenue implements Venue {
  readonly clock = systemClock();
  readonly scheduler = asyncScheduler;
  readonly logger = silentLogger;
  readonly health = {
    health$: NEVER as Observable<StreamHealth>,
    stale: () => new Map<string, StreamHealth>(),
    connected$: new BehaviorSubject(true),
  };
  /** Signed actions received, accepted or not. */
  readonly received: SignedRequest[] = [];
  private readonly books = new Map<string, { bids: BookLevel[]; asks: BookLevel[] }>();
  private readonly bookUpdates = new Subject<BookUpdate>();
  private readonly trades = new Subject<Trade>();
  private readonly tickers = new Subject<Ticker>();
  private readonly accountUpdates = new Subject<{ account: string; update: AccountUpdate }>();
  private readonly resting = new Map<string, Resting>();
  private readonly positions = new Map<string, Map<string, Position>>();
  private readonly fillLog = new Map<string, Fill[]>();
  private readonly verifier = new SignatureVerifier();

  constructor(private readonly rules: readonly MarketRules[]) {}

  readonly market = {
    book$: (symbol: string) =>
      concat(
        defer(() => (this.books.has(symbol) ? of(this.snapshotOf(symbol)) : of())),
        this.filtered(this.bookUpdates, symbol),
      ),
    resyncBook: (symbol: string) => this.books.has(symbol) && this.bookUpdates.next(this.snapshotOf(symbol)),
    bookSnapshot: async (symbol: string) => this.snapshotOf(symbol),
    trades$: (symbol: string) => this.filtered(this.trades, symbol),
    ticker$: (symbol: string) => this.filtered(this.tickers, symbol),
  };

  readonly account = {
    updates$: (account: string): Observable<AccountUpdate> =>
      concat(
        defer(() => of<AccountUpdate>({ kind: 'snapshot', snapshot: this.snapshotOfAccount(account) })),
        new Observable<AccountUpdate>((s) => this.accountUpdates.subscribe((u) => u.account === account && s.next(u.update))),
      ),
    fills: async (account: string) => [...(this.fillLog.get(account) ?? [])].reverse(),
    openOrders: async (account: string) => [...this.resting.values()].filter((r) => r.owner === account).map((r) => r.order),
    orderHistory: async () => [],
  };

  readonly submitter = { submit: async (request: SignedRequest): Promise<SubmitOutcome> => this.apply(request) };

  async markets(): Promise<readonly MarketRules[]> {
    return this.rules;
  }

  close(): void {
    this.bookUpdates.complete();
    this.trades.complete();
    this.tickers.complete();
    this.accountUpdates.complete();
  }

  /** Replaces the book of `symbol` (levels best first) and sends it as a snapshot, with its mark price on the ticker. */
  publishBook(symbol: string, bids: readonly [number, number][], asks: readonly [number, number][]): void {
    const level = ([price, size]: [number, number]) => ({ price, size, orders: 1 });
    this.books.set(symbol, { bids: bids.map(level), asks: asks.map(level) });
    this.bookUpdates.next(this.snapshotOf(symbol));
    const mid = (bids[0]![0] + asks[0]![0]) / 2;
    const nowNs = this.clock.nowNs();
    this.tickers.next({
      symbol,
      lastPrice: mid,
      markPrice: mid,
      oraclePrice: mid,
      fundingRate: 0,
      openInterest: 0,
      volume24h: 0,
      volume24hUsd: 0,
      high24hPrice: mid,
      low24hPrice: mid,
      venueTimeNs: nowNs,
    });
  }

  /** A public trade at `price`: every resting order it crosses fills whole at its own price. */
  trade(symbol: string, price: number, size: number, takerSide: Side): void {
    this.trades.next({ symbol, price, size, takerSide, timeMs: this.clock.nowMs(), maker: '', taker: '', liquidation: false });
    for (const [id, r] of [...this.resting]) {
      const o = r.order;
      const crossed = o.symbol === symbol && (o.side === 'buy' ? price <= o.price : price >= o.price);
      if (!crossed || o.side === takerSide) continue;
      this.resting.delete(id);
      this.fill(r.owner, o, o.price, true);
    }
  }

  private apply(request: SignedRequest): SubmitOutcome {
    this.received.push(request);
    const body = parseJson(request.bodyText) as { action: Record<string, unknown>; account: string; signer: string };
    const encoded = v1Codec.encode({ actions: body.action, account: body.account, signer: body.signer, nonce: request.nonce, network: 'mainnet', mode: 'raw' });
    if (body.signer !== body.account || !this.verifier.verify(body.signer, encoded.message, request.signature)) {
      return { outcome: 'rejected', reason: 'bad signature', httpStatus: 400, code: 'BAD_SIGNATURE', retryAfterMs: undefined };
    }
    const items = (body.action as { orders: OrderItem[] }).orders;
    return { outcome: 'accepted', items: items.map((item, i) => this.item(body.account, item, encoded.orderIds[i]!)) };
  }

  private item(owner: string, item: OrderItem, orderId: string): ItemResult {
    if ('cancel' in item) {
      const r = this.resting.get(item.cancel.oid);
      if (!r || r.owner !== owner) return { kind: 'error', message: 'unknown order' };
      this.resting.delete(item.cancel.oid);
      this.report(owner, { ...r.order, status: 'cancelled' });
      return { kind: 'order', fact: { orderId: r.order.orderId, status: 'cancelled' } };
    }
    if ('cancelAll' in item) {
      for (const [id, r] of [...this.resting]) {
        if (r.owner !== owner || (item.cancelAll.c.length > 0 && !item.cancelAll.c.includes(r.order.symbol))) continue;
        this.resting.delete(id);
        this.report(owner, { ...r.order, status: 'cancelled' });
      }
      return { kind: 'done' };
    }
    const p = item.order;
    const side: Side = p.b ? 'buy' : 'sell';
    const tif: TimeInForce = 'limit' in p.t ? p.t.limit.tif : 'IOC';
    const order: VenueOrder = {
      orderId,
      symbol: p.c,
      side,
      price: p.px,
      originalSize: p.sz,
      remainingSize: p.sz,
      filledSize: 0,
      avgFillPrice: 0,
      maker: false,
      status: 'placed',
      venueTimeNs: this.clock.nowNs(),
      reason: undefined,
      reduceOnly: p.r,
      tif,
    };
    const book = this.books.get(p.c);
    const best = side === 'buy' ? book?.asks[0] : book?.bids[0];
    const crosses = best !== undefined && ('trigger' in p.t || (side === 'buy' ? p.px >= best.price : p.px <= best.price));
    if (crosses && tif === 'ALO') return { kind: 'order', fact: { orderId, status: 'rejectedCrossing' } };
    if (crosses) {
      this.fill(owner, order, best.price, false);
      return { kind: 'order', fact: { orderId, status: 'filled', filledSize: p.sz } };
    }
    if (tif === 'IOC') return { kind: 'order', fact: { orderId, status: 'cancelledIOC', filledSize: 0 } };
    this.resting.set(orderId, { order, owner });
    this.report(owner, order);
    return { kind: 'order', fact: { orderId, status: 'placed' } };
  }

  private fill(owner: string, order: VenueOrder, price: number, maker: boolean): void {
    const size = order.remainingSize;
    const fill: Fill = {
      symbol: order.symbol,
      orderId: order.orderId,
      side: order.side,
      price,
      size,
      feeUsd: 0,
      maker,
      cause: 'trade',
      venueTimeNs: this.clock.nowNs(),
    };
    this.fillLog.set(owner, [...(this.fillLog.get(owner) ?? []), fill]);
    this.report(owner, { ...order, remainingSize: 0, filledSize: order.originalSize, avgFillPrice: price, maker, status: 'filled' });
    this.accountUpdates.next({ account: owner, update: { kind: 'fill', fill } });
    const held = this.positions.get(owner) ?? new Map<string, Position>();
    this.positions.set(owner, held);
    const before = held.get(order.symbol)?.size ?? 0;
    const position: Position = {
      symbol: order.symbol,
      size: before + (order.side === 'buy' ? size : -size),
      entryPrice: price,
      realizedPnlUsd: 0,
      leverage: 1,
      unrealizedPnlUsd: 0,
      liquidationPrice: undefined,
    };
    held.set(order.symbol, position);
    this.accountUpdates.next({ account: owner, update: { kind: 'position', position } });
  }

  private report(owner: string, order: VenueOrder): void {
    this.accountUpdates.next({ account: owner, update: { kind: 'order', order } });
  }

  private snapshotOf(symbol: string): BookUpdate {
    const book = this.books.get(symbol) ?? { bids: [], asks: [] };
    return { kind: 'snapshot', symbol, bids: book.bids, asks: book.asks, venueTimeMs: this.clock.nowMs(), arrivalNs: this.clock.nowNs() };
  }

  private snapshotOfAccount(account: string) {
    const openOrders = [...this.resting.values()].filter((r) => r.owner === account).map((r) => r.order);
    return { openOrders, positions: [...(this.positions.get(account)?.values() ?? [])], collateral: [{ coin: 'USDC', amount: 100_000 }], leverage: [] };
  }

  private filtered<T extends { symbol: string }>(subject: Subject<T>, symbol: string): Observable<T> {
    return new Observable<T>((s) => subject.subscribe({ next: (v) => v.symbol === symbol && s.next(v), complete: () => s.complete() }));
  }
}
