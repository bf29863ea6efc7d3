import { describe, expect, it } from 'vitest';
import { Subject } from 'rxjs';
import type { AccountUpdate, ClosedOrder, Fill, VenueOrder } from '../../../src/core/account-data.js';
import { AccountStreams } from '../../../src/account/account.js';
import type { AccountState } from '../../../src/account/state.js';
import type { AccountDataSource } from '../../../src/venue/port.js';
import { key } from '../../support/loopback-venue.js';
import { flushPromises } from '../execution/fakes.js';
import { makerFill as fill, venueOrder as order } from './rows.js';

const USER = key(1);
const [A, B] = [key(0xa1), key(0xa2)];

const snapshot = (...openOrders: VenueOrder[]): AccountUpdate => ({
  kind: 'snapshot',
  snapshot: { openOrders, positions: [], collateral: [{ coin: 'USDC', amount: 10 }], leverage: [] },
});

/** An account source whose stream the test drives and whose queries answer the current rows. */
class FakeAccountSource implements AccountDataSource {
  readonly stream = new Subject<AccountUpdate>();
  fillRows: Fill[] = [];
  historyRows: ClosedOrder[] = [];
  reads = 0;
  updates$ = () => this.stream.asObservable();
  fills = async () => (this.reads++, this.fillRows);
  orderHistory = async () => this.historyRows;
  openOrders = async () => [];
}

describe('AccountStreams', () => {
  it('folds the stream into state, signals each snapshot, passes order updates and fills once', async () => {
    const source = new FakeAccountSource();
    const streams = new AccountStreams({ source });
    const states: AccountState[] = [];
    const updates: VenueOrder[] = [];
    const fills: Fill[] = [];
    let snapshots = 0;
    streams.state$(USER).subscribe((s) => states.push(s));
    streams.orderUpdates$(USER).subscribe((o) => updates.push(o));
    streams.fills$(USER).subscribe((f) => fills.push(f));
    streams.snapshots$(USER).subscribe(() => snapshots++);
    source.stream.next({ kind: 'order', order: order(A) });
    expect(states).toEqual([]);
    source.stream.next(snapshot(order(A)));
    expect([states.length, snapshots]).toEqual([1, 1]);
    expect(states[0]!.collateral.get('USDC')).toBe(10);
    const working = order(A, { status: 'working', filledSize: 1, remainingSize: 1 });
    source.stream.next({ kind: 'order', order: working });
    source.stream.next({ kind: 'order', order: working });
    source.stream.next({ kind: 'fill', fill: fill(A, 20n) });
    expect(updates).toEqual([working]);
    expect(fills).toEqual([fill(A, 20n)]);
    expect(states.at(-1)!.orders.get(A)).toBe(working);
    const late: AccountState[] = [];
    streams.state$(USER).subscribe((s) => late.push(s));
    expect(late).toEqual([states.at(-1)]);
  });

  it('a trigger order placed while parked and placed again once on the book are two updates (the second is not a repeat)', () => {
    const source = new FakeAccountSource();
    const streams = new AccountStreams({ source });
    const updates: VenueOrder[] = [];
    streams.orderUpdates$(USER).subscribe((o) => updates.push(o));
    source.stream.next(snapshot());
    const parked = order(A, { maker: false, parked: true });
    const fired = order(A, { parked: false });
    for (const o of [parked, parked, fired, fired]) source.stream.next({ kind: 'order', order: o });
    expect(updates).toEqual([parked, fired]);
  });

  it('after a later snapshot, emits what the queries show was missed since the first read (and nothing seen)', async () => {
    const source = new FakeAccountSource();
    source.fillRows = [fill(B, 1n)];
    source.historyRows = [{ ...order(B), orderType: 'limit', tif: 'GTC', reduceOnly: false, status: 'filled', filledSize: 2 }];
    const streams = new AccountStreams({ source });
    const updates: VenueOrder[] = [];
    const fills: Fill[] = [];
    let snapshots = 0;
    streams.orderUpdates$(USER).subscribe((o) => updates.push(o));
    streams.fills$(USER).subscribe((f) => fills.push(f));
    streams.snapshots$(USER).subscribe(() => snapshots++);
    source.stream.next(snapshot(order(A)));
    await flushPromises();
    expect([source.reads, updates, fills]).toEqual([1, [], []]);
    source.stream.next({ kind: 'fill', fill: fill(A, 20n) });
    source.fillRows = [fill(A, 30n), fill(A, 20n), fill(B, 1n)];
    source.historyRows = [
      { ...order(A), orderType: 'limit', tif: 'GTC', reduceOnly: false, status: 'filled', filledSize: 2, venueTimeNs: 40n },
      ...source.historyRows,
    ];
    source.stream.next(snapshot());
    await flushPromises();
    expect(snapshots).toBe(2);
    expect(fills).toEqual([fill(A, 20n), fill(A, 30n)]);
    expect(updates).toEqual([expect.objectContaining({ orderId: A, status: 'filled', filledSize: 2, remainingSize: 0, maker: true, venueTimeNs: 40n })]);
  });

  it('a fill the reconciliation already emitted is not repeated when the stream delivers it late; equal stream fills both pass', async () => {
    const source = new FakeAccountSource();
    const streams = new AccountStreams({ source });
    const fills: Fill[] = [];
    streams.fills$(USER).subscribe((f) => fills.push(f));
    source.stream.next(snapshot(order(A)));
    await flushPromises();
    // The stream was away: the next snapshot's queries already show the fill the stream still has in flight.
    source.fillRows = [fill(A, 30n)];
    source.stream.next(snapshot(order(A)));
    await flushPromises();
    source.stream.next({ kind: 'fill', fill: fill(A, 30n) });
    source.stream.next({ kind: 'fill', fill: fill(A, 50n) });
    source.stream.next({ kind: 'fill', fill: fill(A, 50n) });
    expect(fills).toEqual([fill(A, 30n), fill(A, 50n), fill(A, 50n)]);
  });
});
