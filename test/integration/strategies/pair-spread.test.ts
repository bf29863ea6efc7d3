// The built-in two-market spread against the local venue (BTC-USD and ETH-USD, independent random walks): once its
// window is full it takes opposite positions in the two legs when the spread leaves its band, trades them back as it
// reverts, keeps each leg within its maxPosition, and stopping leaves no order behind.
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../src/core/types.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';
import { tradeOnLocalVenue } from './local-trading.js';

const closers = cleanups();
const A = 0.001;
const B = 0.03;

describe.each(DIALECTS)('pair-spread on the local venue (%s)', (dialect) => {
  it('trades both legs in opposite directions, within each leg limit, and leaves no orders after stop', async () => {
    const t = await tradeOnLocalVenue(
      closers,
      {
        module: 'pair-spread',
        params: {
          legA: { symbol: 'BTC-USD', size: A },
          legB: { symbol: 'ETH-USD', size: B },
          sampleMs: 50,
          window: 10,
          entryZ: 1,
          exitZ: 0.2,
        },
      },
      { dialect },
    );
    const signs = () => [Math.sign(t.venuePosition('BTC-USD')), Math.sign(t.venuePosition('ETH-USD'))];
    await until(() => signs()[0] !== 0 && signs()[0] === -signs()[1]!, 'opposite positions in the two legs', 20_000);
    const entered = signs()[0];
    await until(() => signs()[0] !== entered, 'the position of leg A traded back or turned', 20_000);
    expect(t.metrics.value('pair_orders_total', { leg: 'a' })).toBeGreaterThanOrEqual(2);
    expect(t.maxAbsPosition.get('BTC-USD') ?? 0).toBeLessThanOrEqual(A + 1e-12);
    expect(t.maxAbsPosition.get('ETH-USD') ?? 0).toBeLessThanOrEqual(B + 1e-12);
    await t.stopLeavingNoOrders();
  });
});
