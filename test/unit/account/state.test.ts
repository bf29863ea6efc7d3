import { describe, expect, it } from 'vitest';
import { applyAccountData, type AccountState } from '../../../src/account/state.js';
import type { AccountData } from '../../../src/protocol/v1/stream.js';
import { key } from '../../support/loopback-venue.js';

const USER = key(1);
const A = key(0xa1);
const B = key(0xa2);
const order = (orderId: string, extra: object = {}) => ({
  symbol: 'BTC-USD', orderId, price: 100, originalSize: 2, size: 2, filledSize: 0, vwap: 0, isBuy: true, maker: true, reduceOnly: true, tif: 'alo' as const, status: 'placed' as const, timestamp: 1n, ...extra,
});
const snapshot: AccountData = {
  type: 'accountSnapshot',
  positions: [{ coin: 'BTC-USD', size: 1, price: 99, realizedPnl: 0, leverage: 5 }],
  openOrders: [order(A), order(B)],
  marginSummary: { positions: [{ coin: 'USDC', size: 1000 }] },
  settings: { maxLeverage: [['BTC-USD', 5]] },
};

function fold(...data: AccountData[]): AccountState | undefined {
  return data.reduce<AccountState | undefined>((s, d) => applyAccountData(USER, s, d), undefined);
}

describe('account state', () => {
  it('starts only from a snapshot', () => {
    expect(fold({ type: 'marginUpdate', totalBalance: 1, availableBalance: 1, marginUsed: 0, notional: 0, realizedPnl: 0, unrealizedPnl: 0, fees: 0, funding: 0 })).toBeUndefined();
    const s = fold(snapshot)!;
    expect([...s.orders.keys()]).toEqual([A, B]);
    expect(s.positions.get('BTC-USD')).toMatchObject({ size: 1, price: 99, leverage: 5 });
    expect(s.collateral.get('USDC')).toBe(1000);
    expect(s.leverage.get('BTC-USD')).toBe(5);
  });

  it('folds order updates (keeping snapshot-only fields), removing terminal orders', () => {
    const { reduceOnly: _r, tif: _t, ...wire } = order(A, { status: 'working', size: 1, filledSize: 1, vwap: 100 });
    const s = fold(snapshot, { type: 'orderUpdate', ...wire, reason: null }, { type: 'orderUpdate', ...wire, orderId: B, status: 'cancelled', reason: null })!;
    expect([...s.orders.keys()]).toEqual([A]);
    expect(s.orders.get(A)).toMatchObject({ status: 'working', filledSize: 1, reduceOnly: true, tif: 'alo' });
  });

  it('folds position, margin and leverage updates; a zero position disappears; a snapshot replaces everything', () => {
    const position = { symbol: 'ETH-USD', size: -3, price: 10, realizedPnl: 1, unrealizedPnl: 2, leverage: 3, liquidationPrice: 20, fairPrice: 10, notional: 30, fees: 0, funding: 0, maintenanceMargin: 1, lambda: 0, riskAllocation: 0 };
    const margin = { totalBalance: 5, availableBalance: 4, marginUsed: 1, notional: 30, realizedPnl: 1, unrealizedPnl: 2, fees: 0, funding: 0 };
    const s = fold(
      snapshot,
      { type: 'positionUpdate', ...position },
      { type: 'positionUpdate', ...position, symbol: 'BTC-USD', size: 0 },
      { type: 'marginUpdate', ...margin },
      { type: 'leverageUpdate', leverage: [{ symbol: 'ETH-USD', leverage: 3 }] },
    )!;
    expect([...s.positions.values()]).toEqual([{ symbol: 'ETH-USD', size: -3, price: 10, realizedPnl: 1, leverage: 3, unrealizedPnl: 2, liquidationPrice: 20 }]);
    expect(s.margin).toEqual(margin);
    expect(Object.fromEntries(s.leverage)).toEqual({ 'BTC-USD': 5, 'ETH-USD': 3 });
    const again = applyAccountData(USER, s, snapshot)!;
    expect(again.positions.has('ETH-USD')).toBe(false);
    expect(again.margin).toBeUndefined();
  });
});
