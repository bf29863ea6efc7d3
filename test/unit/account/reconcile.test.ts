import { describe, expect, it } from 'vitest';
import type { ClosedOrder, TerminalOrderStatus, VenueOrder } from '../../../src/core/account-data.js';
import { KeyCounts } from '../../../src/account/dedupe.js';
import { baselineOf, missedEvents, type MissedEvent } from '../../../src/account/reconcile.js';
import { applyAccountUpdate, type AccountState } from '../../../src/account/state.js';
import { key } from '../../support/loopback-venue.js';
import { makerFill as fill, venueOrder as open } from './rows.js';

const USER = key(1);
const [A, B, C, OLD] = [key(0xa1), key(0xa2), key(0xa3), key(0xa4)];

const history = (orderId: string, status: TerminalOrderStatus, filledSize: number, venueTimeNs: bigint): ClosedOrder => ({
  orderId,
  symbol: 'BTC-USD',
  side: 'buy',
  orderType: 'limit',
  tif: 'GTC',
  price: 100,
  avgFillPrice: 100,
  originalSize: 2,
  filledSize,
  reduceOnly: false,
  status,
  reason: undefined,
  venueTimeNs,
});
const state = (...orders: VenueOrder[]): AccountState =>
  applyAccountUpdate(USER, undefined, { kind: 'snapshot', snapshot: { openOrders: orders, positions: [], collateral: [], leverage: [] } })!;
const label = (e: MissedEvent) => {
  const { orderId, venueTimeNs } = e.kind === 'order' ? e.order : e.fill;
  return `${e.kind}:${orderId === A ? 'A' : orderId === B ? 'B' : 'C'}:${venueTimeNs}`;
};

describe('missedEvents', () => {
  it('emits terminal orders, new or changed open orders and fills since the baseline, oldest first, each once', () => {
    const baseline = baselineOf([fill(OLD, 1n)], [history(OLD, 'filled', 2, 1n)]);
    const seen = { orders: new KeyCounts(), fills: new KeyCounts() };
    seen.fills.add(`${A}:20:100:1`);
    const fills = [fill(A, 40n), fill(A, 30n), fill(A, 20n), fill(OLD, 1n)];
    const hist = [history(A, 'cancelled', 1, 50n), history(OLD, 'filled', 2, 1n)];
    const working = open(B, { status: 'working', filledSize: 1, remainingSize: 1, venueTimeNs: 35n });
    const events = missedEvents(state(open(A), open(B)), state(working, open(C, { venueTimeNs: 45n })), fills, hist, baseline, seen);
    expect(events.map(label)).toEqual(['fill:A:30', 'order:B:35', 'fill:A:40', 'order:C:45', 'order:A:50']);
    expect(events.find((e) => e.kind === 'fill')).toEqual({ kind: 'fill', fill: fill(A, 30n) });
    expect(events.at(-1)).toEqual({
      kind: 'order',
      order: {
        orderId: A,
        symbol: 'BTC-USD',
        side: 'buy',
        price: 100,
        originalSize: 2,
        remainingSize: 1,
        filledSize: 1,
        avgFillPrice: 100,
        maker: true,
        status: 'cancelled',
        venueTimeNs: 50n,
        reason: undefined,
        reduceOnly: false,
        tif: 'GTC',
      },
    });
    expect(missedEvents(state(open(A), open(B)), state(working, open(C)), fills, hist, baseline, seen)).toEqual([]);
  });

  it('a trigger order that left its parked state while the stream was away is a missed event (same status, same fill)', () => {
    const seen = { orders: new KeyCounts(), fills: new KeyCounts() };
    const parked = open(A, { maker: false, parked: true });
    const fired = open(A, { parked: false, venueTimeNs: 60n });
    const events = missedEvents(state(parked), state(fired), [], [], baselineOf([], []), seen);
    expect(events).toEqual([{ kind: 'order', order: fired }]);
    expect(missedEvents(state(parked), state(parked), [], [], baselineOf([], []), seen)).toEqual([]);
  });

  it('keeps repeated identical fills apart by count', () => {
    const baseline = baselineOf([], []);
    const seen = { orders: new KeyCounts(), fills: new KeyCounts() };
    seen.fills.add(`${A}:20:100:1`);
    const events = missedEvents(state(), state(), [fill(A, 20n), fill(A, 20n), fill(A, 20n)], [], baseline, seen);
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
