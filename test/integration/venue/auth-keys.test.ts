// Strict keys at every boundary of the real local venue (issue 14, defect 2): a request forged with a small-order key
// and the fixed signature that verifies for it under any message is refused with a 4xx JSON error naming the field,
// whether the key is the account, the signer, an agent to add or an oracle key, and nothing is applied.
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringifyJson } from '../../../src/core/json.js';
import { parse } from '../../../src/core/schema.js';
import { venueConfigSchema } from '../../../src/app/venue-config.js';
import { Keypair } from '../../../src/protocol/keys.js';
import type { MessageSigner } from '../../../src/protocol/presigner.js';
import { ACTION_PATHS, type Action, type OrderItem } from '../../../src/protocol/v1/actions.js';
import { serializeAction } from '../../../src/protocol/v1/serialize.js';
import type { Venue } from '../../../src/venue-sim/server/index.js';
import { FIXED_SIGNATURE, IDENTITY, SMALL_ORDER_ENCODINGS } from '../../support/small-order-keys.js';
import { post, quietVenue, Trader, type Reply } from './harness.js';

const IDENTITY_KEY = bs58.encode(IDENTITY);

/** An attacker's signer: claims `publicKey` and returns the fixed signature for every message. */
const forger = (publicKey: string): MessageSigner => ({ publicKey, sign: () => FIXED_SIGNATURE });

let nonce = BigInt(Date.now()) * 1_000_000n;
/**
 * Sends `action` for `account`, signed by `key` (a real key or a forger) over the real wincode bytes. The body is
 * built here, not by the client's encoder, which refuses small-order keys itself.
 */
function send(venue: Venue, key: MessageSigner, account: string, action: Action): Promise<Reply> {
  const n = ++nonce;
  const signature = bs58.encode(key.sign(serializeAction(action, n, account, key.publicKey)));
  return post(venue, ACTION_PATHS[action.type], stringifyJson({ action: { ...action, nonce: n }, account, signer: key.publicKey, signature }));
}

function expectRefused(r: Reply, field: RegExp): void {
  expect(r.status, r.text).toBe(400);
  expect(r.headers.get('content-type')).toMatch(/application\/json/);
  expect(r.body).toEqual({ status: 'error', error: { code: 'BAD_REQUEST', message: expect.stringMatching(field) } });
}

const oracleKey = Keypair.generate();
let venue: Venue;
let owner: Trader;
beforeAll(async () => {
  venue = await quietVenue({ seed: 14, oracleKeys: [oracleKey.publicKey] });
  owner = new Trader(venue);
  await owner.faucet(10_000);
});
afterAll(() => venue.close());

/** Everything a refused request could have changed. */
const state = async () =>
  stringifyJson([
    await owner.query('fullAccount'),
    await owner.query('orderHistory'),
    await owner.query('fullAccount', IDENTITY_KEY),
    venue.engine.agents(owner.account),
    venue.engine.marketState('BTC-USD'),
    [venue.engine.book('BTC-USD')!.bids, venue.engine.book('BTC-USD')!.asks],
  ]);

describe('local venue: small-order and non-canonical keys are refused at every boundary', () => {
  it.each(SMALL_ORDER_ENCODINGS.map((e) => [e.name, bs58.encode(e.bytes)] as const))(
    'a faucet forged as %s (account and signer) gets 400 naming the field; nothing is credited',
    async (_name, key) => {
      const before = await state();
      expectRefused(
        await send(venue, forger(key), key, { type: 'faucet', user: key, amount: 1000 }),
        /^(account|signer|action\.user): .*(small order|non-canonical)/,
      );
      expect(await owner.query('fullAccount', key)).toEqual(await owner.query('fullAccount', Keypair.generate().publicKey));
      expect(await state()).toBe(before);
    },
  );

  it('an order forged for a real account by a small-order signer gets 400 naming signer', async () => {
    const before = await state();
    const r = await send(venue, forger(IDENTITY_KEY), owner.account, { type: 'order', orders: [owner.limit('BTC-USD', true, 40_000, 0.001) as OrderItem] });
    expectRefused(r, /^signer: .*small order/);
    expect(await state()).toBe(before);
  });

  it('a real account cannot add a small-order agent wallet, so the forged agent never acts for it', async () => {
    const before = await state();
    expectRefused(
      await send(venue, owner.key, owner.account, { type: 'agentWalletCreation', agent: IDENTITY_KEY, delete: false }),
      /^action\.agent: .*small order/,
    );
    expect(venue.engine.agents(owner.account)).toEqual([]);
    const r = await send(venue, forger(IDENTITY_KEY), owner.account, { type: 'order', orders: [owner.limit('BTC-USD', true, 40_000, 0.001) as OrderItem] });
    expectRefused(r, /^signer: /);
    expect(await state()).toBe(before);
  });

  it('a real key signing with a small-order R or an S of L or more: bad signature (HTTP 200, status error)', async () => {
    const before = await state();
    const tamper = (f: (sig: Uint8Array) => void): MessageSigner => ({
      publicKey: owner.key.publicKey,
      sign: (m) => {
        const sig = owner.key.sign(m);
        f(sig);
        return sig;
      },
    });
    const order: Action = { type: 'order', orders: [owner.limit('BTC-USD', true, 40_000, 0.001) as OrderItem] };
    for (const f of [(sig: Uint8Array) => sig.set(IDENTITY), (sig: Uint8Array) => (sig[63] = 0xff)]) {
      const r = await send(venue, tamper(f), owner.account, order);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ status: 'error', response: { type: 'order', data: { statuses: [{ error: { message: 'bad signature' } }] } } });
    }
    expect(await state()).toBe(before);
  });

  it('an oracle price forged with a small-order signer gets 400; the mark is unchanged', async () => {
    const before = await state();
    const r = await send(venue, forger(IDENTITY_KEY), IDENTITY_KEY, { type: 'oracle', prices: [{ timestamp: nonce, symbol: 'BTC-USD', price: 1 }] });
    expectRefused(r, /^(account|signer): .*small order/);
    expect(await state()).toBe(before);
  });

  it('a small-order oracle key is refused by the venue config (naming the key) and by startVenue', async () => {
    for (const e of SMALL_ORDER_ENCODINGS) {
      const key = bs58.encode(e.bytes);
      expect(() => parse(venueConfigSchema, { oracleKeys: [oracleKey.publicKey, key] })).toThrow(/^oracleKeys\[1\]: .*(small order|non-canonical)/);
      await expect(quietVenue({ oracleKeys: [key] })).rejects.toThrow(/^oracleKeys\[0\]: /);
    }
    expect(() => parse(venueConfigSchema, { oracleKeys: [bs58.encode(new Uint8Array(32).fill(2))] })).toThrow(/^oracleKeys\[0\]: .*not a point/);
    expect(parse(venueConfigSchema, { oracleKeys: [oracleKey.publicKey] }).oracleKeys).toEqual([oracleKey.publicKey]);
  });

  it('an honest oracle key, account and agent still work', async () => {
    const agentKey = Keypair.generate();
    const add = await owner.send({ type: 'agentWalletCreation', agent: agentKey.publicKey, delete: false });
    expect(add.body.status).toBe('ok');
    const placed = await new Trader(venue, agentKey, owner.account).orders(owner.limit('BTC-USD', true, 40_000, 0.001));
    expect(Object.keys(placed.body.response.data.statuses[0])).toEqual(['resting']);
    const mark = await new Trader(venue, oracleKey).send({ type: 'oracle', prices: [{ timestamp: nonce, symbol: 'BTC-USD', price: 50_000 }] });
    expect(mark.body.status).toBe('ok');
    expect(venue.engine.marketState('BTC-USD')!.oraclePrice).toBe(50_000);
  });
});
