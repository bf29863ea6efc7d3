// The built-in grid against the local venue: it rests its grid around the mid, the venue's flow fills a level, the
// grid refills the opposite side one level away, its position stays within levels × size, and stopping leaves no order.
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../src/core/types.js';
import { roundToTick } from '../../../src/strategy/api.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';
import { tradeOnLocalVenue, venueMid } from './local-trading.js';

const closers = cleanups();
const SIZE = 0.001;
const LEVELS = 9;

describe.each(DIALECTS)('grid on the local venue (%s)', (dialect) => {
  it('places the grid, refills the opposite side after a fill, stays within its size and leaves no orders after stop', async () => {
    let step = 0;
    const t = await tradeOnLocalVenue(
      closers,
      {
        module: 'grid',
        params: (venue) => {
          const mid = venueMid(venue, 'BTC-USD');
          // Levels 2 bps apart around the mid: the venue's random walk crosses a few within seconds.
          step = roundToTick(mid * 0.0002, 0.1);
          const lowerPrice = roundToTick(mid - 4 * step, 0.1);
          return { symbol: 'BTC-USD', lowerPrice, upperPrice: lowerPrice + 8 * step, levels: LEVELS, size: SIZE, postOnly: false };
        },
      },
      { dialect },
    );
    await until(() => t.session.execution.openOrders().length >= LEVELS - 1, 'the grid resting', 10_000);
    // A whole level filled (a partial fill of one lot would refill less than the minimum notional).
    await until(() => t.events.some((e) => e.status === 'filled'), 'a grid order filled', 30_000);
    const at = t.events.findIndex((e) => e.status === 'filled');
    const fill = t.events[at]!;
    const counter = fill.side === 'buy' ? 'sell' : 'buy';
    const counterPrice = fill.side === 'buy' ? fill.price + step : fill.price - step;
    await until(
      () => t.events.slice(at + 1).some((e) => e.status === 'pendingNew' && e.side === counter && Math.abs(e.price - counterPrice) < 0.05),
      `a ${counter} sent one level from the fill at ${fill.price}`,
      10_000,
    );
    expect(t.metrics.read('grid_fills_total').reduce((n, s) => n + s.value, 0)).toBeGreaterThan(0);
    expect(t.session.host.reportOf('grid')).toMatchObject({ inBand: true, running: true });
    expect(t.maxAbsPosition.get('BTC-USD') ?? 0).toBeLessThanOrEqual(LEVELS * SIZE + 1e-12);
    await t.stopLeavingNoOrders();
  });
});
