import { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTrading } from '../../../src/app/trading.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { MemoryNonceStore } from '../../../src/protocol/nonce.js';
import { loadStrategies } from '../../../src/strategy/loader.js';
import { MemoryVenue } from '../../support/memory-venue.js';
import { until } from '../../support/until.js';

const SYMBOL = 'BTC-USD';
const RULES = [{ symbol: SYMBOL, tickSizeUsd: 0.5, lotSizeBase: 0.001, minNotionalUsd: 0, maxLeverage: 20 }];

/** Counts connection attempts of every socket of the process while the test runs (the real connect still runs). */
let connects = 0;
const realConnect = Socket.prototype.connect;
beforeEach(() => {
  connects = 0;
  Socket.prototype.connect = function (this: Socket, ...args: unknown[]) {
    connects++;
    return (realConnect as (...a: unknown[]) => Socket).apply(this, args);
  } as typeof realConnect;
});
afterEach(() => {
  Socket.prototype.connect = realConnect;
});

const tcpHandles = () => process.getActiveResourcesInfo().filter((r) => /TCP|Pipe|UDP/.test(r));

describe('the venue port is enough to trade', () => {
  it('the built-in market maker quotes, gets filled and stops through an in-memory venue, with no socket opened', async () => {
    const handlesBefore = tcpHandles().length;
    const venue = new MemoryVenue(RULES);
    venue.publishBook(SYMBOL, [[99_990, 5]], [[100_010, 5]]);
    const key = Keypair.generate();
    const strategies = await loadStrategies([
      { name: 'mm', module: 'market-maker', params: { symbol: SYMBOL, size: 0.005, maxPosition: 1, halfSpreadBps: 5, minIntervalMs: 0 } },
    ]);
    const session = await startTrading({
      venue,
      dialect: 'v1',
      network: 'mainnet',
      key,
      nonceStore: new MemoryNonceStore(),
      strategies,
      signing: 'deterministic',
    });

    await until(async () => (await venue.account.openOrders(key.publicKey)).length === 2, 'a bid and an ask resting');
    const [bid] = (await venue.account.openOrders(key.publicKey)).filter((o) => o.side === 'buy');
    expect(bid!.price).toBeLessThan(100_000);

    venue.trade(SYMBOL, bid!.price, 0.005, 'sell');
    await until(() => session.accountState()?.positions.get(SYMBOL)?.size === 0.005, 'the fill reached the account state');
    expect(session.execution.order(bid!.orderId)?.status).toBe('filled');

    const report = await session.stop({ deadlineMs: 2_000 });
    expect(report.timedOut).toBe(false);
    expect(report.open).toEqual([]);
    expect(await venue.account.openOrders(key.publicKey)).toEqual([]);
    expect(venue.received.length).toBeGreaterThanOrEqual(2);
    expect(connects).toBe(0);
    expect(tcpHandles().length).toBe(handlesBefore);
  });
});
