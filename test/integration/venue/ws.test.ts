import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStreamMessage } from '../../../src/protocol/v1/stream.js';
import type { Venue } from '../../../src/venue-sim/server/index.js';
import { http, quietVenue, Trader, WsClient } from './harness.js';

let venue: Venue;
beforeAll(async () => {
  venue = await quietVenue({ seed: 5 });
});
afterAll(() => venue.close());

type Level = { px: number; sz: number; n: number };

/** Applies snapshot-then-delta messages the way a client would: `sz: 0` deletes a level. */
function applyBook(messages: any[]): { bids: Map<number, Level>; asks: Map<number, Level> } {
  const book = { bids: new Map<number, Level>(), asks: new Map<number, Level>() };
  for (const m of messages) {
    const b = m.data.book;
    if (b.updateType === 'snapshot') {
      book.bids.clear();
      book.asks.clear();
    }
    b.levels.forEach((side: Level[], i: number) => {
      const map = i === 0 ? book.bids : book.asks;
      for (const l of side) {
        if (l.sz === 0) map.delete(l.px);
        else map.set(l.px, l);
      }
    });
  }
  return book;
}

describe('local venue WebSocket', () => {
  it('every message it sends passes the v1 stream validators', async () => {
    const t = new Trader(venue);
    await t.faucet(100_000);
    const ws = await WsClient.open(venue.wsUrl);
    ws.send({
      method: 'subscribe',
      subscription: [
        { type: 'account', user: t.account },
        { type: 'l2Delta', symbol: 'ETH-USD' },
        { type: 'l2Snapshot', symbol: 'ETH-USD', nlevels: 5 },
        { type: 'ticker', symbol: 'ETH-USD' },
        { type: 'trades', symbol: 'ETH-USD' },
        { type: 'frontendContext' },
        { type: 'risk', symbol: 'ETH-USD' },
      ],
    });
    await ws.until((m) => m.type === 'risk');
    const other = new Trader(venue);
    await other.faucet(100_000);
    await other.orders(other.limit('ETH-USD', false, 2500, 1));
    await t.orders(t.limit('ETH-USD', true, 2500, 1));
    await ws.until((m) => m.type === 'trades');
    await ws.until((m) => m.type === 'account' && m.data.type === 'positionUpdate');
    const kinds = new Set<string>();
    for (const m of ws.messages) {
      const parsed = parseStreamMessage(m);
      kinds.add(parsed.type === 'account' ? `account.${parsed.data.type}` : parsed.type);
    }
    expect([...kinds].sort()).toEqual(
      [
        'subscriptionResponse',
        'account.accountSnapshot',
        'l2Delta',
        'l2Snapshot',
        'ticker',
        'frontendContext',
        'risk',
        'trades',
        'account.orderUpdate',
        'account.fill',
        'account.positionUpdate',
        'account.marginUpdate',
      ].sort(),
    );
    expect(ws.messages[0]).toEqual({
      type: 'subscriptionResponse',
      topics: [`account.${t.account}`, 'l2delta.ETH-USD', 'l2snapshot.ETH-USD', 'ticker.ETH-USD', 'trades.ETH-USD', 'frontendContext', 'risk.ETH-USD'],
    });
    const snap = ws.messages.find((m) => m.type === 'l2Snapshot');
    expect(snap.data.book.levels[0].length).toBeLessThanOrEqual(5);
    ws.close();
  });

  it('account stream: snapshot first, then one orderUpdate per status change in the order applied', async () => {
    const t = new Trader(venue);
    const counter = new Trader(venue);
    await t.faucet(100_000);
    await counter.faucet(100_000);
    const resting = await t.orders(t.limit('SOL-USD', false, 90, 1));
    const ws = await WsClient.open(venue.wsUrl);
    ws.send({ method: 'subscribe', subscription: [{ type: 'account', user: [t.account] }] });
    const snapshot = await ws.until((m) => m.type === 'account');
    expect(snapshot.data.type).toBe('accountSnapshot');
    expect(snapshot.data.openOrders.map((o: any) => o.orderId)).toEqual([resting.orderIds[0]]);
    const oid = resting.orderIds[0];
    await counter.orders(counter.limit('SOL-USD', true, 90, 0.4, 'IOC'));
    await counter.orders(counter.limit('SOL-USD', true, 90, 0.6, 'IOC'));
    const placed = await t.orders(t.limit('SOL-USD', false, 95, 1));
    await t.orders({ cancel: { c: 'SOL-USD', oid: placed.orderIds[0] } });
    await ws.until((m) => m.data?.type === 'orderUpdate' && m.data.status === 'cancelled');
    const updates = ws.messages.filter((m) => m.data?.type === 'orderUpdate').map((m) => [m.data.orderId, m.data.status, m.data.filledSize]);
    expect(updates).toEqual([
      [oid, 'working', 0.4],
      [oid, 'filled', 1],
      [placed.orderIds[0], 'placed', 0],
      [placed.orderIds[0], 'cancelled', 0],
    ]);
    const fills = ws.messages.filter((m) => m.data?.type === 'fill');
    expect(fills.map((f) => [f.data.orderId, f.data.size, f.data.maker, f.data.isBuy])).toEqual([
      [oid, 0.4, true, false],
      [oid, 0.6, true, false],
    ]);
    ws.close();
  });

  it('a client applying l2delta messages holds exactly the venue book, through many changes', async () => {
    // The flow moves the book only when stepped: a timed round between the last delta and the REST read would differ.
    const flowVenue = await quietVenue({ seed: 11, flow: { makers: 3, levels: 6 }, flowIntervalMs: 3_600_000 });
    try {
      const ws = await WsClient.open(flowVenue.wsUrl);
      ws.send({ method: 'subscribe', subscription: [{ type: 'l2Delta', symbol: 'BTC-USD' }] });
      await ws.until((m) => m.type === 'l2Delta');
      for (let i = 0; i < 30; i++) flowVenue.step();
      const marker = new Trader(flowVenue);
      await marker.faucet(1000);
      await marker.orders(marker.limit('BTC-USD', true, 1000, 0.01));
      await ws.until((m) => m.type === 'l2Delta' && m.data.book.levels[0].some((l: Level) => l.px === 1000));
      const mine = applyBook(ws.messages.filter((m) => m.type === 'l2Delta'));
      const rest = await http(`${flowVenue.url}/l2book?symbol=BTC-USD&nlevels=1000`);
      const toMap = (side: Level[]) => new Map(side.map((l) => [l.px, l]));
      expect(mine.bids).toEqual(toMap(rest.body.levels[0]));
      expect(mine.asks).toEqual(toMap(rest.body.levels[1]));
      expect(ws.messages.filter((m) => m.type === 'l2Delta').length).toBeGreaterThan(50);
      ws.close();
    } finally {
      await flowVenue.close();
    }
  });

  it('answers garbage with error messages, keeps the connection, and enforces 100 subscriptions', async () => {
    const ws = await WsClient.open(venue.wsUrl);
    ws.send('{{{');
    ws.send({ method: 'subscribe', subscription: [{ type: 'ticker', symbol: 'NOPE-USD' }] });
    ws.send({ method: 'subscribe', subscription: [{ type: 'ticker', symbol: 'btc' }] });
    ws.send({ method: 'unsubscribe', topic: 'ticker.BTC-USD' });
    await ws.until((_m) => ws.messages.length >= 4);
    expect(ws.messages.map((m) => m.type)).toEqual(['error', 'error', 'error', 'error']);
    expect(ws.messages[1].error.message).toMatch(/unknown symbol/);
    const users = Array.from({ length: 101 }, () => new Trader(venue).account);
    ws.send({ method: 'subscribe', subscription: [{ type: 'account', user: users }] });
    await ws.until((_m) => ws.messages.length >= 5);
    expect(ws.messages[4].type).toBe('error');
    ws.send({ method: 'subscribe', subscription: [{ type: 'account', user: users.slice(0, 100) }] });
    const ok = await ws.until((m) => m.type === 'subscriptionResponse');
    expect(ok.topics).toHaveLength(100);
    expect(venue.hub.stats.garbageFrames).toBeGreaterThanOrEqual(5);
    ws.close();
  });
});
