// A request refused with HTTP 429 for longer than the client's rateLimitMaxWaitMs gives up: back-pressure, counted as
// submits_total{outcome="rate_limited"}, never a venue rejection toward the repeated-rejections halt.
import { afterEach, describe, expect, it } from 'vitest';
import { connectVenue, type LiveVenue } from '../../../src/client/venue.js';
import { startTrading, type TradingSession } from '../../../src/app/trading.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { MemoryNonceStore } from '../../../src/protocol/nonce.js';
import { loadStrategies } from '../../../src/strategy/loader.js';
import { createMetrics } from '../../../src/telemetry/index.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { sample } from '../../../bench/support/daemon-process.js';
import { until } from '../../support/until.js';

let venue: Venue | undefined;
let session: TradingSession<LiveVenue> | undefined;

afterEach(async () => {
  await session?.stop({ deadlineMs: 5_000 });
  session = undefined;
  await venue?.close();
});

describe('rate limiting never halts trading', () => {
  it('batches given up after rateLimitMaxWaitMs of 429s are counted as rate_limited and do not count toward the halt', async () => {
    // The venue answers 429 with Retry-After: 1 s, over the client's 200 ms: each refused batch gives up at once.
    venue = await startVenue({ port: 0, seed: 5, flowIntervalMs: 20, rateLimit: { perSecond: 3, burst: 30 } });
    for (let i = 0; i < 5; i++) venue.step();
    const key = Keypair.generate();
    venue.engine.faucet(key.publicKey, 100_000);
    const strategies = await loadStrategies([
      { name: 'mm', module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.001, maxPosition: 0.01, halfSpreadBps: 5, minIntervalMs: 50 } },
    ]);
    const metrics = createMetrics();
    session = await startTrading({
      venue: connectVenue({ url: venue.url, wsUrl: venue.wsUrl, dialect: 'v1', network: 'mainnet', http: { rateLimitMaxWaitMs: 200 } }),
      dialect: 'v1',
      network: 'mainnet',
      key,
      nonceStore: new MemoryNonceStore(),
      strategies,
      metrics,
      risk: { repeatedRejects: { count: 3, windowMs: 60_000 } },
    });
    await until(() => session!.venue.http.stats.outcomes.rejected >= 6, 'six batches given up on 429', 30_000);
    expect(session.risk.state).toBe('ACTIVE');
    const text = await metrics.text();
    expect(sample(text, 'perpbot_submits_total', { outcome: 'rate_limited' })).toBeGreaterThanOrEqual(6);
    expect(sample(text, 'perpbot_submits_total', { outcome: 'rejected' })).toBe(0);
  }, 60_000);
});
