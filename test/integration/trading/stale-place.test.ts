// A place (or the place of a replace) in a market whose stream data is stale is refused like any risk denial: the
// strategy gets a rejectedRiskLimit order event with reason STREAM_STALE, and the denial is counted.
import { describe, expect, it } from 'vitest';
import { map, Subject } from 'rxjs';
import { connectVenue } from '../../../src/client/venue.js';
import { startTrading, type TradingSession } from '../../../src/app/trading.js';
import type { OrderEvent } from '../../../src/core/intent.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { MemoryNonceStore } from '../../../src/protocol/nonce.js';
import { defineStrategy, schema, type Intent, type StrategyDefinition } from '../../../src/strategy/api.js';
import type { LoadedStrategy } from '../../../src/strategy/loader.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { StallingProxy } from '../../support/stalling-proxy.js';
import { until } from '../../support/until.js';

const closers = cleanups();

/** A strategy that sends each intent `next` builds from the price pushed into `prices`, and records its order events. */
function placer(prices: Subject<number>, next: (price: number, nowMs: number) => Intent, events: OrderEvent[]): LoadedStrategy {
  const definition = defineStrategy({
    name: 'placer',
    params: schema.object({}),
    symbols: () => ['BTC-USD'],
    create: (ctx) => {
      ctx.account.orders$.subscribe((e) => events.push(e));
      return prices.pipe(map((price) => next(price, ctx.clock.nowMs())));
    },
  });
  return { name: 'placer', module: 'inline', file: 'inline', definition: definition as StrategyDefinition<unknown>, params: {}, symbols: ['BTC-USD'] };
}

const order = (price: number, clientTag: string) => ({
  symbol: 'BTC-USD',
  side: 'buy' as const,
  price,
  size: 0.001,
  tif: 'GTC' as const,
  reduceOnly: false,
  clientTag,
});

async function stalledSession(next: (price: number, nowMs: number) => Intent) {
  const venue: Venue = await startVenue({ port: 0, seed: 9, flowIntervalMs: 50 });
  closers.push(() => venue.close());
  for (let i = 0; i < 5; i++) venue.step();
  const proxy = await StallingProxy.start(Number(new URL(venue.url).port));
  closers.push(() => proxy.close());
  const key = Keypair.generate();
  venue.engine.faucet(key.publicKey, 100_000);
  const prices = new Subject<number>();
  const events: OrderEvent[] = [];
  const wsUrl = venue.wsUrl.replace(/:\d+\//, `:${proxy.port}/`);
  const session: TradingSession = await startTrading({
    venue: connectVenue({ url: venue.url, wsUrl, dialect: 'v1', network: 'mainnet', staleAfterMs: 1_000 }),
    dialect: 'v1',
    network: 'mainnet',
    key,
    nonceStore: new MemoryNonceStore(),
    strategies: [placer(prices, next, events)],
  });
  closers.push(() => session.stop({ deadlineMs: 5_000 }));
  closers.push(() => proxy.resume());
  const price = Math.floor(venue.engine.book('BTC-USD')!.bids[0]!.px * 0.99);
  const open = () => venue.engine.openOrders(key.publicKey);
  return { venue, proxy, session, prices, events, price, open };
}

describe('a place in a market with stale stream data', () => {
  it('is refused: the strategy gets rejectedRiskLimit with reason STREAM_STALE; the denial is counted; nothing is placed', async () => {
    const t = await stalledSession((price, nowMs) => ({ kind: 'place', order: order(price, `p${price}`), dataTimeMs: nowMs, dataVersion: 0 }));
    t.prices.next(t.price);
    await until(() => t.open().length === 1, 'the first order resting', 10_000);

    t.proxy.stall();
    await until(() => t.session.staleStreams().size > 0 && t.open().length === 0, 'stale and pulled', 5_000);
    t.prices.next(t.price - 1);
    await until(() => t.events.some((e) => e.price === t.price - 1 && e.status === 'rejectedRiskLimit'), 'a rejection event for the stale place', 3_000);
    const refused = t.events.find((e) => e.price === t.price - 1 && e.status === 'rejectedRiskLimit')!;
    expect(refused.reason).toMatch(/STREAM_STALE/);
    expect(t.session.denials.of('placer').byReason.STREAM_STALE).toBe(1);
    expect(t.open()).toEqual([]);
  }, 40_000);

  it('a replace: its cancel goes, its place is refused STREAM_STALE', async () => {
    let first = true;
    const t = await stalledSession((price, nowMs) => {
      if (first) {
        first = false;
        return { kind: 'place', order: order(price, 'a'), dataTimeMs: nowMs, dataVersion: 0 };
      }
      return { kind: 'replace', ref: { clientTag: 'a' }, order: order(price, 'b'), dataTimeMs: nowMs, dataVersion: 0 };
    });
    t.prices.next(t.price);
    await until(() => t.open().length === 1, 'the first order resting', 10_000);
    t.proxy.stall();
    await until(() => t.session.staleStreams().size > 0, 'stale', 5_000);
    t.prices.next(t.price - 1);
    await until(() => t.events.some((e) => e.clientTag === 'b' && e.status === 'rejectedRiskLimit'), 'the replacement refused', 3_000);
    expect(t.events.find((e) => e.clientTag === 'b')!.reason).toMatch(/STREAM_STALE/);
    await until(() => t.open().length === 0, 'the replaced order cancelled', 5_000);
  }, 40_000);
});
