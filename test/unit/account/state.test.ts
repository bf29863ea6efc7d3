import { describe, expect, it } from 'vitest';
import type { AccountUpdate, Margin, Position, VenueOrder } from '../../../src/core/account-data.js';
import { applyAccountUpdate, type AccountState } from '../../../src/account/state.js';
import { key } from '../../support/loopback-venue.js';
import { venueOrder } from './rows.js';

const USER = key(1);
const A = key(0xa1);
const B = key(0xa2);
const order = (orderId: string, extra: Partial<VenueOrder> = {}): VenueOrder =>
  venueOrder(orderId, { venueTimeNs: 1n, reduceOnly: true, tif: 'ALO', ...extra });
const position = (symbol: string, size: number, extra: Partial<Position> = {}): Position => ({
  symbol,
  size,
  entryPrice: 99,
  realizedPnlUsd: 0,
  leverage: 5,
  unrealizedPnlUsd: undefined,
  liquidationPrice: undefined,
  ...extra,
});
const snapshot: AccountUpdate = {
  kind: 'snapshot',
  snapshot: {
    openOrders: [order(A), order(B)],
    positions: [position('BTC-USD', 1), position('SOL-USD', 0)],
    collateral: [{ coin: 'USDC', amount: 1000 }],
    leverage: [{ symbol: 'BTC-USD', leverage: 5 }],
  },
};
const margin: Margin = {
  totalBalanceUsd: 5,
  availableBalanceUsd: 4,
  marginUsedUsd: 1,
  notionalUsd: 30,
  realizedPnlUsd: 1,
  unrealizedPnlUsd: 2,
  feesUsd: 0,
  fundingUsd: 0,
};

function fold(...updates: AccountUpdate[]): AccountState | undefined {
  return updates.reduce<AccountState | undefined>((s, u) => applyAccountUpdate(USER, s, u), undefined);
}

describe('account state', () => {
  it('starts only from a snapshot (zero positions left out)', () => {
    expect(fold({ kind: 'margin', margin })).toBeUndefined();
    const s = fold(snapshot)!;
    expect([...s.orders.keys()]).toEqual([A, B]);
    expect([...s.positions.keys()]).toEqual(['BTC-USD']);
    expect(s.positions.get('BTC-USD')).toMatchObject({ size: 1, entryPrice: 99, leverage: 5 });
    expect(s.collateral.get('USDC')).toBe(1000);
    expect(s.leverage.get('BTC-USD')).toBe(5);
    expect(s.margin).toBeUndefined();
  });

  it("folds order updates (keeping the open-order report's reduce-only and time in force), removing terminal orders", () => {
    const update = (orderId: string, extra: Partial<VenueOrder>) =>
      ({ kind: 'order', order: order(orderId, { reduceOnly: undefined, tif: undefined, ...extra }) }) as const;
    const s = fold(snapshot, update(A, { status: 'working', remainingSize: 1, filledSize: 1, avgFillPrice: 100 }), update(B, { status: 'cancelled' }))!;
    expect([...s.orders.keys()]).toEqual([A]);
    expect(s.orders.get(A)).toMatchObject({ status: 'working', filledSize: 1, remainingSize: 1, reduceOnly: true, tif: 'ALO' });
    const fresh = key(0xa3);
    expect(applyAccountUpdate(USER, s, update(fresh, {}))!.orders.get(fresh)).toMatchObject({ reduceOnly: undefined, tif: undefined });
  });

  it('returns the same state for a terminal update of an order it does not hold (a post-only rejection changes nothing)', () => {
    const s = fold(snapshot)!;
    const rejected = { kind: 'order', order: order(key(0xa4), { status: 'rejectedCrossing', reduceOnly: undefined, tif: undefined }) } as const;
    expect(applyAccountUpdate(USER, s, rejected)).toBe(s);
    expect(applyAccountUpdate(USER, s, { kind: 'order', order: order(A, { status: 'cancelled' }) })!.orders.has(A)).toBe(false);
  });

  it('folds position, margin and leverage updates; a zero position disappears; a snapshot replaces everything', () => {
    const eth = position('ETH-USD', -3, { entryPrice: 10, realizedPnlUsd: 1, unrealizedPnlUsd: 2, leverage: 3, liquidationPrice: 20 });
    const s = fold(
      snapshot,
      { kind: 'position', position: eth },
      { kind: 'position', position: position('BTC-USD', 0) },
      { kind: 'margin', margin },
      { kind: 'leverage', leverage: [{ symbol: 'ETH-USD', leverage: 3 }] },
    )!;
    expect([...s.positions.values()]).toEqual([eth]);
    expect(s.margin).toEqual(margin);
    expect(Object.fromEntries(s.leverage)).toEqual({ 'BTC-USD': 5, 'ETH-USD': 3 });
    const again = applyAccountUpdate(USER, s, snapshot)!;
    expect(again.positions.has('ETH-USD')).toBe(false);
    expect(again.margin).toBeUndefined();
  });
});
