// The account as the framework sees it (orders, positions, collateral, margin, leverage), folded from stream messages.
// Invariants: pure and immutable; terminal orders and zero positions are removed; a snapshot replaces everything.

import type { OrderState } from '../protocol/v1/status.js';
import { isTerminalStatus } from '../protocol/v1/status.js';
import type { AccountData, AccountSnapshot, MarginUpdate, OrderUpdate } from '../protocol/v1/stream.js';

export interface AccountOrder {
  orderId: string;
  symbol: string;
  price: number;
  originalSize: number;
  /** Remaining size. */
  size: number;
  filledSize: number;
  vwap: number;
  isBuy: boolean;
  maker: boolean;
  status: OrderState;
  /** ns */
  timestamp: bigint;
  /** Known from the snapshot only (order updates do not carry them). */
  reduceOnly: boolean | undefined;
  tif: 'gtc' | 'ioc' | 'alo' | undefined;
}

export interface AccountPosition {
  symbol: string;
  /** Signed: negative = short. */
  size: number;
  /** Entry price, USD. */
  price: number;
  realizedPnl: number;
  leverage: number;
  /** Known once a positionUpdate arrived. */
  unrealizedPnl: number | undefined;
  liquidationPrice: number | undefined;
}

export type MarginSummary = Omit<MarginUpdate, 'type'>;

export interface AccountState {
  readonly user: string;
  readonly orders: ReadonlyMap<string, AccountOrder>;
  readonly positions: ReadonlyMap<string, AccountPosition>;
  /** Collateral balance per coin. */
  readonly collateral: ReadonlyMap<string, number>;
  /** Known once a marginUpdate arrived. */
  readonly margin: MarginSummary | undefined;
  /** Maximum leverage setting per symbol. */
  readonly leverage: ReadonlyMap<string, number>;
}

export function stateFromSnapshot(user: string, s: AccountSnapshot): AccountState {
  return {
    user,
    orders: new Map(s.openOrders.map((o) => [o.orderId, o])),
    positions: new Map(
      s.positions.filter((p) => p.size !== 0).map((p) => [p.coin, { symbol: p.coin, size: p.size, price: p.price, realizedPnl: p.realizedPnl, leverage: p.leverage, unrealizedPnl: undefined, liquidationPrice: undefined }]),
    ),
    collateral: new Map(s.marginSummary.positions.map((c) => [c.coin, c.size])),
    margin: undefined,
    leverage: new Map(s.settings.maxLeverage),
  };
}

function withOrder(state: AccountState, u: OrderUpdate): AccountState {
  const orders = new Map(state.orders);
  if (isTerminalStatus(u.status)) orders.delete(u.orderId);
  else {
    const before = state.orders.get(u.orderId);
    // Spelled out (not rest and spread): one object shape, the snapshot's, and no slow-path property definitions.
    orders.set(u.orderId, {
      symbol: u.symbol,
      orderId: u.orderId,
      price: u.price,
      originalSize: u.originalSize,
      size: u.size,
      filledSize: u.filledSize,
      vwap: u.vwap,
      isBuy: u.isBuy,
      maker: u.maker,
      status: u.status,
      timestamp: u.timestamp,
      reduceOnly: before?.reduceOnly,
      tif: before?.tif,
    });
  }
  return { ...state, orders };
}

/** Folds one account message into `state`; before the first snapshot only a snapshot starts a state. */
export function applyAccountData(user: string, state: AccountState | undefined, data: AccountData): AccountState | undefined {
  if (data.type === 'accountSnapshot') return stateFromSnapshot(user, data);
  if (!state) return undefined;
  switch (data.type) {
    case 'orderUpdate':
      return withOrder(state, data);
    case 'positionUpdate': {
      const positions = new Map(state.positions);
      if (data.size === 0) positions.delete(data.symbol);
      else {
        const { symbol, size, price, realizedPnl, leverage, unrealizedPnl, liquidationPrice } = data;
        positions.set(symbol, { symbol, size, price, realizedPnl, leverage, unrealizedPnl, liquidationPrice });
      }
      return { ...state, positions };
    }
    case 'marginUpdate': {
      const { type: _type, ...margin } = data;
      return { ...state, margin };
    }
    case 'leverageUpdate': {
      const leverage = new Map(state.leverage);
      for (const l of data.leverage) leverage.set(l.symbol, l.leverage);
      return { ...state, leverage };
    }
    default:
      return state;
  }
}
