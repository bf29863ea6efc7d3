// The synthetic market flow's book over real HTTP (/l2book): the default is deep enough for a paper
// account (at least 250 000 USD a side within 50 bps on BTC-USD), and depth is configurable.
// Invariant: rounds are driven by venue.step(), never by waiting for the flow's timer.

import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { startVenue, type Venue, type VenueOptions } from '../../../src/venue-sim/server/index.js';
import { http, Trader } from './harness.js';

interface Level {
  px: number;
  sz: number;
  n: number;
}

/** USD resting on each side within `bps` of the mid, from GET /l2book. */
async function depthWithin(venue: Venue, symbol: string, bps: number): Promise<{ bid: number; ask: number; bestBidSz: number }> {
  const r = await http(`${venue.url}/l2book?symbol=${symbol}`);
  expect(r.status).toBe(200);
  const [bids, asks] = r.body.levels as [Level[], Level[]];
  const mid = (bids[0]!.px + asks[0]!.px) / 2;
  const sum = (levels: Level[]) => levels.filter((l) => Math.abs(l.px - mid) <= (mid * bps) / 10_000).reduce((s, l) => s + l.px * l.sz, 0);
  return { bid: sum(bids), ask: sum(asks), bestBidSz: bids[0]!.sz };
}

let venue: Venue | undefined;
afterEach(async () => {
  await venue?.close();
  venue = undefined;
});

async function steppedVenue(opts: VenueOptions, rounds: number): Promise<Venue> {
  venue = await startVenue({ clock: new ManualClock(BigInt(Date.now()) * 1_000_000n), ...opts });
  for (let i = 0; i < rounds; i++) venue.step();
  return venue;
}

describe('market flow depth', () => {
  it('the default flow holds at least 250 000 USD a side within 50 bps on BTC-USD, round after round', async () => {
    const v = await steppedVenue({}, 1);
    for (let round = 0; round < 40; round++) {
      const d = await depthWithin(v, 'BTC-USD', 50);
      expect(d.bid, `round ${round}`).toBeGreaterThanOrEqual(250_000);
      expect(d.ask, `round ${round}`).toBeGreaterThanOrEqual(250_000);
      v.step();
    }
    const eth = await depthWithin(v, 'ETH-USD', 50);
    expect(Math.min(eth.bid, eth.ask)).toBeGreaterThanOrEqual(250_000);
    // a paper account's market orders fill completely
    const t = new Trader(v);
    await t.faucet(100_000);
    for (const sz of [0.01, 2]) {
      const r = await t.orders(t.market('BTC-USD', true, sz));
      expect(r.body.response.data.statuses[0]).toEqual({ filled: expect.objectContaining({ totalSz: sz }) });
    }
  });

  it('depthUsd and levels set the depth and the order sizes', async () => {
    const v = await steppedVenue({ flow: { depthUsd: 20_000, levels: 4, levelSpacingBps: 5 } }, 1);
    const d = await depthWithin(v, 'BTC-USD', 50);
    for (const side of [d.bid, d.ask]) {
      expect(side).toBeGreaterThan(20_000 / 3);
      expect(side).toBeLessThan(20_000 * 3);
    }
    const r = await http(`${v.url}/l2book?symbol=BTC-USD`);
    const [bids] = r.body.levels as [Level[]];
    expect(bids.length).toBeLessThanOrEqual(2 * 4);
    expect(bids.at(-1)!.px).toBeGreaterThan(bids[0]!.px * (1 - 40 / 10_000));
  });
});
