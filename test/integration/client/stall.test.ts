import { afterEach, describe, expect, it } from 'vitest';
import { readiness } from '../../../src/app/daemon/control.js';
import type { DaemonAccount } from '../../../src/app/daemon/accounts.js';
import { startTrading, type TradingSession } from '../../../src/app/trading.js';
import { connectVenue, type LiveVenue } from '../../../src/client/venue.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { MemoryNonceStore } from '../../../src/protocol/nonce.js';
import { loadStrategies } from '../../../src/strategy/loader.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { StallingProxy } from '../../support/stalling-proxy.js';
import { until } from '../../support/until.js';

let venue: Venue | undefined;
let proxy: StallingProxy | undefined;
let session: TradingSession<LiveVenue> | undefined;

afterEach(async () => {
  proxy?.resume();
  await session?.stop({ deadlineMs: 5_000 });
  session = undefined;
  await proxy?.close();
  await venue?.close();
});

describe('a silent stream stall', () => {
  it('pulls the quotes and turns readiness off within the bound; quoting and readiness return when data flows again', async () => {
    venue = await startVenue({ port: 0, seed: 9, flowIntervalMs: 50 });
    for (let i = 0; i < 5; i++) venue.step();
    proxy = await StallingProxy.start(Number(new URL(venue.url).port));
    const key = Keypair.generate();
    venue.engine.faucet(key.publicKey, 100_000);
    const strategies = await loadStrategies([
      { name: 'mm', module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.001, maxPosition: 0.01, halfSpreadBps: 20, minIntervalMs: 50 } },
    ]);
    const wsUrl = venue.wsUrl.replace(/:\d+\//, `:${proxy.port}/`);
    const live = connectVenue({ url: venue.url, wsUrl, dialect: 'v1', network: 'mainnet', staleAfterMs: 1_000 });
    session = await startTrading({ venue: live, dialect: 'v1', network: 'mainnet', key, nonceStore: new MemoryNonceStore(), strategies });
    const entry = [{ account: { name: 'a' } as DaemonAccount, session }];
    const ready = () => readiness(true, entry, { nowMs: Date.now(), deniedNotReadyMs: 0 });
    const open = () => venue!.engine.openOrders(key.publicKey);
    await until(() => open().some((o) => o.isBuy) && open().some((o) => !o.isBuy) && ready().ready, 'a bid and an ask, ready', 10_000);

    proxy.stall();
    const stalledAt = Date.now();
    await until(() => !ready().ready && open().length === 0, 'readiness off and quotes pulled', 5_000);
    expect(Date.now() - stalledAt).toBeLessThan(2_500);
    expect(ready().reasons.join('\n')).toMatch(/stale stream/);
    expect(session.venue.pool.connections[0]!.state).toBe('open');
    for (let i = 0; i < 5; i++) venue.step();
    await new Promise((r) => setTimeout(r, 300));
    expect(open()).toEqual([]);

    proxy.resume();
    await until(() => ready().ready && open().some((o) => o.isBuy) && open().some((o) => !o.isBuy), 'ready and quoting again', 10_000);
  }, 40_000);
});
