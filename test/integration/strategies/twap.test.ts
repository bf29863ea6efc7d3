// The built-in TWAP executor against the local venue: it works a parent buy as IOC children over the duration, each
// filled by the venue (20 bp of slippage: the flow moves the book every 50 ms, and a child priced at the touch that
// arrives after a move is cancelled unfilled, which the last slice cannot catch up), reports progress and average price in /status and metrics, never fills more than the parent,
// and completes with no order left behind.
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../src/core/types.js';
import type { DaemonAccount } from '../../../src/app/daemon/accounts.js';
import { statusOf } from '../../../src/app/daemon/control.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';
import { tradeOnLocalVenue } from './local-trading.js';

const closers = cleanups();
const SIZE = 0.004;

describe.each(DIALECTS)('twap on the local venue (%s)', (dialect) => {
  it('works the parent as children over the duration, reports progress and average price, and completes', async () => {
    const startedMs = Date.now();
    const t = await tradeOnLocalVenue(
      closers,
      {
        module: 'twap',
        params: { symbol: 'BTC-USD', side: 'buy', size: SIZE, durationMs: 2_000, slices: 4, slippageBps: 20 },
      },
      { dialect },
    );
    await until(() => t.session.host.status('twap')?.state === 'stopped', 'the executor completing', 15_000);
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(1_400);
    const children = new Set(t.events.map((e) => e.clientTag));
    // A slice that comes before the first book sends nothing; the next one catches up.
    expect(children.size).toBeGreaterThanOrEqual(2);
    expect(t.session.host.status('twap')?.reason).toBe('completed');
    expect(t.venuePosition('BTC-USD')).toBeCloseTo(SIZE, 12);
    // The account stream's position update may come a moment after the fill that completed the parent.
    await until(() => (t.maxAbsPosition.get('BTC-USD') ?? 0) >= SIZE - 1e-12, 'the account state holding the whole parent', 5_000);
    expect(t.maxAbsPosition.get('BTC-USD')).toBeCloseTo(SIZE, 12);
    const fills = t.venue.engine.fills(t.key.publicKey);
    const avg = fills.reduce((n, f) => n + f.price * f.amount, 0) / fills.reduce((n, f) => n + f.amount, 0);
    const account = { name: 'main', account: t.key.publicKey, key: t.key } as DaemonAccount;
    const status = statusOf([{ account, session: t.session }], 'local', t.venue.url) as {
      accounts: Array<{ strategies: Array<{ name: string; report: Record<string, unknown> }> }>;
    };
    const report = status.accounts[0]!.strategies.find((s) => s.name === 'twap')!.report;
    expect(report).toMatchObject({ state: 'filled', side: 'buy', size: SIZE, progress: 1, children: children.size });
    expect(report.avgPriceUsd as number).toBeCloseTo(avg, 6);
    expect(t.metrics.value('twap_progress_ratio')).toBe(1);
    expect(t.metrics.value('twap_avg_price_usd')).toBeCloseTo(avg, 6);
    await t.stopLeavingNoOrders();
  });
});
