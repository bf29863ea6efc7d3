import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillFromRow } from '../../../src/account/reconcile.js';
import { parseAccountResponse } from '../../../src/protocol/v1/account.js';
import type { Venue } from '../../../src/venue-sim/server/index.js';
import { quietVenue, Trader, WsClient } from '../../integration/venue/harness.js';

let venue: Venue;
beforeAll(async () => {
  venue = await quietVenue({ seed: 11 });
});
afterAll(() => venue.close());

describe('fillFromRow', () => {
  it("gives each party of a fills row its own side (the row's isBuy is the taker's), as the account stream does", async () => {
    const maker = new Trader(venue);
    const taker = new Trader(venue);
    await maker.faucet(100_000);
    await taker.faucet(100_000);
    const ws = await WsClient.open(venue.wsUrl);
    ws.send({ method: 'subscribe', subscription: [{ type: 'account', user: maker.account }] });
    await ws.until((m) => m.data?.type === 'accountSnapshot');
    await maker.orders(maker.limit('ETH-USD', false, 3000, 1));
    await taker.orders(taker.limit('ETH-USD', true, 3000, 0.4, 'IOC'));
    const streamed = await ws.until((m) => m.data?.type === 'fill');
    ws.close();

    const [row] = parseAccountResponse('fills', await maker.query('fills')).map((r) => r.fills);
    expect(row).toMatchObject({ maker: maker.account, taker: taker.account, isBuy: true, amount: 0.4 });
    const makerView = fillFromRow(maker.account, row!);
    expect(makerView).toMatchObject({ isBuy: false, maker: true, size: 0.4, price: 3000 });
    expect(makerView.isBuy).toBe(streamed.data.isBuy);
    expect(fillFromRow(taker.account, row!)).toMatchObject({ isBuy: true, maker: false });
  });
});
