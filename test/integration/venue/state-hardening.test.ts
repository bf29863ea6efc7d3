// The local venue over real HTTP: extreme oracle input gets a 400 JSON error and changes nothing, every
// terminal order the stream reports is in orderHistory, and a nonce below the signer's accepted ones is stale.
// Invariant: each refused request leaves the market state, the ledger and the order history as they were.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { parseAccountResponse } from '../../../src/protocol/v1/account.js';
import type { Venue } from '../../../src/venue-sim/server/index.js';
import { quietVenue, Trader, WsClient } from './harness.js';

const oracleKey = Keypair.generate();
const clock = new ManualClock(BigInt(Date.now()) * 1_000_000n);
let venue: Venue;
beforeAll(async () => {
  venue = await quietVenue({ seed: 3, clock, oracleKeys: [oracleKey.publicKey] });
});
afterAll(() => venue.close());

const statuses = (r: { body: any }) => r.body.response.data.statuses as any[];

describe('local venue: state hardening over HTTP', () => {
  const setMark = (symbol: string, price: number, timestamp = clock.nowNs()) =>
    new Trader(venue, oracleKey).send({ type: 'oracle', prices: [{ timestamp, symbol, price }] });

  it('an oracle price of 1e308, a timestamp of 2^64−1 or a move beyond the band gets 400 and changes nothing; the symbol still takes prices', async () => {
    expect(Object.keys(statuses(await setMark('BTC-USD', 50_000))[0])).toEqual(['oracle']);
    const lp = new Trader(venue);
    const t = new Trader(venue);
    await lp.faucet(1_000_000);
    await t.faucet(10_000);
    await lp.orders(lp.limit('BTC-USD', false, 50_000, 1));
    expect(Object.keys(statuses(await t.orders(t.market('BTC-USD', true, 0.5)))[0])).toEqual(['filled']);
    const before = { state: venue.engine.marketState('BTC-USD'), audit: venue.engine.audit(), history: await t.query('orderHistory') };
    const bad: [number, bigint | undefined, string][] = [
      [1e308, undefined, 'prices[0].price'],
      [150_000, undefined, 'prices[0].price'],
      [51_000, (1n << 64n) - 1n, 'prices[0].timestamp'],
      [51_000, clock.nowNs() - 3_600_000_000_000n, 'prices[0].timestamp'],
    ];
    for (const [price, ts, field] of bad) {
      const r = await setMark('BTC-USD', price, ts);
      expect(r.status, `${price} ${ts}`).toBe(400);
      expect(r.body.status).toBe('error');
      expect(r.body.error.message).toContain(field);
    }
    expect({ state: venue.engine.marketState('BTC-USD'), audit: venue.engine.audit(), history: await t.query('orderHistory') }).toEqual(before);
    clock.advanceMs(1000);
    expect(Object.keys(statuses(await setMark('BTC-USD', 51_000))[0])).toEqual(['oracle']);
    expect(venue.engine.marketState('BTC-USD')!.oraclePrice).toBe(51_000);
  });

  it('an order for an unlisted symbol is pushed on the stream and kept in orderHistory under that symbol', async () => {
    const t = new Trader(venue);
    await t.faucet(10_000);
    const ws = await WsClient.open(venue.wsUrl);
    try {
      ws.send({ method: 'subscribe', subscription: [{ type: 'account', user: [t.account] }] });
      await ws.until((m) => m.type === 'account' && m.data.type === 'accountSnapshot');
      const r = await t.orders(t.limit('DOGE-USD', true, 1, 100));
      const oid = r.orderIds[0]!;
      expect(statuses(r)[0]).toEqual({ rejectedInvalid: { oid, reason: 'unknown symbol' } });
      const pushed = await ws.until((m) => m.data?.type === 'orderUpdate' && m.data.orderId === oid);
      expect(pushed.data).toMatchObject({ symbol: 'DOGE-USD', status: 'rejectedInvalid' });
      const history = parseAccountResponse('orderHistory', await t.query('orderHistory'));
      expect(history.map((h) => h.orderHistory)).toEqual([
        expect.objectContaining({ orderId: oid, symbol: 'DOGE-USD', status: 'rejectedInvalid', reason: 'unknown symbol' }),
      ]);
    } finally {
      ws.close();
    }
  });

  it("a new signer's two requests that cross on the wire are both applied: the 100-nonce window tolerates reordering from the first nonce on (gaps-decided §3)", async () => {
    const t = new Trader(venue);
    const earlier = t.nonces.next();
    const later = t.nonces.next();
    expect(Object.keys(statuses(await t.send({ type: 'faucet', user: t.account, amount: 1_000 }, later))[0]!)).toEqual(['deposit']);
    expect(Object.keys(statuses(await t.send({ type: 'faucet', user: t.account, amount: 1_000 }, earlier))[0]!)).toEqual(['deposit']);
    const replay = await t.send({ type: 'faucet', user: t.account, amount: 1_000 }, earlier);
    expect(replay.body).toMatchObject({ status: 'error', response: { data: { statuses: [{ error: { message: 'nonce already used' } }] } } });
    expect(venue.engine.marginSummary(t.account).totalBalance).toBe(2_000);
  });
});
