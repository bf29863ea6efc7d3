import { describe, expect, it } from 'vitest';
import type { AccountUpdate } from '../../../src/core/account-data.js';
import { queueModel } from '../../../src/backtest/models.js';
import { SimVenue } from '../../../src/backtest/sim-venue.js';
import { VirtualTime } from '../../../src/backtest/virtual-time.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { currentOrderActions, type OrderItem, v1OrderActions } from '../../../src/protocol/orders.js';
import { currentCodec } from '../../../src/protocol/current/codec.js';
import { blockOrder } from '../../../src/venue-sim/server/block.js';
import { signRequest } from '../../../src/protocol/sign.js';
import { v1Codec } from '../../../src/protocol/v1/codec.js';
import type { SubmitOutcome } from '../../../src/venue/port.js';

const SYMBOL = 'BTC-USD';
const MS = 1_000_000;
const T0 = 1_700_000_000_000_000_000n;

function setup(dialect: 'v1' | 'current' = 'v1') {
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
    dialect,
  });
  const seen: { atMs: number; update: AccountUpdate }[] = [];
  venue.account.updates$(key.publicKey).subscribe((update) => seen.push({ atMs: time.nowRelNs / MS, update }));
  let nonce = T0;
  const send = (items: OrderItem[]) =>
    venue.submitter.submit(
      signRequest(dialect === 'v1' ? v1Codec : currentCodec, key, {
        actions: dialect === 'v1' ? v1OrderActions(items) : currentOrderActions(items),
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

  it('current dialect: runs the transactions reaching the exchange at one instant as the local venue runs a block (§14)', async () => {
    const book = { kind: 'snapshot' as const, symbol: SYMBOL, bids: [{ price: 99, size: 5, orders: 1 }], asks: [{ price: 101, size: 5, orders: 1 }] };
    const place = (price: number, tif: 'GTC' | 'ALO'): OrderItem => ({
      kind: 'place',
      spec: { symbol: SYMBOL, side: 'buy', price, size: 1, tif, reduceOnly: false },
      cloid: undefined,
    });
    const cancelAll: OrderItem = { kind: 'cancelAll', symbols: [SYMBOL] };
    const outcomes = async (dialect: 'v1' | 'current') => {
      const s = setup(dialect);
      s.replayAt(0, { kind: 'book', recvNs: T0, book: { ...book, venueTimeMs: 0, arrivalNs: 0n } });
      // one transaction: a GTC place, a post-only place, then a cancel of every order; and two more at the same instant
      const sent = [s.send([place(96, 'GTC'), place(97, 'ALO'), cancelAll]), s.send([place(98, 'GTC')]), s.send([place(95, 'GTC')])];
      s.runTo(20);
      const answers = (await Promise.all(sent)) as Extract<SubmitOutcome, { outcome: 'accepted' }>[];
      return { s, answers, open: s.venue.exchange.openOrders().map((o) => o.price) };
    };
    const v1 = await outcomes('v1');
    expect([...v1.open].sort()).toEqual([95, 98]); // in order: the cancel-all took both places of its own transaction
    const current = await outcomes('current');
    // cancels first, then post-only, then the rest: every place survives the cancel-all of the block
    expect([...current.open].sort()).toEqual([95, 96, 97, 98]);
    expect(current.answers[0]!.items.map((i) => i.kind)).toEqual(['order', 'order', 'done']);
    // post-only first, then the rest in the order of the transactions shuffled by the block timestamp: the local venue's
    // order for these priorities (the exchange lists its open orders as they were placed)
    const prices = [[96, 97, 0], [98], [95]];
    const expected = blockOrder([[3, 2, 1], [3], [3]], T0 + 10n * 1_000_000n)
      .map(([t, a]) => prices[t]![a]!)
      .filter((p) => p > 0);
    expect(expected[0]).toBe(97);
    expect(current.open).toEqual(expected);
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

describe('the bot’s book feed', () => {
  const delta = (price: number, size: number, venueTimeMs: number) => ({
    kind: 'book' as const,
    recvNs: T0,
    book: { kind: 'delta' as const, symbol: SYMBOL, bids: [{ price, size, orders: 1 }], asks: [], venueTimeMs, arrivalNs: 0n },
  });

  it('joins book deltas queued for one instant into one delta (levels in order), until that instant came or another feed item was queued', () => {
    const s = setup();
    const books: { atMs: number; bids: { price: number; size: number }[]; venueTimeMs: number }[] = [];
    const trades: number[] = [];
    s.venue.market
      .book$(SYMBOL)
      .subscribe((b) => books.push({ atMs: s.time.nowRelNs / MS, bids: b.bids.map(({ price, size }) => ({ price, size })), venueTimeMs: b.venueTimeMs }));
    s.venue.market.trades$(SYMBOL).subscribe((t) => trades.push(t.price));
    // Exchange time ms, then the time the bot receives it (ms).
    const replay = (atMs: number, feedMs: number, e: Parameters<SimVenue['replay']>[0]) => {
      s.runTo(atMs);
      s.venue.replay(e, feedMs * MS);
    };
    replay(0, 0, { ...delta(99, 1, 1), book: { ...delta(99, 1, 1).book, kind: 'snapshot', asks: [{ price: 101, size: 1, orders: 1 }] } });
    replay(0, 1, delta(99.5, 2, 2));
    replay(0, 1, delta(99, 3, 3));
    replay(1, 1, delta(99.5, 4, 4));
    replay(1, 2, delta(98, 1, 5));
    replay(1, 2, {
      kind: 'trade',
      recvNs: T0,
      trade: { symbol: SYMBOL, price: 101, size: 1, takerSide: 'buy', timeMs: 5, maker: '', taker: '', liquidation: false },
    });
    replay(1, 2, delta(97, 1, 6));
    s.runTo(10);
    expect(books).toEqual([
      { atMs: 0, bids: [{ price: 99, size: 1 }], venueTimeMs: 1 },
      {
        atMs: 1,
        bids: [
          { price: 99.5, size: 2 },
          { price: 99, size: 3 },
        ],
        venueTimeMs: 3,
      },
      { atMs: 1, bids: [{ price: 99.5, size: 4 }], venueTimeMs: 4 },
      { atMs: 2, bids: [{ price: 98, size: 1 }], venueTimeMs: 5 },
      { atMs: 2, bids: [{ price: 97, size: 1 }], venueTimeMs: 6 },
    ]);
    expect(trades).toEqual([101]);
  });

  it('does not split the deltas of an instant at a trade when the bot observes no trades (a live session would not receive them)', () => {
    const s = setup();
    const books: number[][] = [];
    s.venue.market.book$(SYMBOL).subscribe((b) => books.push(b.bids.map((l) => l.price)));
    s.venue.replay({ ...delta(99, 1, 1), book: { ...delta(99, 1, 1).book, kind: 'snapshot', asks: [{ price: 101, size: 1, orders: 1 }] } }, 0);
    s.runTo(1);
    s.venue.replay(delta(98, 1, 2), 2 * MS);
    s.venue.replay(
      {
        kind: 'trade',
        recvNs: T0,
        trade: { symbol: SYMBOL, price: 101, size: 1, takerSide: 'buy', timeMs: 2, maker: '', taker: '', liquidation: false },
      },
      2 * MS,
    );
    s.venue.replay(delta(97, 1, 3), 2 * MS);
    s.runTo(10);
    expect(books).toEqual([[99], [98, 97]]);
  });
});
