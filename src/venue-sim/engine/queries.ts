// Read-only views for the six account queries, book snapshots and market state (v1 row shapes).
// Invariant: queries never change state; history rows come newest first, at most historyLimit of each.

import { unitsToUsd } from '../decimals.js';
import { computeRisk, newRisk } from './accounts.js';
import { TIF_TEXT } from './book.js';
import type { Account, Market, Order } from './model.js';
import type { State } from './state.js';
import type {
  BookLevelRow,
  BookSnapshot,
  ClosedPositionRow,
  FillRow,
  FullAccountRow,
  FundingPaymentRow,
  MarginSummary,
  MarketState,
  OpenOrderRow,
  OrderHistoryRow,
} from './types.js';

export function openOrderRow(o: Order): OpenOrderRow {
  const m = o.market;
  return {
    symbol: m.symbol,
    orderId: o.id,
    price: m.price(o.priceTicks),
    originalSize: m.size(o.origLots),
    size: m.size(o.remLots),
    filledSize: m.size(o.filledLots),
    vwap: m.avgPrice(o.filledValue, o.filledLots),
    isBuy: o.isBuy,
    maker: o.maker,
    reduceOnly: o.reduceOnly,
    tif: TIF_TEXT[o.tif]!,
    status: o.status,
    timestamp: o.createdNs,
  };
}

export function openOrders(a: Account | undefined): OpenOrderRow[] {
  const out: OpenOrderRow[] = [];
  for (let o = a?.ordersHead ?? null; o !== null; o = o.aNext) out.push(openOrderRow(o));
  return out;
}

export function fullAccount(st: State, a: Account | undefined): FullAccountRow {
  const positions = [];
  if (a !== undefined) {
    for (const p of a.positions) {
      if (p.lots === 0) continue;
      const m = p.market;
      positions.push({
        coin: m.symbol,
        size: m.size(p.lots),
        price: st.entryPrice(p),
        realizedPnl: unitsToUsd(p.realized, st.quoteScale),
        leverage: a.leverage[m.index]!,
      });
    }
  }
  return {
    positions,
    openOrders: openOrders(a),
    marginSummary: { positions: [{ coin: 'USDC', size: a === undefined ? 0 : unitsToUsd(a.balance, st.quoteScale) }] },
    settings: { maxLeverage: st.markets.map((m) => [m.symbol, a === undefined ? m.defaultLeverage : a.leverage[m.index]!]) },
  };
}

export function marginSummary(st: State, a: Account | undefined): MarginSummary {
  if (a === undefined) {
    return { totalBalance: 0, availableBalance: 0, marginUsed: 0, maintenanceMargin: 0, notional: 0, realizedPnl: 0, unrealizedPnl: 0, fees: 0, funding: 0 };
  }
  const r = computeRisk(a, st.quoteScale, newRisk());
  const qs = st.quoteScale;
  return {
    totalBalance: unitsToUsd(a.balance, qs),
    availableBalance: r.equity - r.initialMargin,
    marginUsed: r.initialMargin,
    maintenanceMargin: r.maintenanceMargin,
    notional: r.notional,
    realizedPnl: unitsToUsd(a.realized, qs),
    unrealizedPnl: r.unrealized,
    fees: unitsToUsd(a.fees, qs),
    funding: unitsToUsd(a.funding, qs),
  };
}

export function fills(st: State, a: Account | undefined): FillRow[] {
  return a === undefined ? [] : st.fillLog.list(a, st.markets, st.quoteScale);
}

export function closedPositions(a: Account | undefined): ClosedPositionRow[] {
  return a?.closed?.newestFirst() ?? [];
}

export function fundingHistory(a: Account | undefined): FundingPaymentRow[] {
  return a?.fundingRows?.newestFirst() ?? [];
}

export function orderHistory(st: State, a: Account | undefined): OrderHistoryRow[] {
  return a?.history?.list(st.markets) ?? [];
}

export function bookSnapshot(st: State, m: Market, depth: number): BookSnapshot {
  const side = (levels: readonly { priceTicks: number; totalLots: number; count: number }[]): BookLevelRow[] => {
    const out: BookLevelRow[] = [];
    for (let i = levels.length - 1; i >= 0 && out.length < depth; i--) {
      const l = levels[i]!;
      out.push({ px: m.price(l.priceTicks), sz: m.size(l.totalLots), n: l.count });
    }
    return out;
  };
  return { symbol: m.symbol, bids: side(m.bids.levels), asks: side(m.asks.levels), timestamp: st.nowNs };
}

export function marketState(m: Market): MarketState {
  const b = m.bids.best();
  const a = m.asks.best();
  return {
    symbol: m.symbol,
    markPrice: m.markPrice(),
    oraclePrice: m.oraclePx,
    midPrice: m.midPrice(),
    bestBid: b === undefined ? 0 : m.price(b.priceTicks),
    bestAsk: a === undefined ? 0 : m.price(a.priceTicks),
    lastPrice: m.price(m.lastTradeTicks),
    openInterest: m.size(m.openInterestLots),
    fundingRate: m.lastFundingRate,
    nextFundingNs: m.nextFundingNs,
    volume: m.size(m.volumeLots),
  };
}
