import { describe, expect, it } from 'vitest';
import type { AccountUpdate } from '../../../src/core/account-data.js';
import { queueModel } from '../../../src/backtest/models.js';
import { SimVenue } from '../../../src/backtest/sim-venue.js';
import { VirtualTime } from '../../../src/backtest/virtual-time.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { type OrderItem, v1OrderActions } from '../../../src/protocol/orders.js';
import { signRequest } from '../../../src/protocol/sign.js';
import { v1Codec } from '../../../src/protocol/v1/codec.js';
import type { SubmitOutcome } from '../../../src/venue/port.js';

const SYMBOL = 'BTC-USD';
const MS = 1_000_000;
const T0 = 1_700_000_000_000_000_000n;

function setup() {
  const key = Keypair.fromBytes(new Uint8Array(32).fill(7));
  const time = new VirtualTime(T0);
  const venue = new SimVenue({
    time,
    account: key.publicKey,
    rules: [{ symbol: SYMBOL, tickSizeUsd: 0.5, lotSizeBase: 0.001, minNotionalUsd: 0, maxLeverage: 20 }],
    markets: [
      {
        symbol: SYMBOL,
        tickSize: 0.5,
        lotSize: 0.001,
        minNotionalUsd: 0,
        maxLeverage: 20,
        makerFeeRate: 0,
        takerFeeRate: 0,
        initialMarginFraction: 0.05,
        maintenanceMarginFraction: 0.025,
        fundingIntervalNs: 3_600_000_000_000n,
      },
    ],
    collateralUsd: 1_000_000,
    queue: queueModel({ model: 'riskAverse' }),
    feed: () => 0,
    entry: () => 10 * MS,
    response: () => 5 * MS,
  });
  const seen: { atMs: number; update: AccountUpdate }[] = [];
  venue.account.updates$(key.publicKey).subscribe((update) => seen.push({ atMs: time.nowRelNs / MS, update }));
  let nonce = T0;
  const send = (items: OrderItem[]) =>
    venue.submitter.submit(
      signRequest(v1Codec, key, {
        actions: v1OrderActions(items),
        account: key.publicKey,
        signer: key.publicKey,
        nonce: ++nonce,
        network: 'mainnet',
        mode: 'raw',
      }),
    );
  const runTo = (ms: number) => {
    while (time.runNext(ms * MS) >= 0);
    time.advanceTo(ms * MS);
  };
  const replayAt = (ms: number, e: Parameters<SimVenue['replay']>[0]) => {
    runTo(ms);
    venue.replay(e, ms * MS);
  };
  return { venue, time, seen, send, runTo, replayAt };
}

describe('the simulated venue', () => {
  it('latency reorders: a cancel sent before a fill but arriving after it finds no order, and the fill is reported first', async () => {
    const s = setup();
    s.replayAt(0, {
      kind: 'book',
      recvNs: T0,
      book: {
        kind: 'snapshot',
        symbol: SYMBOL,
        bids: [{ price: 99.5, size: 5, orders: 1 }],
        asks: [{ price: 101, size: 5, orders: 1 }],
        venueTimeMs: 0,
        arrivalNs: 0n,
      },
    });
    s.runTo(1);
    const placed = s.send([{ kind: 'place', spec: { symbol: SYMBOL, side: 'buy', price: 100, size: 1, tif: 'GTC', reduceOnly: false }, cloid: undefined }]);
    s.runTo(11);
    expect(s.venue.exchange.openOrders()).toHaveLength(1);
    s.runTo(16);
    const placedOutcome = (await placed) as Extract<SubmitOutcome, { outcome: 'accepted' }>;
    const orderId = placedOutcome.items[0]!.kind === 'order' ? placedOutcome.items[0]!.fact.orderId : '';
    expect(placedOutcome.items[0]).toMatchObject({ kind: 'order', fact: { status: 'placed' } });

    s.runTo(20);
    const cancelled = s.send([{ kind: 'cancel', symbol: SYMBOL, orderId }]);
    s.replayAt(25, {
      kind: 'trade',
      recvNs: T0 + 25n * 1_000_000n,
      trade: { symbol: SYMBOL, price: 100, size: 1, takerSide: 'sell', timeMs: 0, maker: '', taker: '', liquidation: false },
    });
    s.runTo(40);
    const outcome = (await cancelled) as Extract<SubmitOutcome, { outcome: 'accepted' }>;
    expect(outcome.items).toEqual([{ kind: 'error', message: 'order not found' }]);
    const fill = s.seen.find((x) => x.update.kind === 'fill')!;
    expect(fill.atMs).toBe(30);
    expect(s.seen.filter((x) => x.update.kind === 'order').map((x) => [x.atMs, x.update.kind === 'order' && x.update.order.status])).toEqual([
      [16, 'placed'],
      [30, 'filled'],
    ]);
  });

  it('refuses a request it cannot decode as a v1 order action, whole', async () => {
    const s = setup();
    const outcome = await s.venue.submitter.submit({
      bodyText: '{"action":{"type":"order","orders":[]}}',
      signature: '',
      signer: '',
      nonce: 1n,
      encoded: undefined as never,
    });
    expect(outcome).toMatchObject({ outcome: 'rejected', httpStatus: 400 });
  });
});
