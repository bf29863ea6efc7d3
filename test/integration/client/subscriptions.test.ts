import type { Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/core/logger.js';
import { WsPool } from '../../../src/client/ws-pool.js';
import { Keypair } from '../../../src/protocol/keys.js';
import type { StreamMessage } from '../../../src/protocol/v1/stream.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { until } from '../../support/until.js';

let venue: Venue | undefined;
let pool: WsPool | undefined;
const subs: Subscription[] = [];

afterEach(async () => {
  for (const s of subs.splice(0)) s.unsubscribe();
  pool?.close();
  await venue?.close();
});

function recordingLogger(): Logger & { errors: { fields: object; message: string }[] } {
  const errors: { fields: object; message: string }[] = [];
  return { errors, warn: () => undefined, info: () => undefined, error: (fields, message) => errors.push({ fields, message }) };
}

describe('subscriptions against the local venue', () => {
  it('a batched account subscription (user: [a, b]) delivers both accounts', async () => {
    venue = await startVenue({ port: 0 });
    pool = new WsPool({ url: venue.wsUrl });
    const a = Keypair.generate().publicKey;
    const b = Keypair.generate().publicKey;
    const topics = new Set<string>();
    subs.push(pool.topic$({ type: 'account', user: [a, b] }).subscribe((m) => 'topic' in m && topics.add(m.topic)));
    await until(() => topics.size === 2, 'both account snapshots');
    expect([...topics].sort()).toEqual([`account.${a}`, `account.${b}`].sort());
  });

  it('a refused topic errors on its own observable (logged, counted) while the topics sent with it keep flowing', async () => {
    venue = await startVenue({ port: 0, flowIntervalMs: 20 });
    const logger = recordingLogger();
    pool = new WsPool({ url: venue.wsUrl, logger });
    const user = Keypair.generate().publicKey;
    const account: StreamMessage[] = [];
    const tickers: StreamMessage[] = [];
    let refused: (Error & { code?: string }) | undefined;
    // Subscribed in one tick, before the socket is open: they travel in one subscribe message.
    subs.push(pool.topic$({ type: 'ticker', symbol: 'NOPE-USD' }).subscribe({ error: (e: Error) => (refused = e) }));
    subs.push(pool.topic$({ type: 'account', user }).subscribe((m) => account.push(m)));
    subs.push(pool.topic$({ type: 'ticker', symbol: 'BTC-USD' }).subscribe((m) => tickers.push(m)));
    await until(() => refused !== undefined && account.length >= 1 && tickers.length >= 2, 'refusal, account snapshot and tickers');
    expect(refused!.code).toBe('SUBSCRIPTION_REFUSED');
    expect(refused!.message).toContain('ticker.NOPE-USD');
    expect(pool.stats.refusedTopics).toBe(1);
    expect(logger.errors).toHaveLength(1);
    expect(logger.errors[0]!.fields).toMatchObject({ topic: 'ticker.NOPE-USD' });
  });
});
