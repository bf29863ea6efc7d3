// Conditional intents end to end on the real local venue: a strategy opens a long, attaches a take-profit and a stop-market
// (reduce-only, sized to the position), the oracle moves the mark, each fires and fills, and the tracker reaches filled;
// a free-standing stop-limit through execution; `perpbot order place --trigger`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distinctUntilChanged, from, map, mergeMap } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { order as orderCommand } from '../../../src/app/commands/order.js';
import type { OrderEvent, TriggerSpec } from '../../../src/core/intent.js';
import type { Dialect } from '../../../src/core/types.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { closingTrigger, defineStrategy, positionOf, schema, type Intent, type StrategyDefinition } from '../../../src/strategy/api.js';
import type { LoadedStrategy } from '../../../src/strategy/loader.js';
import { startVenue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { FaultProxy, isAction } from '../../support/fault-proxy.js';
import { FakeRisk } from '../../unit/execution/fakes.js';
import { until } from '../../support/until.js';
import { Bot, stamp, type BotNet } from '../execution/bot.js';
import { Trader } from '../venue/harness.js';
import { MARK_SYMBOL, venueAtMark, type Level } from '../venue/at-mark.js';
import { localSession } from '../../support/local-session.js';

const closers = cleanups();
const SYMBOL = MARK_SYMBOL;

/**
 * Buys 2 at market, then on each position change: a take-profit for half the first position at 105 (once) and the
 * stop at 95 re-attached to the whole position (a replace of the order tagged `sl`).
 */
function protectedLong(events: OrderEvent[]): LoadedStrategy {
  let entered = false;
  let takeProfit = false;
  const definition = defineStrategy({
    name: 'protected',
    params: schema.object({}),
    symbols: () => [SYMBOL],
    create: (ctx) => {
      ctx.account.orders$.subscribe((e) => events.push(e));
      return ctx.account.state$.pipe(
        map((state) => positionOf(state, SYMBOL)),
        distinctUntilChanged(),
        mergeMap((position) => {
          const stamp = { dataTimeMs: ctx.clock.nowMs(), dataVersion: 0 };
          const intents: Intent[] = [];
          if (position === 0 && !entered) {
            entered = true;
            intents.push({ kind: 'place', order: { symbol: SYMBOL, side: 'buy', size: 2, tif: 'IOC', reduceOnly: false }, ...stamp });
          } else if (position > 0) {
            if (!takeProfit) {
              takeProfit = true;
              const order = closingTrigger(SYMBOL, position, { kind: 'takeProfit', triggerPrice: 105 }, { clientTag: 'tp' });
              intents.push({ kind: 'place', order: { ...order, size: position / 2 }, ...stamp });
            }
            const stop = closingTrigger(SYMBOL, position, { kind: 'stop', triggerPrice: 95 }, { clientTag: 'sl' });
            intents.push({ kind: 'replace', ref: { clientTag: 'sl' }, order: stop, ...stamp });
          }
          return from(intents);
        }),
      );
    },
  });
  return { name: 'protected', module: 'inline', file: 'inline', definition: definition as StrategyDefinition<unknown>, params: {}, symbols: [SYMBOL] };
}

/** A buy of 1 SOL at `price`, tagged `clientTag`. */
const buy = (clientTag: string, price: number, tif: 'GTC' | 'IOC') =>
  ({ symbol: SYMBOL, side: 'buy', size: 1, price, tif, reduceOnly: false, clientTag }) as const;

/** The statuses of `b`'s events of strategy `s` for the order tagged `tag`, in order. */
const statusesOf = (b: Bot) => (tag: string) =>
  b
    .of('s')
    .filter((e) => e.clientTag === tag)
    .map((e) => e.status);

/** venueAtMark with a started execution bot funded with 10,000 USD; `statuses(tag)`: its strategy `s`'s statuses of the order tagged `tag`. */
async function botAtMark(dialect: Dialect, ...levels: Level[]) {
  const at = await venueAtMark(closers, dialect, 18, ...levels);
  const b = new Bot(at.venue);
  closers.push(() => b.close({ deadlineMs: 2_000 }));
  await new Trader(at.venue, b.key).faucet(10_000);
  await b.exec.start();
  const statuses = statusesOf(b);
  return { ...at, b, statuses };
}

describe('conditional intents against the local venue', () => {
  it('a free-standing stop-limit: untriggered while parked, placed as a GTC limit once the mark crosses, then filled', async () => {
    const { setMark, lp, b, statuses } = await botAtMark('v1', [false, 104, 5]);
    const order = {
      symbol: SYMBOL,
      side: 'buy',
      size: 1,
      price: 103,
      tif: 'GTC',
      reduceOnly: false,
      clientTag: 'stop',
      trigger: { kind: 'stop', triggerPrice: 102 },
    } as const;
    b.exec.submit('s', { kind: 'place', order, ...stamp() });
    await until(() => statuses('stop').includes('untriggered'), 'the stop-limit parked');
    expect((await b.openAtVenue()).map((o) => [o.price, o.maker, o.status, o.parked])).toEqual([[103, false, 'placed', true]]);

    await setMark(102.5);
    await until(() => statuses('stop').includes('placed'), 'the stop-limit on the book');
    expect((await b.openAtVenue()).map((o) => [o.price, o.maker, o.status, o.parked])).toEqual([[103, true, 'placed', false]]);
    await lp.orders(lp.limit(SYMBOL, false, 103, 1, 'IOC'));
    await until(() => statuses('stop').includes('filled'), 'the stop-limit filled');
    expect(b.of('s').map((e) => [e.status, e.filledSize])).toEqual([
      ['pendingNew', 0],
      ['untriggered', 0],
      ['placed', 0],
      ['filled', 1],
    ]);
  }, 30_000);

  it.each<Dialect>(['v1', 'current'])(
    '%s: a take-profit and a stop-market attached to a long fire when the oracle moves the mark, fill, and end filled',
    async (dialect) => {
      const { venue, setMark, lp } = await venueAtMark(closers, dialect, 18, [false, 100, 2], [true, 99, 10]);

      const key = Keypair.generate();
      venue.engine.faucet(key.publicKey, 10_000);
      const events: OrderEvent[] = [];
      const session = await localSession(venue, {
        key,
        strategies: [protectedLong(events)],
      });
      closers.push(() => session.stop({ deadlineMs: 5_000 }));
      const statuses = (tag: string) => events.filter((e) => e.clientTag === tag).map((e) => e.status);
      const parked = () => venue.engine.openOrders(key.publicKey);

      await until(() => statuses('tp').includes('untriggered') && statuses('sl').includes('untriggered'), 'both triggers parked', 10_000);
      expect(parked().map((o) => [o.isBuy, o.price, o.originalSize, o.reduceOnly, o.maker, o.status])).toEqual([
        [false, 0, 1, true, false, 'placed'],
        [false, 0, 2, true, false, 'placed'],
      ]);

      await setMark(106);
      await until(() => statuses('tp').includes('filled'), 'the take-profit filled', 10_000);
      await until(() => events.some((e) => e.clientTag === 'sl' && e.size === 1 && e.status === 'untriggered'), 'the stop re-sized to the position', 10_000);

      await setMark(94);
      await until(() => statuses('sl').includes('filled'), 'the stop filled', 10_000);
      expect(statuses('tp')).toEqual(['pendingNew', 'untriggered', 'filled']);
      const stops = events.filter((e) => e.clientTag === 'sl');
      const [first, second] = [...new Set(stops.map((e) => e.orderId))];
      expect(stops.filter((e) => e.orderId === first).map((e) => e.status)).toEqual(['pendingNew', 'untriggered', 'pendingCancel', 'cancelled']);
      expect(stops.filter((e) => e.orderId === second).map((e) => [e.status, e.size, e.filledSize])).toEqual([
        ['pendingNew', 1, 0],
        ['untriggered', 1, 0],
        ['filled', 1, 1],
      ]);
      expect(parked()).toEqual([]);
      const history = await lp.query('orderHistory', key.publicKey);
      expect(
        history
          .map((r) => r.orderHistory)
          .filter((h) => (dialect === 'v1' ? ['trigger'] : ['stop', 'takeProfit']).includes(h.orderType))
          .map((h) => [h.status, Math.abs(h.executedSize)]),
      ).toEqual(
        expect.arrayContaining([
          ['filled', 1],
          ['cancelled', 0],
          ['filled', 1],
        ]),
      );
      expect(session.execution.openOrders()).toEqual([]);
    },
    40_000,
  );
});

describe("the current dialect's trailing stops and ranges from intents, through execution and the local venue", () => {
  it('each is tracked under the id computed at signing: untriggered while parked, filled when the mark reaches it', async () => {
    const { setMark, b, statuses } = await botAtMark('current', [false, 100, 2], [true, 99, 10]);
    b.exec.submit('s', { kind: 'place', order: { symbol: SYMBOL, side: 'buy', size: 2, tif: 'IOC', reduceOnly: false }, ...stamp() });
    await until(() => b.of('s').some((e) => e.status === 'filled'), 'the long opened');
    const closing = (clientTag: string, trigger: TriggerSpec) =>
      b.exec.submit('s', { kind: 'place', order: { symbol: SYMBOL, side: 'sell', size: 1, tif: 'GTC', reduceOnly: true, clientTag, trigger }, ...stamp() });
    closing('trail', { kind: 'trailing', trailBps: 100, stepBps: 0 });
    closing('range', { kind: 'range', low: 90, high: 110 });
    await until(() => statuses('trail').includes('untriggered') && statuses('range').includes('untriggered'), 'both parked');
    const parkedIds = b.exec.openOrders('s').map((o) => o.orderId);
    expect((await b.openAtVenue()).map((o) => o.orderId).sort()).toEqual([...parkedIds].sort());

    await setMark(104); // the trailing stop's trigger follows to 1% below 104
    await setMark(102.9);
    await until(() => statuses('trail').includes('filled'), 'the trailing stop filled');
    expect(statuses('range')).toEqual(['pendingNew', 'untriggered']);
    await setMark(110);
    await until(() => statuses('range').includes('filled'), 'the range filled at its upper bound');
    for (const tag of ['trail', 'range']) expect(statuses(tag)).toEqual(['pendingNew', 'untriggered', 'filled']);
    expect(
      new Set(
        b
          .of('s')
          .filter((e) => e.clientTag !== undefined)
          .map((e) => e.orderId),
      ),
    ).toEqual(new Set(parkedIds));
    expect(await b.openAtVenue()).toEqual([]);
  }, 30_000);
});

describe("the current dialect's on-fill orders from intents, through execution and the local venue", () => {
  it('children are tracked under their nested ids: untriggered while held, placed when the parent fills, cancelled with it', async () => {
    const { setMark, lp, b, statuses } = await botAtMark('current', [false, 100, 2], [true, 98, 10]);
    const closing = (clientTag: string, trigger: TriggerSpec) =>
      ({ symbol: SYMBOL, side: 'sell', size: 1, tif: 'GTC', reduceOnly: true, clientTag, trigger }) as const;
    const entry = (clientTag: string, price: number) =>
      ({
        symbol: SYMBOL,
        side: 'buy',
        size: 1,
        price,
        tif: 'GTC',
        reduceOnly: false,
        clientTag,
        onFill: [closing(`${clientTag}-tp`, { kind: 'takeProfit', triggerPrice: 105 }), closing(`${clientTag}-sl`, { kind: 'stop', triggerPrice: 95 })],
      }) as const;
    b.exec.submit('s', { kind: 'place', order: entry('a', 99.5), ...stamp() });
    b.exec.submit('s', { kind: 'place', order: entry('b', 99), ...stamp() });
    await until(() => statuses('a').includes('placed') && statuses('b').includes('placed'), 'the parents rest');
    expect(statuses('a-sl')).toEqual(['untriggered']);
    expect(statuses('a')).toEqual(['pendingNew', 'placed']);
    expect((await b.openAtVenue()).map((o) => o.price).sort()).toEqual([99, 99.5]);
    const childIds = b.exec
      .openOrders('s')
      .filter((o) => o.spec.clientTag?.startsWith('a-'))
      .map((o) => o.orderId);

    // A held child cannot be cancelled on its own; cancelling its parent cancels it.
    b.exec.submit('s', { kind: 'cancel', symbol: SYMBOL, ref: { clientTag: 'b-tp' }, ...stamp() });
    await until(() => b.of('s').some((e) => e.clientTag === 'b-tp' && /held until/.test(e.reason ?? '')), 'the held child refused');
    b.exec.submit('s', { kind: 'cancel', symbol: SYMBOL, ref: { clientTag: 'b' }, ...stamp() });
    await until(() => statuses('b-sl').includes('cancelled') && statuses('b-tp').includes('cancelled'), 'the children cancelled with their parent');
    expect(b.of('s').find((e) => e.clientTag === 'b-sl' && e.status === 'cancelled')?.reason).toMatch(/ended cancelled without filling/);

    // The parent fills: the venue places both children under the ids tracked since signing.
    await lp.orders(lp.limit(SYMBOL, false, 99.5, 1, 'IOC'));
    await until(() => statuses('a').includes('filled'), 'the parent filled');
    await until(async () => (await b.openAtVenue()).length === 2, 'the children at the venue');
    expect((await b.openAtVenue()).map((o) => o.orderId).sort()).toEqual([...childIds].sort());
    await setMark(106);
    await until(() => statuses('a-tp').includes('filled'), 'the take-profit filled');
    expect(statuses('a-tp')).toEqual(['untriggered', 'filled']);
    b.exec.submit('s', { kind: 'cancel', symbol: SYMBOL, ref: { clientTag: 'a-sl' }, ...stamp() });
    await until(() => statuses('a-sl').includes('cancelled'), 'the stop cancelled');
    expect(statuses('a-sl')).toEqual(['untriggered', 'pendingCancel', 'cancelled']);
    expect(await b.openAtVenue()).toEqual([]);
    expect(b.exec.openOrders('s')).toEqual([]);
  }, 30_000);
});

describe("the current dialect's trigger baskets from intents (whenMark), through execution and the local venue", () => {
  it('the order is tracked under its nested id: untriggered while its basket is parked, its own statuses once fired; a cancel cancels the basket', async () => {
    const { setMark, lp, b, statuses } = await botAtMark('current', [false, 103, 5], [true, 97, 5]);
    const breakout = { ...buy('breakout', 103, 'IOC'), whenMark: { above: true, price: 102 } } as const;
    const dip = { ...breakout, price: 96, tif: 'GTC', clientTag: 'dip', whenMark: { above: false, price: 95 } } as const;
    b.exec.submit('s', { kind: 'place', order: breakout, ...stamp() });
    b.exec.submit('s', { kind: 'place', order: dip, ...stamp() });
    await until(() => statuses('breakout').includes('untriggered') && statuses('dip').includes('untriggered'), 'both parked');
    const [breakoutId, dipId] = ['breakout', 'dip'].map((tag) => b.exec.openOrders('s').find((o) => o.spec.clientTag === tag)!.orderId);
    expect((await b.openAtVenue()).map((o) => o.orderId)).not.toContain(breakoutId);

    b.exec.submit('s', { kind: 'cancel', symbol: SYMBOL, ref: { clientTag: 'dip' }, ...stamp() });
    await until(() => statuses('dip').includes('cancelled'), 'the parked dip cancelled');
    expect(statuses('dip')).toEqual(['pendingNew', 'untriggered', 'pendingCancel', 'cancelled']);

    await setMark(102);
    await until(() => statuses('breakout').includes('filled'), 'the breakout filled once the mark reached 102');
    expect(statuses('breakout')).toEqual(['pendingNew', 'untriggered', 'filled']);
    const history = (await lp.query('orderHistory', b.key.publicKey)).map((r) => r.orderHistory);
    expect(history.find((h) => h.orderId === breakoutId)).toMatchObject({ status: 'filled', orderType: 'limit' });
    expect(history.some((h) => h.orderId === dipId)).toBe(false);
    expect(await b.openAtVenue()).toEqual([]);
    expect(b.exec.openOrders('s')).toEqual([]);
  }, 30_000);
});

describe("the current dialect's trigger baskets of several orders (a basket intent), through execution and the local venue", () => {
  it('each order is tracked under its nested id: untriggered while parked, filled or resting once the mark fires the basket; a cancel cancels the basket', async () => {
    const { setMark, lp, b, statuses } = await botAtMark('current', [false, 103, 5], [true, 97, 5]);
    b.exec.submit('s', {
      kind: 'basket',
      symbol: SYMBOL,
      whenMark: { above: true, price: 102 },
      orders: [buy('take', 103, 'IOC'), buy('rest', 101, 'GTC')],
      ...stamp(),
    });
    b.exec.submit('s', {
      kind: 'basket',
      symbol: SYMBOL,
      whenMark: { above: false, price: 95 },
      orders: [buy('dip1', 94, 'GTC'), buy('dip2', 93, 'GTC')],
      ...stamp(),
    });
    const tags = ['take', 'rest', 'dip1', 'dip2'];
    await until(() => tags.every((t) => statuses(t).includes('untriggered')), 'every order parked');
    const ids = new Map(tags.map((tag) => [tag, b.exec.openOrders('s').find((o) => o.spec.clientTag === tag)!.orderId!]));
    const atVenue = await b.openAtVenue();
    expect(atVenue).toHaveLength(2);
    expect(atVenue.map((o) => o.orderId)).not.toContain(ids.get('take'));

    b.exec.submit('s', { kind: 'cancel', symbol: SYMBOL, ref: { clientTag: 'dip2' }, ...stamp() });
    await until(() => statuses('dip1').includes('cancelled') && statuses('dip2').includes('cancelled'), 'the parked basket cancelled');
    for (const tag of ['dip1', 'dip2']) expect(statuses(tag)).toEqual(['pendingNew', 'untriggered', 'pendingCancel', 'cancelled']);
    expect(await b.openAtVenue()).toHaveLength(1);

    await setMark(102);
    await until(() => statuses('take').includes('filled') && statuses('rest').includes('placed'), 'the basket fired');
    expect(statuses('take')).toEqual(['pendingNew', 'untriggered', 'filled']);
    expect(statuses('rest')).toEqual(['pendingNew', 'untriggered', 'placed']);
    expect((await b.openAtVenue()).map((o) => [o.orderId, o.price, o.parked])).toEqual([[ids.get('rest'), 101, false]]);
    const history = (await lp.query('orderHistory', b.key.publicKey)).map((r) => r.orderHistory);
    expect(history.find((h) => h.orderId === ids.get('take'))).toMatchObject({ status: 'filled', orderType: 'limit' });

    b.exec.submit('s', { kind: 'cancel', symbol: SYMBOL, ref: { clientTag: 'rest' }, ...stamp() });
    await until(() => statuses('rest').includes('cancelled'), 'the fired order cancelled on its own');
    expect(await b.openAtVenue()).toEqual([]);
    expect(b.exec.openOrders('s')).toEqual([]);
  }, 30_000);
});

describe("the current dialect's trigger baskets under faults, through execution and the local venue", () => {
  /** A bot trading through a fault proxy in front of a current-dialect venue at mark 100 with a liquidity provider's ask at 103. */
  async function behindProxy(net: Pick<BotNet, 'rateLimitMaxWaitMs'> = {}) {
    const at = await venueAtMark(closers, 'current', 18, [false, 103, 5]);
    const proxy = await FaultProxy.start(at.venue.port);
    closers.push(() => proxy.close());
    const b = new Bot(
      at.venue,
      Keypair.generate(),
      new FakeRisk(),
      {},
      { httpUrl: proxy.via(at.venue.url), wsUrl: proxy.via(at.venue.wsUrl), timeoutMs: 500, ...net },
    );
    closers.push(() => b.close({ deadlineMs: 2_000 }));
    await new Trader(at.venue, b.key).faucet(10_000);
    await b.exec.start();
    const statuses = statusesOf(b);
    const basket = (whenMark: number) =>
      b.exec.submit('s', {
        kind: 'basket',
        symbol: SYMBOL,
        whenMark: { above: true, price: whenMark },
        orders: [buy('take', 103, 'IOC'), buy('rest', 101, 'GTC')],
        ...stamp(),
      });
    return { ...at, proxy, b, statuses, basket };
  }

  it('a basket whose answer is lost (applied, connection reset, account stream held) is resolved by query as parked, then fires and fills', async () => {
    const { proxy, b, statuses, basket, setMark } = await behindProxy();
    proxy.setWs({ kind: 'stall' });
    proxy.setHttp({ fault: { kind: 'applied', answer: 'reset' }, match: isAction, hits: 1 });
    basket(102);
    await until(() => statuses('take').includes('untriggered') && statuses('rest').includes('untriggered'), 'both orders resolved as parked by query', 10_000);
    expect(proxy.hits).toBe(1);
    proxy.heal();
    await setMark(102);
    await until(() => statuses('take').includes('filled') && statuses('rest').includes('placed'), 'the basket fired', 10_000);
    expect(statuses('take')).toEqual(['pendingNew', 'unknown', 'untriggered', 'filled']);
    expect(statuses('rest')).toEqual(['pendingNew', 'unknown', 'untriggered', 'placed']);
    expect((await b.openAtVenue()).map((o) => o.price)).toEqual([101]);
  }, 30_000);

  it('a basket refused with HTTP 429 (Retry-After within the wait) is sent again once: parked, then fired, nothing placed twice', async () => {
    const { proxy, b, statuses, basket, setMark } = await behindProxy();
    proxy.setHttp({ fault: { kind: 'status', status: 429, retryAfterS: 1 }, match: isAction, hits: 1 });
    basket(102);
    await until(() => statuses('take').includes('untriggered') && statuses('rest').includes('untriggered'), 'both parked after the retry', 10_000);
    expect(proxy.hits).toBe(1);
    expect(b.live.http.stats.rateLimited).toBe(1);
    await setMark(102);
    await until(() => statuses('take').includes('filled') && statuses('rest').includes('placed'), 'the basket fired', 10_000);
    expect(statuses('take')).toEqual(['pendingNew', 'untriggered', 'filled']);
    expect(statuses('rest')).toEqual(['pendingNew', 'untriggered', 'placed']);
    expect((await b.openAtVenue()).map((o) => o.price)).toEqual([101]);
  }, 30_000);

  it('a basket refused with HTTP 429 past the wait is given up: both orders concluded with the reason, nothing at the venue, no halt', async () => {
    const { proxy, b, statuses, basket, setMark } = await behindProxy({ rateLimitMaxWaitMs: 200 });
    proxy.setHttp({ fault: { kind: 'status', status: 429, retryAfterS: 1 }, match: isAction });
    basket(102);
    await until(() => statuses('take').includes('rejectedInvalid') && statuses('rest').includes('rejectedInvalid'), 'both given up', 10_000);
    const given = b.of('s').filter((e) => e.status === 'rejectedInvalid');
    expect(given.map((e) => e.reason)).toEqual([expect.stringMatching(/HTTP 429/), expect.stringMatching(/HTTP 429/)]);
    expect(b.exec.openOrders('s')).toEqual([]);
    expect(b.risk.rejects).toEqual([]);
    // Nothing was parked: the mark the basket waited for fires nothing.
    proxy.heal();
    await setMark(102);
    expect(await b.openAtVenue()).toEqual([]);
    expect(statuses('rest')).toEqual(['pendingNew', 'rejectedInvalid']);
  }, 30_000);

  it('an order with on-fill children whose answer is lost while the account stream is down: resolved filled by query, its children tracked under the ids they rest at', async () => {
    const { proxy, b, statuses } = await behindProxy();
    proxy.setWs({ kind: 'down' });
    proxy.setHttp({ fault: { kind: 'applied', answer: 'reset' }, match: isAction, hits: 1 });
    const child = (clientTag: string, triggerPrice: number, kind: 'takeProfit' | 'stop') =>
      ({ symbol: SYMBOL, side: 'sell', size: 1, tif: 'GTC', reduceOnly: true, clientTag, trigger: { kind, triggerPrice } }) as const;
    b.exec.submit('s', {
      kind: 'place',
      order: { ...buy('entry', 103, 'IOC'), onFill: [child('tp', 110, 'takeProfit'), child('sl', 95, 'stop')] },
      ...stamp(),
    });
    await until(() => statuses('entry').includes('filled'), 'the entry resolved as filled by query', 10_000);
    proxy.heal();
    await until(async () => (await b.openAtVenue()).length === 2, 'both children parked at the venue', 10_000);
    for (const tag of ['tp', 'sl']) expect(statuses(tag)).toEqual(['untriggered']);
    const atVenue = (await b.openAtVenue()).map((o) => o.orderId).sort();
    expect(
      b.exec
        .openOrders('s')
        .map((o) => o.orderId)
        .sort(),
    ).toEqual(atVenue);
    expect(atVenue).toHaveLength(2);
  }, 30_000);

  it('a parked basket outlives a venue restart with its state: the bot reconnects, still tracks it, and sees it fire', async () => {
    const { venue, proxy, b, statuses, basket } = await behindProxy();
    basket(102);
    await until(() => statuses('take').includes('untriggered') && statuses('rest').includes('untriggered'), 'both parked', 10_000);
    await proxy.outage();
    await venue.close();
    const again = await startVenue({ port: 0, resume: venue, dialect: 'current', flow: false, seed: 18 });
    closers.push(() => again.close());
    proxy.retarget(again.port);
    await proxy.restore();
    again.engine.setOraclePrice(SYMBOL, 102);
    again.step();
    await until(() => statuses('take').includes('filled') && statuses('rest').includes('placed'), 'the basket fired after the restart', 15_000);
    expect(statuses('take').at(-1)).toBe('filled');
    expect(again.engine.openOrders(b.key.publicKey).map((o) => o.price)).toEqual([101]);
    expect(b.exec.openOrders('s').map((o) => o.spec.clientTag)).toEqual(['rest']);
  }, 30_000);
});

describe('perpbot order place --trigger against the local venue', () => {
  const home = mkdtempSync(join(tmpdir(), 'perpbot-trigger-cli-'));
  beforeAll(() => {
    process.env.PERPBOT_HOME = home;
  });
  afterAll(() => {
    delete process.env.PERPBOT_HOME;
  });

  it('parks a stop-market (px 0.0) that fills when the mark crosses; --price with --trigger is refused before signing', async () => {
    const { venue, setMark, lp } = await venueAtMark(closers, 'v1', 18, [false, 101, 5]);
    const key = Keypair.generate();
    const keyFile = join(home, 'key.json');
    writeFileSync(keyFile, key.keyFileText(), { mode: 0o600 });
    await new Trader(venue, key).faucet(10_000);
    const lines: string[] = [];
    const args = ['place', SYMBOL, 'buy', '1', '--trigger', '102', '--url', venue.url, '--ws-url', venue.wsUrl, '--key', keyFile];
    expect(() => orderCommand([...args, '--price', '102'], (l) => lines.push(l))).toThrow(/whose price is 0\.0/);
    expect(await orderCommand(args, (l) => lines.push(l))).toBe(0);
    expect(lines.join('\n')).toMatch(/accepted \(order\)[\s\S]*resting/);
    expect(venue.engine.openOrders(key.publicKey).map((o) => [o.isBuy, o.price, o.maker, o.status])).toEqual([[true, 0, false, 'placed']]);
    await setMark(102);
    await until(() => venue.engine.openOrders(key.publicKey).length === 0, 'the stop fired');
    const history = await lp.query('orderHistory', key.publicKey);
    expect(history.map((r) => r.orderHistory)).toMatchObject([{ orderType: 'trigger', status: 'filled', executedSize: 1, vwap: 101 }]);
  }, 30_000);
});
