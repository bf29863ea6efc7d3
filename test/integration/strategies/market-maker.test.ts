// The built-in market maker (volatility, requote threshold, stale and jump guards on) against the local venue: it
// quotes several levels, is filled by the venue's takers, requotes after fills, stays within maxPosition (hard bound: the
// risk limit on the worst-case position, open orders included, set to it here) and leaves no order behind when stopped.
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../src/core/types.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';
import { tradeOnLocalVenue } from './local-trading.js';

const closers = cleanups();
const MAX_POSITION = 0.003;

describe.each(DIALECTS)('market-maker on the local venue (%s)', (dialect) => {
  it('quotes, reacts to fills, respects maxPosition and leaves no orders after stop', async () => {
    const t = await tradeOnLocalVenue(
      closers,
      {
        module: 'market-maker',
        params: {
          symbol: 'BTC-USD',
          size: 0.001,
          halfSpreadBps: 1,
          levels: 2,
          maxPosition: MAX_POSITION,
          riskAversion: 0.002,
          requoteTicks: 2,
          maxDataAgeMs: 2_000,
          jumpBps: 30,
          minIntervalMs: 50,
        },
      },
      // A fill racing a requote is known only after the quotes were sized: risk's worst case (position + open orders,
      // filled ones included until their fill is known) holds the position, here to 0.0035 BTC at about 97 000 USD.
      { risk: { maxPositionNotionalUsdBySymbol: { 'BTC-USD': 340 } }, dialect },
    );
    const placed = () => t.events.filter((e) => e.status === 'placed');
    await until(() => placed().some((e) => e.side === 'buy') && placed().some((e) => e.side === 'sell'), 'quotes on both sides', 10_000);
    await until(() => t.events.some((e) => e.filledSize > 0), 'a fill of a quote', 30_000);
    const firstFill = t.events.findIndex((e) => e.filledSize > 0);
    await until(() => placed().length > 0 && t.events.slice(firstFill + 1).some((e) => e.status === 'placed'), 'a quote placed after the fill', 10_000);
    expect(t.metrics.value('quote_sets_total')).toBeGreaterThan(1);
    expect(t.metrics.value('volatility_bps')).toBeGreaterThan(0);
    expect(t.maxAbsPosition.get('BTC-USD') ?? 0).toBeLessThanOrEqual(MAX_POSITION + 1e-12);
    await t.stopLeavingNoOrders();
  });
});
