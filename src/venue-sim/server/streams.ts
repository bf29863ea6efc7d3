// Stream side of the local venue: resolves subscriptions to topics, sends each topic's snapshot
// first, and turns the engine's ordered event log into v1 stream messages (gaps §7, venue-protocol §9).
// Invariant: events are published in the order the engine applied them; nothing here mutates the engine.

import { safeParse } from '../../core/schema.js';
import { stringifyJson } from '../../core/json.js';
import { subscriptionSchema, topicsOf } from '../../protocol/v1/stream.js';
import type { Dialect } from '../../core/types.js';
import type { CurrentAccountQuery } from '../../protocol/current/account-query.js';
import type { AccountQueryType, Engine } from '../engine/index.js';
import type { BookLevelRow, EngineEvent, FillRecord, PositionUpdateEvent } from '../engine/index.js';
import type { Basket, ContingentBook } from './contingent.js';
import { basketOrderUpdate, currentAccountRows, currentFullAccount, currentOnlyMessage, currentOrderUpdate, fillMessage, positionRow } from './current-wire.js';
import { roundToStep } from '../decimals.js';
import { RollingStats, type Candle, type DayStats } from './stats.js';
import { topicOfKey, type TopicSource, type WsHub } from './ws-hub.js';

const NS_PER_MS = 1_000_000n;
/** Depth of l2snapshot messages when the subscription names no `nlevels`. */
export const DEFAULT_SNAPSHOT_LEVELS = 20;

function levels(bids: BookLevelRow[], asks: BookLevelRow[]): [BookLevelRow[], BookLevelRow[]] {
  return [bids, asks];
}

/** Epoch ms of an epoch-ns engine timestamp: book, trade and risk payloads carry ms (venue-protocol §9.2). */
export function toMs(ns: bigint): number {
  return Number(ns / NS_PER_MS);
}

/** Where the streams publish: the WebSocket hub, or anything else that takes its messages (a synthetic recording). */
export type StreamSink = Pick<WsHub, 'publish' | 'hasSubscribers' | 'activeTopics'>;

export class VenueStreams implements TopicSource {
  readonly stats = new RollingStats();
  private hub: StreamSink | undefined;

  /** `dialect` decides the shapes of account messages (market data has one shape in both); `held`: the current generation's baskets and on-fill actions. */
  constructor(
    private readonly engine: Engine,
    private readonly dialect: Dialect = 'v1',
    private readonly held?: ContingentBook,
  ) {}

  attach(hub: StreamSink): void {
    this.hub = hub;
  }

  resolve(subscription: unknown): { topics: string[] } | { error: string } {
    const r = safeParse(subscriptionSchema, subscription, 'subscription');
    if (!r.ok) return { error: r.error.message };
    const sub = r.value;
    if ('symbol' in sub && !this.engine.marketInfo(sub.symbol)) return { error: `unknown symbol ${sub.symbol}` };
    const topics = topicsOf(sub);
    if (sub.type === 'l2Snapshot') return { topics: topics.map((t) => `${t}#${sub.nlevels ?? DEFAULT_SNAPSHOT_LEVELS}`) };
    return { topics };
  }

  initial(key: string): string[] {
    const topic = topicOfKey(key);
    const dot = topic.indexOf('.');
    const stream = dot < 0 ? topic : topic.slice(0, dot);
    const arg = topic.slice(dot + 1);
    switch (stream) {
      case 'account': {
        const snapshot = this.dialect === 'current' ? this.currentFullAccount(arg) : this.engine.fullAccount(arg);
        return [this.text(topic, 'account', { type: 'accountSnapshot', ...snapshot })];
      }
      case 'l2delta':
        return [this.text(topic, 'l2Delta', { book: this.book(arg, Infinity) })];
      case 'l2snapshot':
        return [this.text(topic, 'l2Snapshot', { book: this.book(arg, Number(key.slice(key.indexOf('#') + 1))) })];
      case 'ticker':
        return [this.text(topic, 'ticker', { ticker: this.ticker(arg) })];
      case 'frontendContext':
        return [this.text(topic, 'frontendContext', { ctx: this.context() })];
      case 'risk':
        return [this.text(topic, 'risk', { risk: this.risk(arg) })];
      default:
        return [];
    }
  }

  /** Publishes the engine's events, in order, to the topics that carry them (building no message nobody listens to). */
  publishEvents(events: readonly EngineEvent[]): void {
    const hub = this.hub;
    for (const e of events) {
      switch (e.type) {
        case 'orderUpdate':
          if (!hub?.hasSubscribers(`account.${e.account}`)) break;
          if (this.dialect === 'current') hub.publish(`account.${e.account}`, 'account', currentOrderUpdate(e));
          else
            hub.publish(`account.${e.account}`, 'account', {
              type: 'orderUpdate',
              status: e.status,
              symbol: e.symbol,
              orderId: e.orderId,
              price: e.price,
              originalSize: e.originalSize,
              size: e.size,
              filledSize: e.filledSize,
              vwap: e.vwap,
              isBuy: e.isBuy,
              maker: e.maker,
              reduceOnly: e.reduceOnly,
              tif: e.tif,
              timestamp: e.timestamp,
              reason: e.reason,
            });
          break;
        case 'fill':
          this.publishFill(e.fill);
          break;
        case 'bookLevel': {
          const key = `l2delta.${e.symbol}`;
          if (!hub?.hasSubscribers(key)) break;
          const level = [{ px: e.px, sz: e.sz, n: e.n }];
          hub.publish(key, 'l2Delta', {
            book: { updateType: 'delta', symbol: e.symbol, levels: e.isBid ? levels(level, []) : levels([], level), timestamp: toMs(e.timestamp) },
          });
          break;
        }
        case 'positionUpdate':
          if (!hub?.hasSubscribers(`account.${e.account}`)) break;
          hub.publish(
            `account.${e.account}`,
            'account',
            this.dialect === 'current' ? { type: 'positionUpdate', ...positionRow(this.engine, e, this.liquidationPriceOf(e)) } : this.positionUpdate(e),
          );
          break;
        case 'adl': {
          const m = this.dialect === 'current' ? currentOnlyMessage(e) : undefined;
          if (m) hub?.publish(`account.${e.account}`, 'account', m);
          break;
        }
        case 'marginUpdate': {
          if (!hub?.hasSubscribers(`account.${e.account}`)) break;
          const { type: _t, account, timestamp: _ts, maintenanceMargin: _mm, ...margin } = e;
          hub.publish(`account.${account}`, 'account', { type: 'marginUpdate', ...margin });
          break;
        }
        case 'leverageUpdate':
          hub?.publish(`account.${e.account}`, 'account', { type: 'leverageUpdate', leverage: e.leverage.map(([symbol, leverage]) => ({ symbol, leverage })) });
          break;
        case 'liquidation': {
          const { type: _t, account, ...rest } = e;
          hub?.publish(`account.${account}`, 'account', { type: 'liquidation', ...rest, reason: 'equity below maintenance margin' });
          break;
        }
        default:
          break;
      }
    }
  }

  /** Periodic market data: tickers and depth snapshots (every 200 ms on the real venue). */
  publishFast(): void {
    const hub = this.hub;
    if (!hub) return;
    for (const key of hub.activeTopics()) {
      const topic = topicOfKey(key);
      if (topic.startsWith('ticker.')) hub.publish(key, 'ticker', { ticker: this.ticker(topic.slice(7)) });
      else if (topic.startsWith('l2snapshot.')) hub.publish(key, 'l2Snapshot', { book: this.book(topic.slice(11), Number(key.slice(key.indexOf('#') + 1))) });
    }
  }

  /** Periodic summaries: frontendContext (every 2 s) and risk. */
  publishSlow(): void {
    const hub = this.hub;
    if (!hub) return;
    if (hub.hasSubscribers('frontendContext')) hub.publish('frontendContext', 'frontendContext', { ctx: this.context() });
    for (const key of hub.activeTopics()) if (key.startsWith('risk.')) hub.publish(key, 'risk', { risk: this.risk(key.slice(5)) });
  }

  private publishFill(f: FillRecord): void {
    const timeMs = toMs(f.timestamp);
    this.stats.record(f.symbol, f.price, f.amount, timeMs);
    const hub = this.hub;
    if (!hub) return;
    const reason = f.reason === 'normal' ? null : f.reason;
    for (const maker of [true, false]) {
      const account = maker ? f.maker : f.taker;
      if (hub.hasSubscribers(`account.${account}`)) hub.publish(`account.${account}`, 'account', fillMessage(f, maker));
    }
    if (!hub.hasSubscribers(`trades.${f.symbol}`)) return;
    const trade = { s: f.symbol, px: f.price, sz: f.amount, time: timeMs, side: f.isBuy, maker: f.maker, taker: f.taker, reason, liq: f.reason !== 'normal' };
    hub.publish(`trades.${f.symbol}`, 'trades', { trades: [trade] });
  }

  private positionUpdate(e: PositionUpdateEvent): Record<string, unknown> {
    const { iso: _iso, protection: _protection, ...row } = positionRow(this.engine, e, this.liquidationPriceOf(e));
    return { type: 'positionUpdate', ...row };
  }

  /** GET /klines rows (venue-protocol §8.2): candles of the last 24 hours, prices and volume on the market's steps. */
  candles(symbol: string, intervalMs: number, startMs: number, endMs: number): Candle[] {
    const m = this.engine.marketInfo(symbol)!;
    return this.stats.candles(symbol, intervalMs, startMs, endMs).map((c) => ({ ...c, v: roundToStep(c.v, m.lotSize) }));
  }

  /** GET /stats (venue-protocol §8.2): every period is the rolling 24 hours, as the real venue says of itself. */
  exchangeStats(period: string, symbol: string | undefined) {
    const nowMs = toMs(this.engine.nowNs);
    const symbols = symbol === undefined ? this.engine.markets().map((m) => m.symbol) : [symbol];
    const markets = symbols.map((sym) => {
      const info = this.engine.marketInfo(sym);
      const state = this.engine.marketState(sym);
      if (!info || !state) {
        return { symbol: sym, volume: 0, quoteVolume: 0, openInterest: 0, fundingRate: 0, fundingRateAnnualized: 0, lastPrice: 0, markPrice: 0 };
      }
      const day = this.day(sym);
      const fundingRate = this.engine.predictedFundingRate(sym) ?? 0;
      const perYear = (365 * 86_400_000_000_000) / Number(info.fundingIntervalNs);
      return {
        symbol: sym,
        volume: day.volume,
        quoteVolume: day.quoteVolume,
        openInterest: state.openInterest,
        fundingRate,
        fundingRateAnnualized: fundingRate * perYear,
        lastPrice: state.lastPrice,
        markPrice: state.markPrice,
      };
    });
    const sum = (f: (m: (typeof markets)[number]) => number) =>
      roundToStep(
        markets.reduce((a, m) => a + f(m), 0),
        0.01,
      );
    return {
      timestamp: nowMs,
      period,
      volume: { totalUsd: sum((m) => m.quoteVolume) },
      openInterest: { totalUsd: sum((m) => m.openInterest * m.markPrice) },
      funding: { rates: Object.fromEntries(markets.map((m) => [m.symbol, { current: m.fundingRate, annualized: m.fundingRateAnnualized }])) },
      markets,
    };
  }

  /** Account rows of `POST /account` in this venue's dialect (the current generation's types only when it is current). */
  accountRows({ type, user, symbol }: CurrentAccountQuery): unknown {
    return this.dialect === 'current'
      ? currentAccountRows(this.engine, { type, user, symbol }, (e) => this.liquidationPriceOf(e), this.held)
      : this.engine.query(type as AccountQueryType, user);
  }

  /** A trigger basket's order update on the account stream (current generation only). */
  publishBasket(b: Basket, status: string): void {
    if (this.dialect === 'current') this.hub?.publish(`account.${b.account}`, 'account', basketOrderUpdate(b, status, this.engine.nowNs));
  }

  /** A refused cancel on the account stream (current generation only; v1 has no such message). */
  publishCancelRejected(account: string, symbol: string, orderId: string | undefined, reason: string): void {
    if (this.dialect !== 'current') return;
    const timestamp = this.engine.nowNs;
    const data =
      orderId === undefined ? { type: 'cancelAllRejected', symbol, reason, timestamp } : { type: 'cancelOneRejected', symbol, orderId, reason, timestamp };
    this.hub?.publish(`account.${account}`, 'account', data);
  }

  private currentFullAccount(user: string) {
    return currentFullAccount(this.engine, user, (e) => this.liquidationPriceOf(e), this.held);
  }

  private liquidationPriceOf(e: PositionUpdateEvent): number {
    return this.liquidationPrice(e, this.engine.marketInfo(e.symbol)?.maintenanceMarginFraction ?? 0);
  }

  /**
   * Mark price at which the account's equity would meet its maintenance margin if only this
   * position's price moved (cross margin): solves E + s(p − m) = MMo + |s|·p·mmf; 0 when none exists.
   */
  private liquidationPrice(e: PositionUpdateEvent, mmf: number): number {
    const s = e.size;
    if (s === 0 || e.markPrice <= 0) return 0;
    const margin = this.engine.marginSummary(e.account);
    const equity = margin.totalBalance + margin.unrealizedPnl;
    const otherMm = margin.maintenanceMargin - Math.abs(s) * e.markPrice * mmf;
    const p = (otherMm - equity + s * e.markPrice) / (s - Math.abs(s) * mmf);
    return Number.isFinite(p) && p > 0 ? p : 0;
  }

  private book(symbol: string, depth: number) {
    const b = this.engine.book(symbol, depth)!;
    return { updateType: 'snapshot', symbol, levels: levels(b.bids, b.asks), timestamp: toMs(b.timestamp) };
  }

  ticker(symbol: string) {
    const s = this.engine.marketState(symbol)!;
    const day = this.day(symbol);
    return {
      symbol,
      priceChange: day.priceChange,
      priceChangePercent: day.priceChangePercent,
      lastPrice: s.lastPrice,
      highPrice: day.high,
      lowPrice: day.low,
      volume: day.volume,
      quoteVolume: day.quoteVolume,
      markPrice: s.markPrice,
      oraclePrice: s.oraclePrice,
      openInterest: s.openInterest,
      fundingRate: this.engine.predictedFundingRate(symbol) ?? 0,
      regime: 0,
      regimeDt: 0,
      regimeVol: 0,
      regimeMv: 0,
      fairBookPx: s.midPrice,
      fairVol: 0,
      fairBias: 0,
      timestamp: this.engine.nowNs,
    };
  }

  private context() {
    return this.engine.markets().map((m) => {
      const s = this.engine.marketState(m.symbol)!;
      const day = this.day(m.symbol);
      return {
        symbol: m.symbol,
        volume: day.volume,
        funding: this.engine.predictedFundingRate(m.symbol) ?? 0,
        oi: s.openInterest,
        lastPrice: s.lastPrice,
        priceChange: day.priceChange,
        priceChangePercent: day.priceChangePercent,
      };
    });
  }

  /** 24-hour statistics rounded to the market's steps (prices to the tick, sizes to the lot, USD to cents). */
  private day(symbol: string): DayStats {
    const d = this.stats.day(symbol, toMs(this.engine.nowNs));
    const m = this.engine.marketInfo(symbol)!;
    return {
      ...d,
      priceChange: roundToStep(d.priceChange, m.tickSize),
      priceChangePercent: roundToStep(d.priceChangePercent, 0.0001),
      volume: roundToStep(d.volume, m.lotSize),
      quoteVolume: roundToStep(d.quoteVolume, 0.01),
    };
  }

  /** Maintenance-margin grid: the market's flat maintenance fraction at every leverage and notional knot. */
  private risk(symbol: string) {
    const m = this.engine.marketInfo(symbol)!;
    const leverage = [1, 2, 5, 10, 20, 50].filter((l) => l <= m.maxLeverage);
    const notionals = [10_000, 100_000, 1_000_000, 10_000_000];
    const cell = { mmrO: m.maintenanceMarginFraction, mmrE: m.maintenanceMarginFraction, p: 0 };
    const grid = notionals.map(() => leverage.map(() => cell));
    return { symbol, timestamp: toMs(this.engine.nowNs), regime: 0, leverage, notionals, buy: grid, sell: grid, corrs: [] as [string, number][] };
  }

  private text(topic: string, type: string, data: unknown): string {
    return stringifyJson({ type, data, topic });
  }
}
