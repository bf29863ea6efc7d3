// The built-in funding capture against the local venue: with a positive funding rate (the venue's interest term) it
// shorts up to its size, parks a reduce-only stop at the venue, exits reduce-only when the rate falls to 0 (cancelling
// the stop), and stops out when the mark crosses its stop; its position never exceeds its size and stopping leaves no
// order behind.
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../src/core/types.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';
import { tradeOnLocalVenue, type LocalTrading } from './local-trading.js';

const closers = cleanups();
const SIZE = 0.002;
// 0.008 per 8 h is 0.001 per one-hour funding period; a premium clamp of 1 makes the rate exactly that.
const FUNDING = { engine: { fundingInterestPer8h: 0.008, fundingPremiumClamp: 1 } };

/** The venue's funding interest, changed while it runs (the engine reads it at each rate; it has no setter). */
function setInterest(t: LocalTrading, perEightHours: number): void {
  (t.venue.engine as unknown as { funding: { interestPer8h: number } }).funding.interestPer8h = perEightHours;
}

describe.each(DIALECTS)('funding-capture on the local venue (%s)', (dialect) => {
  it('holds the short that receives a positive rate and exits reduce-only when the rate falls to 0', async () => {
    const t = await tradeOnLocalVenue(
      closers,
      { module: 'funding-capture', params: { symbol: 'BTC-USD', size: SIZE, minFundingRate: 0.0005, stopLossBps: 1_000 } },
      { venue: FUNDING, dialect },
    );
    await until(() => Math.abs(t.venuePosition('BTC-USD') + SIZE) < 1e-12 && t.events.some((e) => e.filledSize > 0), 'the short of the strategy size', 15_000);
    expect(t.events.filter((e) => e.filledSize > 0).every((e) => e.side === 'sell')).toBe(true);
    await until(() => t.events.some((e) => e.clientTag === 'funding-stop' && e.status === 'untriggered'), 'the stop parked at the venue', 10_000);
    const parked = t.venue.engine.openOrders(t.key.publicKey);
    expect(parked.map((o) => [o.isBuy, o.originalSize, o.reduceOnly])).toEqual([[true, SIZE, true]]);
    setInterest(t, 0);
    const exited = () => t.events.some((e) => e.side === 'buy' && e.filledSize > 0);
    await until(() => exited() && t.venuePosition('BTC-USD') === 0, 'the exit to flat', 15_000);
    await until(() => t.venue.engine.openOrders(t.key.publicKey).length === 0, 'the stop cancelled once flat', 10_000);
    expect(t.metrics.value('funding_exits_total', { reason: 'rate' })).toBeGreaterThan(0);
    expect(t.maxAbsPosition.get('BTC-USD') ?? 0).toBeLessThanOrEqual(SIZE + 1e-12);
    // The rate stays at 0: nothing is entered again.
    await new Promise((r) => setTimeout(r, 500));
    expect(t.venuePosition('BTC-USD')).toBe(0);
    await t.stopLeavingNoOrders();
  });

  it('stops out when the mark crosses the stop, then waits cooldownMs before entering again', async () => {
    const t = await tradeOnLocalVenue(
      closers,
      // A stop 1 bp from the entry: the venue's random walk crosses it within moments.
      { module: 'funding-capture', params: { symbol: 'BTC-USD', size: SIZE, minFundingRate: 0.0005, stopLossBps: 1, cooldownMs: 60_000 } },
      { venue: FUNDING, dialect },
    );
    await until(() => (t.metrics.value('funding_exits_total', { reason: 'stop' }) ?? 0) > 0, 'a stop-out', 20_000);
    await until(() => t.venuePosition('BTC-USD') === 0, 'flat after the stop', 10_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(t.venuePosition('BTC-USD')).toBe(0);
    expect(t.metrics.value('funding_entries_total')).toBe(1);
    expect(t.session.host.reportOf('funding-capture')).toMatchObject({ coolingDown: true, position: 0 });
    await t.stopLeavingNoOrders();
  });
});
