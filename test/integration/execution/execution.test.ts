import { isDeepStrictEqual } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { QuoteSpec } from '../../../src/core/intent.js';
import type { Dialect } from '../../../src/core/types.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { until } from '../../support/until.js';
import { FakeRisk } from '../../unit/execution/fakes.js';
import { Trader } from '../venue/harness.js';
import { Bot, resting, stamp, VenueTap } from './bot.js';

const oracleKey = Keypair.generate();

describe.each<Dialect>(['v1', 'current'])('execution against the local venue in the %s dialect', (dialect) => {
  let venue: Venue;
  let tap: VenueTap;
  const bots: Bot[] = [];

  beforeAll(async () => {
    venue = await startVenue({ port: 0, flow: false, seed: 11, oracleKeys: [oracleKey.publicKey], dialect });
    tap = new VenueTap(venue);
  });
  afterEach(async () => {
    for (const b of bots.splice(0)) await b.close({ deadlineMs: 2000 });
  });
  afterAll(() => venue.close());

  async function bot(...args: ConstructorParameters<typeof Bot> extends [Venue, ...infer R] ? R : never): Promise<Bot> {
    const b = new Bot(venue, ...args);
    bots.push(b);
    await new Trader(venue, b.key).faucet(100_000);
    await b.exec.start();
    return b;
  }

  const quotes = (bid: number, ask: number, size = 0.01): QuoteSpec[] => [
    { side: 'buy', price: bid, size },
    { side: 'sell', price: ask, size },
  ];

  it('a quote set converges to resting orders, and a new set changes only what differs', async () => {
    const b = await bot();
    b.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(49_000, 51_000), ...stamp() });
    await resting(b, 'mm', 2);
    const open = await b.openAtVenue();
    expect(open.map((o) => [o.side, o.price, o.remainingSize]).sort()).toEqual([
      ['buy', 49_000, 0.01],
      ['sell', 51_000, 0.01],
    ]);
    expect(tap.kinds(b.account)).toEqual([['order', 'order']]);

    b.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(49_000, 51_000), ...stamp() });
    await b.exec.whenIdle();
    expect(tap.of(b.account)).toHaveLength(1);

    const askId = open.find((o) => o.side === 'sell')!.orderId;
    b.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(49_100, 51_000), ...stamp() });
    await resting(b, 'mm', 2);
    expect(tap.kinds(b.account, 1)).toEqual([['cancel', 'order']]);
    const after = await b.openAtVenue();
    expect(after.map((o) => [o.side, o.price]).sort()).toEqual([
      ['buy', 49_100],
      ['sell', 51_000],
    ]);
    expect(after.find((o) => o.side === 'sell')!.orderId).toBe(askId);
  });

  it('a replace by an identical order sends nothing; a replace that differs cancels and places in one batch', async () => {
    const b = await bot();
    const order = { symbol: 'ETH-USD', side: 'buy' as const, price: 2000, size: 0.01, tif: 'GTC' as const, reduceOnly: false, clientTag: 'bid' };
    b.exec.submit('s', { kind: 'place', order, ...stamp() });
    await resting(b, 's', 1);
    b.exec.submit('s', { kind: 'replace', ref: { clientTag: 'bid' }, order, ...stamp() });
    await b.exec.whenIdle();
    expect(tap.of(b.account)).toHaveLength(1);
    b.exec.submit('s', { kind: 'replace', ref: { clientTag: 'bid' }, order: { ...order, size: 0.02 }, ...stamp() });
    await resting(b, 's', 1);
    expect(tap.kinds(b.account)).toEqual([['order'], ['cancel', 'order']]);
    expect((await b.openAtVenue()).map((o) => [o.price, o.remainingSize])).toEqual([[2000, 0.02]]);
    expect(b.latest('s').map((e) => [e.clientTag, e.status])).toEqual([
      ['bid', 'cancelled'],
      ['bid', 'placed'],
    ]);
  });

  it('every rejection and cancellation status the venue gives reaches the owning strategy', async () => {
    const lp = new Trader(venue);
    await lp.faucet(1_000_000);
    await lp.orders(lp.limit('BTC-USD', false, 50_000, 0.01));
    const b = await bot();
    const order = (over: object) => ({ symbol: 'BTC-USD', side: 'buy' as const, price: 40_000, size: 0.001, tif: 'GTC' as const, reduceOnly: false, ...over });
    const place = (over: object) => b.exec.submit('rej', { kind: 'place', order: order(over), ...stamp() });
    place({ price: 40_000.05, clientTag: 'offTick' });
    place({ size: 1000, clientTag: 'tooBig' });
    place({ price: 50_000, tif: 'ALO', clientTag: 'alo' });
    place({ price: 49_000, tif: 'IOC', clientTag: 'ioc' });
    place({ side: 'sell', price: 60_000, reduceOnly: true, clientTag: 'ro' });
    place({ clientTag: 'dup' });
    place({ price: 39_000, clientTag: 'dup' });
    place({ price: undefined, size: 0.002, clientTag: 'mkt' });
    await b.exec.whenIdle();
    b.exec.submit('rej', {
      kind: 'place',
      order: { symbol: 'ETH-USD', side: 'sell', price: 3000, size: 0.01, tif: 'GTC', reduceOnly: false, clientTag: 'ask' },
      ...stamp(),
    });
    await b.exec.whenIdle();
    place({ symbol: 'ETH-USD', price: 3000, size: 0.01, clientTag: 'self' });
    place({ price: undefined, size: 1, clientTag: 'sweep' });
    await b.exec.whenIdle();
    // current carries no client order id: execution refuses the live tag itself (the order's local id elided)
    const seen = () =>
      Object.fromEntries(b.latest('rej').map((e) => [`${e.clientTag}:${e.price}`, [e.status, e.reason?.replace(/live order \S+$/, 'live order …')]]));
    const expected = {
      'offTick:40000.05': ['rejectedInvalid', 'price is not a multiple of the tick size'],
      'tooBig:40000': ['rejectedRiskLimit', 'insufficient margin'],
      'alo:50000': ['rejectedCrossing', 'post-only order would cross'],
      'ioc:49000': ['cancelledIOC', undefined],
      'ro:60000': ['cancelledReduceOnly', 'would increase the position'],
      'dup:40000': ['placed', undefined],
      'dup:39000': [
        'rejectedDuplicate',
        dialect === 'v1' ? 'duplicate client order id' : 'execution DUPLICATE_TAG: client tag "dup" is carried by live order …',
      ],
      'mkt:0': ['filled', undefined],
      'ask:3000': ['placed', undefined],
      'self:3000': ['cancelledSelfCrossing', 'self-trade prevention'],
      'sweep:0': ['partiallyFilled', 'book exhausted'],
    };
    // An order's venue reason comes on the account stream, which may arrive after the HTTP answer that ended it.
    await until(() => isDeepStrictEqual(seen(), expected), 'every order ended with its venue reason').catch(() => undefined);
    expect(seen()).toEqual(expected);
    // the venue's rejections reach risk; a tag refused by execution itself never left the bot
    const venueRejects = ['rejectedCrossing', ...(dialect === 'v1' ? ['rejectedDuplicate'] : []), 'rejectedInvalid', 'rejectedRiskLimit'];
    expect(b.risk.rejects.sort()).toEqual(venueRejects);
    expect(b.latest('rej').find((e) => e.clientTag === 'sweep')?.filledSize).toBeCloseTo(0.008, 9);
  });

  it('cancelledRiskLimit (liquidation) reaches the strategy through the account stream', async () => {
    const setMark = (price: number) =>
      new Trader(venue, oracleKey).send({ type: 'oracle', prices: [{ timestamp: BigInt(Date.now()) * 1_000_000n, symbol: 'SOL-USD', price }] });
    await setMark(100);
    const lp = new Trader(venue);
    await lp.faucet(1_000_000);
    await lp.orders(lp.limit('SOL-USD', false, 100, 10), lp.limit('SOL-USD', true, 80, 50), lp.limit('SOL-USD', true, 70, 50));
    const b = new Bot(venue);
    bots.push(b);
    const t = new Trader(venue, b.key);
    await t.faucet(60);
    await t.send({ type: 'updateUserSettings', settings: { m: [['SOL-USD', 20]] } });
    await b.exec.start();
    b.exec.submit('lev', { kind: 'place', order: { symbol: 'SOL-USD', side: 'buy', size: 10, tif: 'IOC', reduceOnly: false }, ...stamp() });
    b.exec.submit('lev', {
      kind: 'place',
      order: { symbol: 'SOL-USD', side: 'sell', price: 150, size: 1, tif: 'GTC', reduceOnly: false, clientTag: 'tp' },
      ...stamp(),
    });
    await b.exec.whenIdle();
    expect(b.latest('lev').map((e) => e.status)).toEqual(['filled', 'placed']);
    await setMark(92);
    await until(() => b.latest('lev').find((e) => e.clientTag === 'tp')?.status === 'cancelledRiskLimit', 'the resting order cancelled by liquidation');
  });

  it('risk denials never reach the wire', async () => {
    const risk = new FakeRisk((op) =>
      op.kind === 'place' && op.order.size > 0.05 ? { ok: false, reason: 'MAX_ORDER_SIZE', detail: `${op.order.size} > 0.05` } : { ok: true },
    );
    const b = await bot(undefined, risk);
    b.exec.submit('mm', {
      kind: 'quoteSet',
      symbol: 'BTC-USD',
      quotes: [
        { side: 'buy', price: 49_000, size: 1 },
        { side: 'sell', price: 51_000, size: 0.01 },
      ],
      ...stamp(),
    });
    b.exec.submit('mm', { kind: 'place', order: { symbol: 'ETH-USD', side: 'buy', price: 2000, size: 5, tif: 'GTC', reduceOnly: false }, ...stamp() });
    await b.exec.whenIdle();
    expect(tap.of(b.account).map((a) => a.items.length)).toEqual([1]);
    expect(tap.of(b.account)[0]!.items[0]).toMatchObject({ order: { px: 51_000 } });
    expect(
      b
        .of('mm')
        .filter((e) => e.status === 'rejectedRiskLimit')
        .map((e) => e.reason),
    ).toEqual(['risk MAX_ORDER_SIZE: 1 > 0.05', 'risk MAX_ORDER_SIZE: 5 > 0.05']);
    risk.halt('kill switch');
    b.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(49_000, 51_000), ...stamp() });
    await b.exec.whenIdle();
    expect(tap.of(b.account)).toHaveLength(1);
  });

  it('a restart with open orders reconciles without duplicates (adopt, or cancel and place again)', async () => {
    const key = Keypair.generate();
    const first = await bot(key);
    first.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(48_000, 52_000), ...stamp() });
    await resting(first, 'mm', 2);
    const ids = (await first.openAtVenue()).map((o) => o.orderId).sort();
    expect(await first.close({ cancelOrders: false })).toEqual({ cancelled: 0, open: [], timedOut: false });
    bots.splice(bots.indexOf(first), 1);

    const adopter = new Bot(venue, key, new FakeRisk(), { reconcile: { unknownOrders: 'adopt', adoptOwner: () => 'mm' } });
    bots.push(adopter);
    const report = await adopter.exec.start();
    expect(report.adopted.map((o) => o.orderId).sort()).toEqual(ids);
    adopter.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(48_000, 52_000), ...stamp() });
    await adopter.exec.whenIdle();
    expect(tap.of(key.publicKey)).toHaveLength(1);
    expect((await adopter.openAtVenue()).map((o) => o.orderId).sort()).toEqual(ids);
    await adopter.close({ cancelOrders: false });
    bots.splice(bots.indexOf(adopter), 1);

    const fresh = new Bot(venue, key);
    bots.push(fresh);
    const second = await fresh.exec.start();
    expect(second.toCancel.map((o) => o.orderId).sort()).toEqual(ids);
    fresh.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(48_000, 52_000), ...stamp() });
    await resting(fresh, 'mm', 2);
    await until(() => fresh.of('@reconcile').filter((e) => e.status === 'cancelled').length === 2, 'the old orders cancelled');
    const open = await fresh.openAtVenue();
    expect(open).toHaveLength(2);
    expect(open.map((o) => o.orderId).filter((id) => ids.includes(id))).toEqual([]);
    expect(open.map((o) => o.price).sort()).toEqual([48_000, 52_000]);
  });

  it("an order placed behind the bot's back is left alone while connected, and cancelled by the reconciliation after a reconnect", async () => {
    const b = await bot();
    b.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(47_000, 53_000), ...stamp() });
    await resting(b, 'mm', 2);
    await until(() => b.live.pool.stats.messages > 0, 'the account snapshot');
    await b.exec.reconcile();
    const outsider = await new Trader(venue, b.key).orders(new Trader(venue).limit('BTC-USD', true, 46_000, 0.01));
    const foreign = outsider.orderIds[0]!;
    await new Promise((r) => setTimeout(r, 50));
    expect(b.exec.order(foreign)).toBeUndefined();
    const hub = venue.hub as unknown as { clients: Set<{ ws: { terminate(): void } }> };
    for (const c of hub.clients) c.ws.terminate();
    await until(() => b.exec.order(foreign)?.status === 'cancelled', 'the foreign order cancelled by reconciliation', 10_000);
    const open = await b.openAtVenue();
    expect(open.map((o) => o.price).sort()).toEqual([47_000, 53_000]);
  });

  it('an unknown submit outcome is resolved by querying the venue (no stream here); the request is sent exactly once', async () => {
    const key = Keypair.generate();
    const inner = new Bot(venue, key);
    const b = new Bot(venue, key, new FakeRisk(), {
      orderUpdates$: undefined,
      resync$: undefined,
      submitter: {
        submit: async (request) => {
          await inner.live.submitter.submit(request);
          return { outcome: 'unknown', reason: 'answer lost', request };
        },
      },
    });
    bots.push(b, inner);
    await new Trader(venue, key).faucet(10_000);
    await b.exec.start();
    b.exec.submit('mm', { kind: 'place', order: { symbol: 'BTC-USD', side: 'buy', price: 45_000, size: 0.01, tif: 'GTC', reduceOnly: false }, ...stamp() });
    await b.exec.whenIdle();
    expect(b.of('mm').map((e) => e.status)).toEqual(['pendingNew', 'unknown', 'placed']);
    expect(tap.of(key.publicKey)).toHaveLength(1);
  });

  it('stop cancels every order of the bot and waits for the venue to confirm', async () => {
    const b = await bot();
    b.exec.submit('a', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(44_000, 56_000), ...stamp() });
    b.exec.submit('b', { kind: 'quoteSet', symbol: 'ETH-USD', quotes: quotes(1500, 2500, 0.1), ...stamp() });
    await resting(b, 'a', 2);
    await resting(b, 'b', 2);
    const report = await b.close({ deadlineMs: 3000 });
    bots.splice(bots.indexOf(b), 1);
    expect(report).toEqual({ cancelled: 4, open: [], timedOut: false });
    expect(await new Trader(venue, b.key).query('openOrders')).toEqual([]);
  });

  it("stop also cancels an order placed behind the bot's back: it reads the venue's open orders once its own are gone", async () => {
    const b = await bot();
    b.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(45_000, 55_000), ...stamp() });
    await resting(b, 'mm', 2);
    const outsider = await new Trader(venue, b.key).orders(new Trader(venue).limit('BTC-USD', true, 44_500, 0.01));
    const foreign = outsider.orderIds[0]!;
    await new Promise((r) => setTimeout(r, 50));
    expect(b.exec.order(foreign)).toBeUndefined();
    const report = await b.close({ deadlineMs: 3000 });
    bots.splice(bots.indexOf(b), 1);
    expect(report).toEqual({ cancelled: 3, open: [], timedOut: false });
    expect(b.exec.order(foreign)?.status).toBe('cancelled');
    expect(await new Trader(venue, b.key).query('openOrders')).toEqual([]);
  });
});
