import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AccountUpdate, Fill, ItemResult } from '../../../src/core/account-data.js';
import type { BookUpdate, Ticker } from '../../../src/core/market-data.js';
import { SimExchange, type SimOrder } from '../../../src/backtest/exchange.js';
import { queueModel, type QueueModelConfig } from '../../../src/backtest/models.js';
import type { MarketConfig } from '../../../src/venue-sim/engine/types.js';

const SYMBOL = 'BTC-USD';
const MARKET: MarketConfig = {
  symbol: SYMBOL,
  tickSize: 0.5,
  lotSize: 0.001,
  minNotionalUsd: 0,
  maxLeverage: 20,
  makerFeeRate: 0.0002,
  takerFeeRate: 0.0005,
  initialMarginFraction: 0.05,
  maintenanceMarginFraction: 0.025,
  fundingIntervalNs: 3_600_000_000_000n,
};
const T0 = 1_700_000_000_000_000_000n;

function setup(queue: QueueModelConfig = { model: 'riskAverse' }, collateralUsd = 1_000_000) {
  const updates: AccountUpdate[] = [];
  const fills: Fill[] = [];
  const aheadAtFill: number[] = [];
  const done: SimOrder[] = [];
  const books: BookUpdate[] = [];
  const ex = new SimExchange(
    { markets: [MARKET], account: 'me', collateralUsd, queue: queueModel(queue) },
    {
      account: (u) => updates.push(u),
      book: (b) => books.push(b),
      fill: (f, ahead) => {
        fills.push(f);
        aheadAtFill.push(ahead);
      },
      orderDone: (o) => done.push(o),
    },
  );
  let n = 0;
  const book = (kind: 'snapshot' | 'delta', bids: [number, number][], asks: [number, number][]) =>
    ex.applyBook(
      {
        kind,
        symbol: SYMBOL,
        bids: bids.map(([price, size]) => ({ price, size, orders: 1 })),
        asks: asks.map(([price, size]) => ({ price, size, orders: 1 })),
        venueTimeMs: 0,
        arrivalNs: 0n,
      },
      T0 + BigInt(++n),
    );
  const trade = (price: number, size: number, takerSide: 'buy' | 'sell') =>
    ex.applyTrade({ symbol: SYMBOL, price, size, takerSide, timeMs: 0, maker: '', taker: '', liquidation: false }, T0 + BigInt(++n));
  const place = (b: boolean, px: number, sz: number, tif: 'GTC' | 'IOC' | 'ALO' = 'GTC', r = false): ItemResult =>
    ex.submit([{ order: { c: SYMBOL, b, px, sz, r, t: { limit: { tif } } } }], [`o${++n}`], T0 + BigInt(n))[0]!;
  const order = (r: ItemResult) => (r.kind === 'order' ? r.fact : undefined);
  const live = (id: string) => ex.openOrders().find((o) => o.orderId === id);
  return { ex, updates, fills, aheadAtFill, done, books, book, trade, place, order, live };
}

describe('queue position', () => {
  it('risk-averse: the queue ahead shrinks only by trades at the level, then a trade at the front fills', () => {
    const s = setup();
    s.book('snapshot', [[100, 5]], [[101, 5]]);
    const id = s.order(s.place(true, 100, 1))!.orderId;
    s.trade(100, 3, 'sell');
    expect(s.fills).toHaveLength(0);
    s.book('delta', [[100, 4]], []); // a cancel ahead or behind: risk-averse assumes behind (4 ≥ the 2 left ahead)
    s.trade(100, 2.5, 'sell');
    expect(s.fills.map((f) => [f.price, f.size, f.maker])).toEqual([[100, 0.5, true]]);
    expect(s.live(id)?.status).toBe('working');
    s.trade(100, 0.5, 'sell');
    expect(s.live(id)).toBeUndefined();
    expect(s.done.at(-1)?.status).toBe('filled');
  });

  it('risk-averse: a depth decrease only caps the queue ahead at the level size', () => {
    const s = setup();
    s.book('snapshot', [[100, 5]], [[101, 5]]);
    s.place(true, 100, 1);
    s.book('delta', [[100, 4]], []); // 5 ahead, capped at 4
    s.book('delta', [[100, 2]], []); // capped at 2
    s.trade(100, 2.5, 'sell');
    expect(s.fills.map((f) => f.size)).toEqual([0.5]);
  });

  it.each([
    [{ model: 'power', power: 2 } as const, 2 - (4 / 68) * 2],
    [{ model: 'power', power: 1 } as const, 2 - (2 / 10) * 2],
    [{ model: 'log' } as const, 2 - (Math.log1p(2) / (Math.log1p(2) + Math.log1p(8))) * 2],
  ])('probabilistic %o: a decrease counts ahead in proportion f(front) / (f(front) + f(back))', (model, expectedAhead) => {
    const q = queueModel(model);
    expect(q(2, 10, 8, 0)).toBeCloseTo(expectedAhead, 12);
    expect(q(5, 10, 8, 0)).toBeCloseTo(4, 12);
    expect(q(2, 10, 12, 0)).toBe(2);
  });

  it('a change at the deepest own level of a side moves its queue and reaches the bot with own size; one between own levels is only recorded', () => {
    const s = setup();
    s.book(
      'snapshot',
      [
        [100, 5],
        [99, 5],
        [98, 5],
      ],
      [
        [101, 5],
        [102, 5],
        [103, 5],
      ],
    );
    s.place(true, 100, 1);
    s.place(true, 98, 1);
    s.place(false, 101, 1);
    s.place(false, 103, 1);
    s.book(
      'delta',
      [
        [98, 2],
        [99, 1],
      ],
      [
        [103, 2],
        [102, 1],
      ],
    );
    expect(s.books.at(-1)).toMatchObject({
      bids: [
        { price: 98, size: 3, orders: 2 },
        { price: 99, size: 1, orders: 1 },
      ],
      asks: [
        { price: 103, size: 3, orders: 2 },
        { price: 102, size: 1, orders: 1 },
      ],
    });
    s.trade(98, 2.5, 'sell'); // through 100 (filled whole), then 2 ahead at 98 (capped by the change), 0.5 of ours
    s.trade(103, 2.25, 'buy');
    expect(s.fills.map((f) => [f.price, f.size])).toEqual([
      [100, 1],
      [98, 0.5],
      [101, 1],
      [103, 0.25],
    ]);
  });

  it('probabilistic: trade quantity at the level is taken out before a depth decrease is attributed', () => {
    const s = setup({ model: 'power', power: 2 });
    s.book('snapshot', [[100, 5]], [[101, 5]]);
    s.place(true, 100, 1);
    s.trade(100, 2, 'sell'); // ahead 5 → 3
    s.book('delta', [[100, 3]], []); // the decrease is the trade itself: ahead stays 3
    s.trade(100, 3, 'sell');
    expect(s.fills).toHaveLength(0);
    s.trade(100, 1, 'sell');
    expect(s.fills.map((f) => f.size)).toEqual([1]);
  });

  it('several own orders at one level share one queue', () => {
    const s = setup();
    s.book('snapshot', [[100, 3]], [[101, 5]]);
    const a = s.order(s.place(true, 100, 1))!.orderId; // 3 ahead
    s.book('delta', [[100, 5]], []);
    const b = s.order(s.place(true, 100, 1))!.orderId; // 5 ahead
    s.trade(100, 4.5, 'sell'); // 3 ahead of a, a's 1, then 0.5 of the 2 between a and b
    expect(s.fills.map((f) => [f.orderId, f.size])).toEqual([[a, 1]]);
    s.trade(100, 2, 'sell'); // 1.5 left ahead of b, then 0.5 of b
    expect(s.fills.map((f) => [f.orderId, f.size])).toEqual([
      [a, 1],
      [b, 0.5],
    ]);
  });
});

describe('fills', () => {
  it('reports the queue ahead of an order when it came to rest and when it filled (0 for a taker fill)', () => {
    const s = setup();
    s.book('snapshot', [[100, 5]], [[101, 5]]);
    s.place(true, 100, 1);
    s.place(true, 100.5, 1);
    s.trade(100, 4, 'sell'); // 1 of the 5 ahead left at 100
    s.trade(99.5, 0.1, 'sell'); // through both bids: the 100.5 bid had nothing ahead, the 100 bid still 1
    s.place(false, 100, 0.5); // takes the rest of the book's bids
    expect(s.fills.map((f) => [f.price, f.maker])).toEqual([
      [100.5, true],
      [100, true],
      [100, false],
    ]);
    expect(s.aheadAtFill).toEqual([0, 1, 0]);
    expect(s.done.map((o) => [o.price, o.aheadAtRest])).toEqual([
      [100.5, 0],
      [100, 5],
      [100, undefined],
    ]);
  });

  it('a trade through the price fills the whole order at its own price; the book reaching it does too', () => {
    const s = setup();
    s.book('snapshot', [[100, 5]], [[101, 5]]);
    s.place(true, 100, 2);
    s.trade(99.5, 0.1, 'sell');
    expect(s.fills.map((f) => [f.price, f.size, f.maker])).toEqual([[100, 2, true]]);
    s.place(false, 102, 1);
    s.book('delta', [[102.5, 0.4]], []);
    expect(s.fills.slice(1).map((f) => [f.price, f.size])).toEqual([[102, 0.4]]);
  });

  it("the bot's book never looks crossed: an own order the recorded book reaches is filled before that update is sent", () => {
    const s = setup();
    s.book('snapshot', [[100, 5]], [[101, 5]]);
    s.place(true, 100.5, 1);
    const before = s.books.length;
    s.book('delta', [], [[100.5, 3]]);
    expect(s.books.slice(before).map((b) => [b.kind, b.bids, b.asks])).toEqual([
      ['delta', [{ price: 100.5, size: 0, orders: 0 }], []],
      ['delta', [], [{ price: 100.5, size: 3, orders: 1 }]],
    ]);
  });

  it('no fill without market evidence: quotes and size changes elsewhere fill nothing', () => {
    const s = setup();
    s.book('snapshot', [[100, 5]], [[101, 5]]);
    s.place(true, 100, 1);
    s.book('delta', [[100.5, 1]], [[100.5 + 0.5, 1]]);
    s.trade(101, 3, 'buy');
    s.trade(100.5, 1, 'sell');
    expect(s.fills).toHaveLength(0);
  });

  it('marketable orders take the recorded book level by level with the taker fee; IOC rest is cancelledIOC', () => {
    const s = setup();
    s.book(
      'snapshot',
      [[100, 5]],
      [
        [101, 1],
        [101.5, 1],
        [103, 5],
      ],
    );
    const r = s.place(true, 101.5, 3, 'IOC');
    expect(s.order(r)).toMatchObject({ status: 'cancelledIOC', filledSize: 2 });
    expect(s.fills.map((f) => [f.price, f.size, f.maker, f.feeUsd])).toEqual([
      [101, 1, false, 0.0505],
      [101.5, 1, false, 0.05075],
    ]);
    const gtc = s.order(s.place(true, 101, 1.5))!;
    expect(gtc).toMatchObject({ status: 'working', filledSize: 1 });
  });

  it('statuses as the venue: post-only crossing, reduce-only, bad tick or lot, margin', () => {
    const s = setup(undefined, 10);
    s.book('snapshot', [[100, 5]], [[101, 5]]);
    expect(s.order(s.place(true, 101, 0.01, 'ALO'))?.status).toBe('rejectedCrossing');
    expect(s.order(s.place(false, 101, 0.01, 'GTC', true))?.status).toBe('cancelledReduceOnly');
    expect(s.order(s.place(true, 100.2, 0.01))).toMatchObject({ status: 'rejectedInvalid', reason: 'price is not a multiple of the tick size' });
    expect(s.order(s.place(true, 100, 0.0015))?.status).toBe('rejectedInvalid');
    expect(s.order(s.place(true, 100, 2))).toMatchObject({ status: 'rejectedRiskLimit', reason: 'insufficient margin' });
    expect(s.order(s.place(true, 100, 0.001))?.status).toBe('placed');
  });
});

describe("leverage setting (paper trading applies the config's)", () => {
  it('is clamped as the venue clamps it and decides the margin an order needs', () => {
    const high = setup(undefined, 10);
    high.book('snapshot', [[100, 5]], [[101, 5]]);
    expect(high.ex.setLeverage(SYMBOL, 100)).toBe(20);
    expect(high.order(high.place(true, 100, 1))?.status).toBe('placed');
    const low = setup(undefined, 10);
    low.book('snapshot', [[100, 5]], [[101, 5]]);
    expect(low.ex.setLeverage(SYMBOL, 2)).toBe(2);
    expect(low.order(low.place(true, 100, 1))).toMatchObject({ status: 'rejectedRiskLimit', reason: 'insufficient margin' });
    expect(low.ex.setLeverage('ETH-USD', 3)).toBeUndefined();
  });
});

describe('fees and funding to the cent', () => {
  const ticker = (mark: number, rate: number): Ticker => ({
    symbol: SYMBOL,
    lastPrice: mark,
    markPrice: mark,
    oraclePrice: mark,
    fundingRate: rate,
    openInterest: 0,
    volume24h: 0,
    volume24hUsd: 0,
    high24hPrice: mark,
    low24hPrice: mark,
    venueTimeNs: 0n,
  });

  it('maker fee, taker fee and one funding payment at the interval boundary', () => {
    const s = setup();
    s.book('snapshot', [[100, 5]], [[101, 5]]);
    s.place(true, 100, 2); // maker: 2 × 100 × 2 bps = 0.04
    s.trade(99.5, 1, 'sell');
    s.place(false, 100, 1, 'IOC'); // taker: 1 × 100 × 5 bps = 0.05
    expect(s.ex.feesUnits).toBe(90_000n);
    const hour = 3_600_000_000_000n;
    const boundary = (T0 / hour + 1n) * hour;
    s.ex.applyTicker(ticker(100, 0.0001), boundary - 1n);
    s.ex.applyTicker(ticker(100, 0.0001), boundary); // long 1 at mark 100 pays 1 × 100 × 0.0001 = 0.01
    expect(s.ex.fundingUnits).toBe(-10_000n);
    expect(s.ex.equityUsd()).toBeCloseTo(1_000_000 - 0.09 - 0.01, 9);
  });

  it('liquidation below maintenance margin: orders cancelledRiskLimit, the position closes against the recorded book', () => {
    const s = setup(undefined, 20);
    s.book('snapshot', [[100, 5]], [[100.5, 5]]);
    s.place(true, 100.5, 1, 'IOC'); // long 1 at 100.5, taker fee 0.05025
    const resting = s.order(s.place(true, 70, 0.1))!.orderId;
    s.book('snapshot', [[79, 5]], [[80.5, 5]]);
    s.ex.applyTicker(ticker(80, 0), T0 + 1_000n); // equity 20 − 0.05 − 20.5 < maintenance 0.025 × 80
    expect(s.ex.liquidations).toBe(1);
    expect(s.ex.positionSize(SYMBOL)).toBe(0);
    expect(s.done.find((o) => o.id === resting)?.status).toBe('cancelledRiskLimit');
    expect(s.fills.at(-1)).toMatchObject({ side: 'sell', price: 79, size: 1, cause: 'liquidation', maker: false });
    expect(s.updates.some((u) => u.kind === 'liquidation' && u.liquidation.price === 79)).toBe(true);
  });

  it('a trigger order parks until the mark price reaches its trigger, then takes the book', () => {
    const s = setup();
    s.book('snapshot', [[100, 5]], [[100.5, 5]]);
    s.ex.applyTicker(ticker(100, 0), T0 + 10n);
    s.place(true, 100.5, 1, 'IOC');
    const stop = s.ex.submit(
      [{ order: { c: SYMBOL, b: false, px: 0, sz: 1, r: true, t: { trigger: { is_market: true, triggerPx: 95 } } } }],
      ['stop'],
      T0 + 20n,
    )[0];
    expect(stop).toMatchObject({ kind: 'order', fact: { status: 'placed' } });
    s.ex.applyTicker(ticker(96, 0), T0 + 30n);
    expect(s.ex.positionSize(SYMBOL)).toBe(1);
    s.book('snapshot', [[94.5, 5]], [[95, 5]]);
    s.ex.applyTicker(ticker(94.5, 0), T0 + 40n);
    expect(s.ex.positionSize(SYMBOL)).toBe(0);
    expect(s.done.find((o) => o.id === 'stop')).toMatchObject({ status: 'filled', kind: 'trigger' });
  });
});

describe('SimExchange recorded book', () => {
  it('equals a naive model after any snapshot and deltas, more levels than its first capacity included (property)', () => {
    // Bids at 1..100, asks at 101..200 (half ticks of 0.5): up to 100 levels a side, never crossed.
    const change = fc.record({ bid: fc.boolean(), at: fc.integer({ min: 1, max: 100 }), size: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 9 })) });
    const level = fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 9 }));
    fc.assert(
      fc.property(
        fc.uniqueArray(level, { selector: (l) => l[0], minLength: 40, maxLength: 100 }),
        fc.array(fc.array(change, { maxLength: 30 }), { maxLength: 30 }),
        (initial, deltas) => {
          const s = setup();
          const model = { bid: new Map<number, number>(), ask: new Map<number, number>() };
          const price = (bid: boolean, at: number) => (bid ? at : 100 + at) / 2;
          for (const [at, size] of initial) {
            model.bid.set(price(true, at), size);
            model.ask.set(price(false, at), size);
          }
          s.book('snapshot', [...model.bid], [...model.ask]);
          for (const delta of deltas) {
            const bids: [number, number][] = [];
            const asks: [number, number][] = [];
            for (const c of delta) {
              const p = price(c.bid, c.at);
              (c.bid ? bids : asks).push([p, c.size]);
              if (c.size === 0) model[c.bid ? 'bid' : 'ask'].delete(p);
              else model[c.bid ? 'bid' : 'ask'].set(p, c.size);
            }
            s.book('delta', bids, asks);
            const bidsView = [...model.bid].sort((x, y) => y[0] - x[0]).map(([p, size]) => ({ price: p, size, orders: 0 }));
            const asksView = [...model.ask].sort((x, y) => x[0] - y[0]).map(([p, size]) => ({ price: p, size, orders: 0 }));
            const view = s.ex.bookView(SYMBOL, 1_000, 0)!;
            expect(view.bids).toEqual(bidsView);
            expect(view.asks).toEqual(asksView);
            if (bidsView.length > 0 && asksView.length > 0) expect(s.ex.midPrice(SYMBOL)).toBe((bidsView[0]!.price + asksView[0]!.price) / 2);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
