import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from '../../../src/core/schema.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { parseAccountResponse } from '../../../src/protocol/v1/account.js';
import { parseActionResponse } from '../../../src/protocol/v1/responses.js';
import { accountQuerySchema } from '../../../src/protocol/v1/account.js';
import type { Venue } from '../../../src/venue-sim/server/index.js';
import { http, post, quietVenue, Trader } from './harness.js';

let venue: Venue;
beforeAll(async () => {
  venue = await quietVenue({ seed: 3 });
});
afterAll(() => venue.close());

function statuses(r: { body: any }): any[] {
  return r.body.response.data.statuses;
}

describe('local venue HTTP: signed actions', () => {
  it('faucet credits USDC; the response and fullAccount match the specified shapes', async () => {
    const t = new Trader(venue);
    const r = await t.faucet(2500);
    expect(r.status).toBe(200);
    expect(parseActionResponse('faucet', r.body)).toEqual({ status: 'ok', response: { type: 'faucet', data: { statuses: [{ deposit: { amount: 2500 } }] } } });
    const full = parseAccountResponse('fullAccount', await t.query('fullAccount'));
    expect(full[0]!.fullAccount.marginSummary.positions).toEqual([{ coin: 'USDC', size: 2500 }]);
  });

  it('places, rests, fills and cancels orders with the statuses of the spec table, ids as predicted', async () => {
    const maker = new Trader(venue);
    const taker = new Trader(venue);
    await maker.faucet(100_000);
    await taker.faucet(100_000);
    const placed = await maker.orders(maker.limit('ETH-USD', false, 3000, 1), maker.limit('ETH-USD', false, 3001, 1));
    expect(placed.status).toBe(200);
    const parsed = parseActionResponse('order', placed.body);
    expect(parsed.status).toBe('ok');
    expect(statuses(placed)).toEqual([{ resting: { oid: placed.orderIds[0] } }, { resting: { oid: placed.orderIds[1] } }]);

    const open = parseAccountResponse('openOrders', await maker.query('openOrders'));
    expect(open.map((o) => o.openOrder.orderId).sort()).toEqual([...placed.orderIds].sort());

    const take = await taker.orders(taker.limit('ETH-USD', true, 3001, 1.5, 'IOC'));
    expect(statuses(take)).toEqual([{ filled: { oid: take.orderIds[0], totalSz: 1.5, avgPx: (3000 + 3001 * 0.5) / 1.5 } }]);

    const cancel = await maker.orders({ cancel: { c: 'ETH-USD', oid: placed.orderIds[1] } });
    expect(statuses(cancel)).toEqual([{ cancelled: { oid: placed.orderIds[1] } }]);
    const history = parseAccountResponse('orderHistory', await maker.query('orderHistory'));
    expect(history.map((h) => h.orderHistory.status)).toEqual(['cancelled', 'filled']);
    const fills = parseAccountResponse('fills', await taker.query('fills'));
    expect(fills).toHaveLength(2);
    expect(fills[0]!.fills.taker).toBe(taker.account);
    const positions = parseAccountResponse('fullAccount', await taker.query('fullAccount'))[0]!.fullAccount.positions;
    expect(positions).toEqual([expect.objectContaining({ coin: 'ETH-USD', size: 1.5 })]);
  });

  it('answers the other statuses: ALO crossing, invalid, reduce-only, self-cross, duplicate, IOC, market on an empty book', async () => {
    const t = new Trader(venue);
    await t.faucet(50_000);
    await t.orders(t.limit('SOL-USD', false, 200, 1));
    const r = await t.orders(
      t.limit('SOL-USD', true, 200, 1, 'ALO'),
      t.limit('SOL-USD', true, 150.0005, 1),
      t.limit('DOGE-USD', true, 1, 100),
      t.limit('SOL-USD', true, 150, 0.05),
      t.limit('SOL-USD', false, 150, 1, 'GTC', true),
      t.limit('SOL-USD', true, 200, 1),
      t.limit('SOL-USD', true, 100, 1, 'IOC'),
      t.market('ETH-USD', true, 1),
    );
    const keys = statuses(r).map((s) => Object.keys(s)[0]);
    expect(keys).toEqual([
      'rejectedCrossing',
      'rejectedInvalid',
      'rejectedInvalid',
      'rejectedInvalid',
      'cancelledReduceOnly',
      'cancelledSelfCrossing',
      'cancelledIOC',
      'partiallyFilled',
    ]);
    expect(statuses(r)[1].rejectedInvalid.reason).toMatch(/tick/);
    expect(statuses(r)[2].rejectedInvalid.reason).toMatch(/symbol/);
    expect(statuses(r)[3].rejectedInvalid.reason).toMatch(/notional/);
    const cloid = Keypair.generate().publicKey;
    const withCloid = { order: { ...t.limit('SOL-USD', true, 100, 1).order, cloid } };
    const dup = await t.orders(withCloid, withCloid);
    expect(statuses(dup).map((s) => Object.keys(s)[0])).toEqual(['resting', 'rejectedDuplicate']);
  });

  it('clamps leverage to 1..50 and the market maximum, without an error', async () => {
    const t = new Trader(venue);
    await t.faucet();
    const r = await t.send({
      type: 'updateUserSettings',
      settings: {
        m: [
          ['BTC-USD', 80],
          ['ETH-USD', 0.5],
          ['SOL-USD', 7],
        ],
      },
    });
    expect(statuses(r)).toEqual([
      {
        settings: {
          maxLeverage: [
            ['BTC-USD', 50],
            ['ETH-USD', 1],
            ['SOL-USD', 7],
          ],
        },
      },
    ]);
    const full = parseAccountResponse('fullAccount', await t.query('fullAccount'))[0]!.fullAccount;
    expect(full.settings.maxLeverage).toEqual(
      expect.arrayContaining([
        ['BTC-USD', 50],
        ['ETH-USD', 1],
        ['SOL-USD', 7],
      ]),
    );
  });

  it('lets a registered agent trade for the account, and refuses it after removal', async () => {
    const owner = new Trader(venue);
    await owner.faucet(10_000);
    const agentKey = Keypair.generate();
    const agent = new Trader(venue, agentKey, owner.account);
    const before = await agent.orders(agent.limit('BTC-USD', true, 50_000, 0.001));
    expect(before.body).toEqual({ status: 'error', response: { type: 'order', data: { statuses: [{ error: { message: 'unauthorized signer' } }] } } });
    const add = await owner.send({ type: 'agentWalletCreation', agent: agentKey.publicKey, delete: false });
    expect(statuses(add)).toEqual([{ agentWallet: { agent: agentKey.publicKey, delete: false } }]);
    const placed = await agent.orders(agent.limit('BTC-USD', true, 50_000, 0.001));
    expect(Object.keys(statuses(placed)[0])).toEqual(['resting']);
    const byAgent = await agent.send({ type: 'agentWalletCreation', agent: Keypair.generate().publicKey, delete: false });
    expect(statuses(byAgent)).toEqual([{ error: { message: 'unauthorized signer' } }]);
    await owner.send({ type: 'agentWalletCreation', agent: agentKey.publicKey, delete: true });
    const after = await agent.orders(agent.limit('BTC-USD', true, 50_000, 0.001));
    expect(statuses(after)).toEqual([{ error: { message: 'unauthorized signer' } }]);
  });
});

describe('local venue HTTP: refused requests change no state', () => {
  let t: Trader;
  let snapshot: string;
  beforeAll(async () => {
    t = new Trader(venue);
    await t.faucet(1000);
    await t.orders(t.limit('BTC-USD', true, 40_000, 0.001));
  });
  const state = async () => JSON.stringify([await t.query('fullAccount'), await t.query('orderHistory'), venue.engine.book('BTC-USD')!.bids]);

  it('bad signature, replayed and stale nonces, forged signer: HTTP 200 with status error', async () => {
    snapshot = await state();
    const s = t.sign({ type: 'order', orders: [t.limit('BTC-USD', true, 41_000, 0.001)] });
    const body = JSON.parse(s.bodyText.replace(/"nonce":(\d+)/, '"nonce":"$1"'));
    const tampered = { ...body, action: { ...body.action, orders: [t.limit('BTC-USD', true, 41_000, 0.002)] } };
    const cases: Array<[unknown, string]> = [
      [tampered, 'bad signature'],
      [{ ...body, signature: body.signature.slice(0, -2) + (body.signature.endsWith('11') ? '22' : '11') }, 'bad signature'],
      [{ ...body, signer: Keypair.generate().publicKey }, 'bad signature'],
    ];
    for (const [b, message] of cases) {
      const r = await post(venue, '/order', b);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ status: 'error', response: { type: 'order', data: { statuses: [{ error: { message } }] } } });
    }
    const stale = t.sign({ type: 'order', orders: [t.limit('BTC-USD', true, 41_000, 0.001)] }, BigInt(Date.now() - 2 * 86_400_000) * 1_000_000n);
    expect(statuses(await post(venue, '/order', stale.bodyText))[0].error.message).toMatch(/24 hours/);
    expect(await state()).toBe(snapshot);
    const first = await post(venue, '/order', s.bodyText);
    expect(Object.keys(statuses(first)[0])).toEqual(['resting']);
    const replay = await post(venue, '/order', s.bodyText);
    expect(replay.body.status).toBe('error');
    expect(statuses(replay)[0].error.message).toBe('nonce already used');
  });

  it('malformed requests: 4xx JSON errors naming the problem', async () => {
    snapshot = await state();
    const good = JSON.parse(t.sign({ type: 'order', orders: [t.limit('BTC-USD', true, 41_000, 0.001)] }).bodyText.replace(/"nonce":(\d+)/, '"nonce":"$1"'));
    const cases: Array<[string, unknown, number, RegExp]> = [
      ['/order', '{"action":', 400, /not valid JSON/],
      ['/order', '[]', 400, /expected object/],
      ['/order', { ...good, action: { ...good.action, type: 'teleport' } }, 400, /action\.type/],
      [
        '/order',
        { ...good, action: { ...good.action, orders: [{ order: { ...good.action.orders[0].order, sz: 'lots' } }] } },
        400,
        /action\.orders\[0\]\.order\.sz/,
      ],
      ['/order', { ...good, account: undefined }, 400, /account: missing field/],
      ['/order', { ...good, extra: 1 }, 400, /extra: unknown field/],
      ['/order', { ...good, action: { ...good.action, orders: Array(101).fill(good.action.orders[0]) } }, 400, /action\.orders: array longer than 100/],
      ['/order', { ...good, signature: 'xyz' }, 400, /signature/],
      ['/user-settings', good, 400, /action\.type/],
      ['/account', { type: 'everything', user: t.account }, 400, /type/],
      ['/account', { type: 'fullAccount', user: 'nobody' }, 400, /user/],
    ];
    for (const [path, body, status, message] of cases) {
      const r = await post(venue, path, body as object);
      expect(r.status, `${path} ${JSON.stringify(body).slice(0, 80)}`).toBe(status);
      expect(r.body.status).toBe('error');
      expect(r.body.error.code).toEqual(expect.any(String));
      expect(r.body.error.message).toMatch(message);
    }
    const big = await post(venue, '/order', `{"pad":"${'x'.repeat(1024 * 1024 + 10)}"}`);
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const missing = await http(`${venue.url}/teleport`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const outside = await http(`${venue.url.replace('/api/v1', '')}/index.html`);
    expect(outside.status).toBe(404);
    const wrongMethod = await http(`${venue.url}/order`);
    expect(wrongMethod.status).toBe(405);
    expect(await state()).toBe(snapshot);
  });

  it('accepts only configured oracle keys for the oracle action', async () => {
    const r = await t.send({ type: 'oracle', prices: [{ timestamp: 1, symbol: 'BTC-USD', price: 1 }] });
    expect(statuses(r)).toEqual([{ error: { message: 'unauthorized signer' } }]);
  });
});

describe('local venue HTTP: market data and limits', () => {
  it('serves exchangeInfo and l2book in the documented shapes', async () => {
    const info = await http(`${venue.url}/exchangeInfo`);
    expect(info.status).toBe(200);
    expect(info.body.map((m: any) => m.symbol)).toEqual(['BTC-USD', 'ETH-USD', 'SOL-USD']);
    expect(info.body[0]).toMatchObject({
      baseAsset: 'BTC',
      quoteAsset: 'USDC',
      status: 'TRADING',
      tickSize: 0.1,
      lotSize: 0.0001,
      minNotional: 10,
      maxLeverage: 50,
      orderTypes: ['LIMIT', 'MARKET', 'STOP', 'STOP_LIMIT', 'TAKE_PROFIT', 'RANGE', 'TRIGGER', 'TRAILING'],
    });
    const t = new Trader(venue);
    await t.faucet(100_000);
    await t.orders(t.limit('ETH-USD', true, 2000, 1), t.limit('ETH-USD', true, 1999, 2), t.limit('ETH-USD', true, 1999, 1));
    const book = await http(`${venue.url}/l2book?symbol=ETH-USD&nlevels=2`);
    expect(book.body.updateType).toBe('snapshot');
    expect(book.body.levels[0].slice(0, 2)).toEqual([expect.objectContaining({ px: 2000 }), expect.objectContaining({ px: 1999, n: 2 })]);
    expect(book.body.levels[0].length).toBeLessThanOrEqual(2);
    // aggregation buckets levels by a price step: bids down, asks up, sizes and counts summed, nlevels after bucketing
    await t.orders(t.limit('ETH-USD', true, 1990.5, 1));
    const bucketed = await http(`${venue.url}/l2book?symbol=ETH-USD&aggregation=10`);
    expect(bucketed.body.levels[0].slice(0, 2)).toEqual([
      { px: 2000, sz: 1, n: 1 },
      { px: 1990, sz: 4, n: 3 },
    ]);
    expect((await http(`${venue.url}/l2book?symbol=ETH-USD&aggregation=10&nlevels=1`)).body.levels[0]).toHaveLength(1);
    expect((await http(`${venue.url}/l2book?symbol=ETH-USD&aggregation=0.0001`)).status).toBe(400);
    expect((await http(`${venue.url}/l2book?symbol=XYZ-USD`)).status).toBe(404);
    expect((await http(`${venue.url}/l2book?symbol=ETH-USD&nlevels=0`)).status).toBe(400);
    expect((await http(`${venue.url}/l2book`)).status).toBe(400);
  });

  it('rate limits per address with 429 and Retry-After when configured', async () => {
    const limited = await quietVenue({ rateLimit: { perSecond: 2, burst: 3 } });
    try {
      const codes: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 6; i++) {
        const r = await http(`${limited.url}/exchangeInfo`);
        codes.push(r.status);
        if (r.status === 429) retryAfter = r.headers.get('retry-after');
      }
      expect(codes.slice(0, 3)).toEqual([200, 200, 200]);
      expect(codes).toContain(429);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.close();
    }
  });

  it('the account query schema is strict', () => {
    expect(() => parse(accountQuerySchema, { type: 'fills', user: Keypair.generate().publicKey, x: 1 })).toThrow(/x: unknown field/);
  });
});
