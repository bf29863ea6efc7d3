import { describe, expect, it } from 'vitest';
import { KeyCounts } from '../../../src/account/dedupe.js';
import { baselineOf, missedEvents } from '../../../src/account/reconcile.js';
import { applyAccountData, type AccountState } from '../../../src/account/state.js';
import type { Fill, OpenOrder, OrderHistoryEntry } from '../../../src/protocol/v1/account.js';
import { key } from '../../support/loopback-venue.js';

const USER = key(1);
const OTHER = key(2);
const [A, B, C, OLD] = [key(0xa1), key(0xa2), key(0xa3), key(0xa4)];

const open = (orderId: string, extra: Partial<OpenOrder> = {}): OpenOrder => ({
  symbol: 'BTC-USD', orderId, price: 100, originalSize: 2, size: 2, filledSize: 0, vwap: 0, isBuy: true, maker: true, reduceOnly: false, tif: 'gtc', status: 'placed', timestamp: 10n, ...extra,
});
const fill = (orderId: string, timestamp: bigint, amount = 1): Fill => ({
  maker: USER, taker: OTHER, orderIdMaker: orderId, orderIdTaker: key(0xee), isBuy: false, symbol: 'BTC-USD', amount, price: 100, makerFee: 0.01, takerFee: 0.02, slot: 1n, timestamp,
});
const history = (orderId: string, status: OrderHistoryEntry['status'], executedSize: number, timestamp: bigint): OrderHistoryEntry => ({
  orderId, symbol: 'BTC-USD', side: 'buy', orderType: 'limit', tif: 'gtc', price: 100, vwap: 100, originalSize: 2, executedSize, reduceOnly: false, status, reason: null, slot: 1n, timestamp,
});
const state = (...orders: OpenOrder[]): AccountState =>
  applyAccountData(USER, undefined, { type: 'accountSnapshot', positions: [], openOrders: orders, marginSummary: { positions: [] }, settings: { maxLeverage: [] } })!;

describe('missedEvents', () => {
  it('emits terminal orders, new or changed open orders and fills since the baseline, oldest first, each once', () => {
    const baseline = baselineOf(USER, [fill(OLD, 1n)], [history(OLD, 'filled', 2, 1n)]);
    const seen = { orders: new KeyCounts(), fills: new KeyCounts() };
    seen.fills.add(`${A}:20:100:1`);
    const fills = [fill(A, 40n), fill(A, 30n), fill(A, 20n), fill(OLD, 1n)];
    const hist = [history(A, 'cancelled', 3, 50n), history(OLD, 'filled', 2, 1n)];
    const events = missedEvents(USER, state(open(A), open(B)), state(open(B, { status: 'working', filledSize: 1, size: 1, timestamp: 35n }), open(C, { timestamp: 45n })), fills, hist, baseline, seen);
    expect(events.map((e) => `${e.type}:${e.orderId === A ? 'A' : e.orderId === B ? 'B' : 'C'}:${e.timestamp}`)).toEqual([
      'fill:A:30', 'orderUpdate:B:35', 'fill:A:40', 'orderUpdate:C:45', 'orderUpdate:A:50',
    ]);
    expect(events.find((e) => e.type === 'fill')).toMatchObject({ maker: true, fee: 0.01, size: 1, price: 100 });
    expect(missedEvents(USER, state(open(A), open(B)), state(open(B, { status: 'working', filledSize: 1, size: 1 }), open(C)), fills, hist, baseline, seen)).toEqual([]);
  });

  it('keeps repeated identical fills apart by count', () => {
    const baseline = baselineOf(USER, [], []);
    const seen = { orders: new KeyCounts(), fills: new KeyCounts() };
    seen.fills.add(`${A}:20:100:1`);
    const events = missedEvents(USER, state(), state(), [fill(A, 20n), fill(A, 20n), fill(A, 20n)], [], baseline, seen);
    expect(events).toHaveLength(2);
  });
});

describe('KeyCounts', () => {
  it('forgets the oldest keys past its capacity', () => {
    const k = new KeyCounts(2);
    k.add('a');
    k.add('b');
    k.add('b');
    k.add('c');
    expect([k.count('a'), k.count('b'), k.count('c')]).toEqual([0, 2, 1]);
  });
});
