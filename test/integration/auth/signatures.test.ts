// Authentication suite, signatures (issue 20), over real HTTP against the local venue, which speaks the v1 dialect only
// (docs/protocol.md; the current dialect has no local venue, so its signatures appear here only as bytes a v1 venue must
// refuse): forged signatures, valid signatures over other bytes, wrong signers, batches changed after signing, malleable and
// non-canonical signatures, small-order keys on every endpoint. Each is refused (gaps-decided §4: 200 `bad signature`,
// or 400 naming the field for a key that is not a strict public key), nothing changes, and the genuine request's nonce
// stays usable. Already covered elsewhere, not repeated: a tampered size, one changed signature character and a swapped
// signer on /order (venue/http.test.ts); small-order account, signer, agent and oracle keys with the fixed signature, a
// small-order R and an S of 2^255 or more (venue/auth-keys.test.ts); the strict checks themselves (unit/protocol/strict-keys).
import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeAction } from '../../../src/app/commands/actions.js';
import { base58Encode } from '../../../src/protocol/base58.js';
import { codecFor } from '../../../src/protocol/codecs.js';
import { GROUP_ORDER, littleEndian, secretScalar } from '../../../src/protocol/ed25519-scalar.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { signRequest } from '../../../src/protocol/sign.js';
import type { Action, ActionType, OrderItem } from '../../../src/protocol/v1/actions.js';
import type { Venue } from '../../../src/venue-sim/server/index.js';
import { FIELD_PRIME, FIXED_SIGNATURE, le32, SMALL_ORDER_ENCODINGS } from '../../support/small-order-keys.js';
import { Trader } from '../venue/harness.js';
import { applied, reportAuth, authVenue, badRequest, messageOf, refusal, send, signed, venueState, type RawRequest, type Signs } from './support.js';

afterAll(() => reportAuth('signatures'));

const oracleKey = Keypair.generate();
let venue: Venue;
let owner: Trader;
let agent: Keypair;
/** Every request of this file draws its nonce from one clock-based source (a signer's nonces must rise, gaps-decided §3). */
const next = () => owner.nonces.next();

beforeAll(async () => {
  venue = await authVenue({ seed: 20, oracleKeys: [oracleKey.publicKey] });
  owner = new Trader(venue);
  agent = Keypair.generate();
  expect(applied(await owner.faucet(100_000))).toBe(true);
  expect(applied(await owner.send({ type: 'agentWalletCreation', agent: agent.publicKey, delete: false }))).toBe(true);
  expect(applied(await owner.orders(owner.limit('ETH-USD', true, 1000, 0.1)))).toBe(true);
  const price = { type: 'oracle', prices: [{ timestamp: BigInt(Date.now()) * 1_000_000n, symbol: 'BTC-USD', price: 50_000 }] } as Action;
  expect(applied(await send(venue, signed(oracleKey, price, next())))).toBe(true);
});
afterAll(() => venue.close());

const state = () => venueState(venue, [owner.account, agent.publicKey, oracleKey.publicKey]);

const order = (...items: OrderItem[]): Action => ({ type: 'order', orders: items });
const limit = (px: number, sz: number, b = true) => owner.limit('BTC-USD', b, px, sz) as OrderItem;

/**
 * Sends every variant (each must be refused with `bad signature`, changing nothing), then the genuine request (applied),
 * then the genuine request again (`nonce already used`): a refused variant never burns the genuine nonce.
 */
async function refusedThenGenuine(genuine: RawRequest, variants: [string, RawRequest][]): Promise<void> {
  const before = state();
  for (const [name, v] of variants) {
    expect(refusal(await send(venue, v), v.action.type), name).toBe('bad signature');
    expect(state(), name).toBe(before);
  }
  expect(applied(await send(venue, genuine)), 'the genuine request after its refused variants').toBe(true);
  expect(refusal(await send(venue, genuine), genuine.action.type)).toBe('nonce already used');
}

describe('auth (v1): forged signatures and wrong signers', () => {
  it('random, all-zero, all-0xff and fixed signatures, and an attacker signing the exact bytes with its own key', async () => {
    const g = signed(owner.key, order(limit(40_000, 0.001)), next());
    const attacker = Keypair.generate();
    const bytes = (b: Uint8Array) => ({ ...g, signature: base58Encode(b) });
    await refusedThenGenuine(g, [
      ...Array.from({ length: 8 }, (_, i): [string, RawRequest] => [`random ${i}`, bytes(randomBytes(64))]),
      ['all zero', bytes(new Uint8Array(64))],
      ['all 0xff', bytes(new Uint8Array(64).fill(0xff))],
      ['identity R, S = 0 (verifies only for a small-order key)', bytes(FIXED_SIGNATURE)],
      ['the attacker signs the same bytes', { ...g, signature: attacker.signBase58(messageOf(g.action, g.nonce, g.account, g.signer)) }],
      ['the signature of another request of the owner', { ...g, signature: signed(owner.key, order(limit(40_000, 0.002)), next()).signature }],
    ]);
  });

  it("a registered agent's signature under the owner's name, and the owner's under the agent's", async () => {
    const byOwner = signed(owner.key, order(limit(40_001, 0.001)), next());
    const byAgent = signed(agent, order(limit(40_002, 0.001)), next(), owner.account);
    await refusedThenGenuine(byOwner, [
      ['agent signs, claims the owner', { ...byOwner, signature: agent.signBase58(messageOf(byOwner.action, byOwner.nonce, owner.account, owner.account)) }],
    ]);
    await refusedThenGenuine(byAgent, [
      [
        'owner signs, claims the agent',
        { ...byAgent, signature: owner.key.signBase58(messageOf(byAgent.action, byAgent.nonce, owner.account, agent.publicKey)) },
      ],
      ["the agent's signature, signer field the owner", { ...byAgent, signer: owner.account }],
    ]);
  });

  it('the oracle key signing, with the signer field naming another key (and the reverse)', async () => {
    const price = { type: 'oracle', prices: [{ timestamp: BigInt(Date.now()) * 1_000_000n, symbol: 'BTC-USD', price: 50_100 }] } as Action;
    const g = signed(oracleKey, price, next());
    await refusedThenGenuine(g, [
      ['signed by the oracle key, signer field the owner', { ...g, signer: owner.account, account: owner.account }],
      ['signed by the owner, signer field the oracle key', { ...g, signature: owner.key.signBase58(messageOf(price, g.nonce, g.account, g.signer)) }],
    ]);
    expect(venue.engine.marketState('BTC-USD')!.oraclePrice).toBe(50_100);
  });
});

describe('auth (v1): valid signatures over other bytes', () => {
  it('over another nonce, account, action, discriminant, or the message without its account and signer', async () => {
    const action = order(limit(40_010, 0.001));
    const g = signed(owner.key, action, next());
    const m = messageOf(action, g.nonce, g.account, g.signer);
    const sig = (bytes: Uint8Array) => ({ ...g, signature: owner.key.signBase58(bytes) });
    const otherDiscriminant = Uint8Array.from(m);
    otherDiscriminant[0] = 3;
    await refusedThenGenuine(g, [
      ['signed with nonce + 1', sig(messageOf(action, g.nonce + 1n, g.account, g.signer))],
      ['signed for the agent as account', sig(messageOf(action, g.nonce, agent.publicKey, g.signer))],
      ['a faucet signed with the same nonce', sig(messageOf({ type: 'faucet', user: owner.account, amount: 1 }, g.nonce, g.account, g.signer))],
      ['the same body under another action discriminant', sig(otherDiscriminant)],
      ['the message without account and signer', sig(m.subarray(0, m.length - 64))],
      ['the message and one more byte', sig(Uint8Array.of(...m, 0))],
      [
        'the JSON body text',
        sig(new TextEncoder().encode(JSON.stringify({ action: { ...action, nonce: String(g.nonce) }, account: g.account, signer: g.signer }))),
      ],
      ['the base58 text of the message (a wallet mode v1 does not have)', sig(new TextEncoder().encode(base58Encode(m)))],
    ]);
  });

  it("the same order signed in the current dialect's bytes (raw, base58 and offchain wallet modes, every network)", async () => {
    const spec = { symbol: 'BTC-USD', side: 'buy' as const, size: 0.001, price: 40_020, tif: 'GTC' as const, reduceOnly: false };
    const action = placeAction('v1', spec, undefined) as Action;
    const g = signed(owner.key, action, next());
    const current = (mode: 'raw' | 'base58' | 'offchain', network: 'mainnet' | 'testnet' | 'devnet') =>
      signRequest(codecFor('current'), owner.key, {
        actions: placeAction('current', spec, undefined),
        account: g.account,
        signer: g.signer,
        nonce: g.nonce,
        network,
        mode,
      });
    const variants: [string, RawRequest][] = [];
    for (const mode of ['raw', 'base58', 'offchain'] as const) {
      for (const network of ['mainnet', 'testnet', 'devnet'] as const)
        variants.push([`current ${mode} ${network}`, { ...g, signature: current(mode, network).signature }]);
    }
    await refusedThenGenuine(g, variants);
  });
});

describe('auth (v1): batches changed after signing', () => {
  it('an order batch with an item added, removed, reordered or edited in any field', async () => {
    const cloid = Keypair.generate().publicKey;
    const a = limit(40_030, 0.001);
    const b = { order: { ...owner.limit('BTC-USD', true, 40_031, 0.002).order, cloid } } as OrderItem;
    const c = { cancelAll: { c: ['SOL-USD'] } } as OrderItem;
    const g = signed(owner.key, order(a, b, c), next());
    const edit = (i: number, over: Record<string, unknown>): RawRequest => {
      const items = [a, b, c].map((x) => structuredClone(x)) as any[];
      items[i].order = { ...items[i].order, ...over };
      return { ...g, action: order(...items) };
    };
    const withItems = (...items: OrderItem[]): RawRequest => ({ ...g, action: order(...items) });
    await refusedThenGenuine(g, [
      ['an item added', withItems(a, b, c, limit(40_032, 0.001))],
      ['an item added in front', withItems(limit(1, 0.001), a, b, c)],
      ['the last item removed', withItems(a, b)],
      ['the first item removed', withItems(b, c)],
      ['two items swapped', withItems(b, a, c)],
      ['a cancelAll turned into a cancel of everything', withItems(a, b, { cancelAll: { c: [] } } as OrderItem)],
      ['the symbol of the cancelAll', withItems(a, b, { cancelAll: { c: ['ETH-USD'] } } as OrderItem)],
      ['price', edit(0, { px: 40_030.1 })],
      ['size', edit(0, { sz: 0.0011 })],
      ['side', edit(0, { b: false })],
      ['reduce-only', edit(0, { r: true })],
      ['time in force', edit(0, { t: { limit: { tif: 'IOC' } } })],
      ['order type', edit(0, { t: { trigger: { is_market: false, triggerPx: 40_030 } } })],
      ['symbol', edit(0, { c: 'ETH-USD' })],
      ['cloid added', edit(0, { cloid })],
      ['cloid removed', edit(1, { cloid: undefined })],
      ['cloid changed', edit(1, { cloid: Keypair.generate().publicKey })],
    ]);
    const open = venue.engine.openOrders(owner.account).filter((o) => o.symbol === 'BTC-USD');
    expect(open.map((o) => [o.price, o.originalSize])).toEqual(
      expect.arrayContaining([
        [40_030, 0.001],
        [40_031, 0.002],
      ]),
    );
  });

  it('a cancel with another order id, and leverage, agent, faucet and oracle actions edited', async () => {
    const resting = await owner.orders(limit(39_000, 0.001), limit(39_001, 0.001));
    const [keep, other] = resting.orderIds as string[];
    const cancel = signed(owner.key, order({ cancel: { c: 'BTC-USD', oid: keep! } } as OrderItem), next());
    await refusedThenGenuine(cancel, [['the other order id', { ...cancel, action: order({ cancel: { c: 'BTC-USD', oid: other! } } as OrderItem) }]]);
    expect(venue.engine.openOrders(owner.account).map((o) => o.orderId)).toContain(other);

    const leverage = signed(
      owner.key,
      {
        type: 'updateUserSettings',
        settings: {
          m: [
            ['BTC-USD', 3],
            ['ETH-USD', 2],
          ],
        },
      } as Action,
      next(),
    );
    await refusedThenGenuine(leverage, [
      [
        'a leverage raised',
        {
          ...leverage,
          action: {
            type: 'updateUserSettings',
            settings: {
              m: [
                ['BTC-USD', 30],
                ['ETH-USD', 2],
              ],
            },
          } as Action,
        },
      ],
      [
        'the entries swapped',
        {
          ...leverage,
          action: {
            type: 'updateUserSettings',
            settings: {
              m: [
                ['ETH-USD', 2],
                ['BTC-USD', 3],
              ],
            },
          } as Action,
        },
      ],
      ['an entry dropped', { ...leverage, action: { type: 'updateUserSettings', settings: { m: [['BTC-USD', 3]] } } as Action }],
    ]);

    const newAgent = Keypair.generate().publicKey;
    const remove = signed(owner.key, { type: 'agentWalletCreation', agent: newAgent, delete: false } as Action, next());
    await refusedThenGenuine(remove, [
      ['delete flipped', { ...remove, action: { type: 'agentWalletCreation', agent: newAgent, delete: true } as Action }],
      ['another agent', { ...remove, action: { type: 'agentWalletCreation', agent: Keypair.generate().publicKey, delete: false } as Action }],
      ['the agent already registered removed instead', { ...remove, action: { type: 'agentWalletCreation', agent: agent.publicKey, delete: true } as Action }],
    ]);
    expect(venue.engine.agents(owner.account).sort()).toEqual([agent.publicKey, newAgent].sort());

    const faucet = signed(owner.key, { type: 'faucet', user: owner.account, amount: 10 } as Action, next());
    await refusedThenGenuine(faucet, [
      ['a larger amount', { ...faucet, action: { type: 'faucet', user: owner.account, amount: 1_000_000 } as Action }],
      ['no amount (the default)', { ...faucet, action: { type: 'faucet', user: owner.account } as Action }],
      ['another user', { ...faucet, action: { type: 'faucet', user: agent.publicKey, amount: 10 } as Action }],
    ]);

    const ts = BigInt(Date.now()) * 1_000_000n;
    const oracle = signed(oracleKey, { type: 'oracle', prices: [{ timestamp: ts, symbol: 'BTC-USD', price: 50_200 }] } as Action, next());
    await refusedThenGenuine(oracle, [
      ['another price', { ...oracle, action: { type: 'oracle', prices: [{ timestamp: ts, symbol: 'BTC-USD', price: 60_000 }] } as Action }],
      ['another timestamp', { ...oracle, action: { type: 'oracle', prices: [{ timestamp: ts + 1n, symbol: 'BTC-USD', price: 50_200 }] } as Action }],
      [
        'a price added',
        {
          ...oracle,
          action: {
            type: 'oracle',
            prices: [
              { timestamp: ts, symbol: 'BTC-USD', price: 50_200 },
              { timestamp: ts, symbol: 'ETH-USD', price: 1 },
            ],
          } as Action,
        },
      ],
    ]);
    expect(venue.engine.marketState('BTC-USD')!.oraclePrice).toBe(50_200);
  });
});

// Ed25519 by hand (RFC 8032), to build signatures a lenient verifier accepts for the owner's key.
const sha512 = (...parts: Uint8Array[]) => new Uint8Array(createHash('sha512').update(Buffer.concat(parts)).digest());
const modL = (bytes: Uint8Array) => littleEndian(bytes) % GROUP_ORDER;

/** R ‖ S with S = r + H(R ‖ A ‖ M)·a (mod L, or as given): the signature equation for the commitment bytes `rBytes`. */
function signWithCommitment(seed: Uint8Array, publicKey: Uint8Array, message: Uint8Array, rBytes: Uint8Array, r: bigint): { sig: Uint8Array; s: bigint } {
  const a = secretScalar(sha512(seed));
  const s = (r + modL(sha512(rBytes, publicKey, message)) * a) % GROUP_ORDER;
  return { sig: Uint8Array.of(...rBytes, ...le32(s)), s };
}

describe('auth (v1): malleable and non-canonical signatures of the real key', () => {
  it('S + L, S + kL, an identity R (canonical and non-canonical encodings), an order-8 R and a mixed-order R are refused', async () => {
    const seed = new Uint8Array(randomBytes(32));
    const key = Keypair.fromBytes(seed);
    expect(applied(await send(venue, signed(key, { type: 'faucet', user: key.publicKey, amount: 1_000 }, next())))).toBe(true);
    const g = signed(key, order(owner.limit('BTC-USD', true, 40_040, 0.001) as OrderItem), next());
    const m = messageOf(g.action, g.nonce, g.account, g.signer);
    const honest = bs58.decode(g.signature);
    const s = littleEndian(honest.slice(32));
    const withS = (v: bigint) => Uint8Array.of(...honest.slice(0, 32), ...le32(v));
    const kMax = (2n ** 256n - 1n - s) / GROUP_ORDER;
    const order8 = SMALL_ORDER_ENCODINGS.find((e) => e.canonical && e.name.startsWith('1·T8'))!.bytes;
    const identityAliases = [le32(1n), le32(1n + FIELD_PRIME), Uint8Array.of(1, ...new Uint8Array(30), 0x80)];
    const r = modL(randomBytes(64));
    const mixedR = ed.Point.BASE.multiply(r).add(ed.Point.fromBytes(order8)).toBytes();

    const lenient: [string, Uint8Array][] = [
      ...identityAliases.map((rBytes, i): [string, Uint8Array] => [
        `identity R #${i}, S = H·a`,
        signWithCommitment(seed, key.publicKeyBytes, m, rBytes, 0n).sig,
      ]),
      ['order-8 R, S = H·a', signWithCommitment(seed, key.publicKeyBytes, m, order8, 0n).sig],
      ['R = rB + T8, S = r + H·a', signWithCommitment(seed, key.publicKeyBytes, m, mixedR, r).sig],
    ];
    // Each forgery is real: a ZIP-215 (cofactored, lenient) verifier accepts it for this key and message.
    for (const [name, sig] of lenient) expect(await ed.verifyAsync(sig, m, key.publicKeyBytes, { zip215: true }), name).toBe(true);
    expect(await ed.verifyAsync(honest, m, key.publicKeyBytes, { zip215: false })).toBe(true);
    const sig = (b: Uint8Array): RawRequest => ({ ...g, signature: base58Encode(b) });
    await refusedThenGenuine(g, [
      ['S + L', sig(withS(s + GROUP_ORDER))],
      [`S + ${kMax}L`, sig(withS(s + kMax * GROUP_ORDER))],
      ['S = L', sig(withS(GROUP_ORDER))],
      ...lenient.map(([name, b]): [string, RawRequest] => [name, sig(b)]),
    ]);
  });
});

describe('auth (v1): small-order keys on every endpoint', () => {
  const actionFor = (type: ActionType, key: string): Action =>
    ({
      order: order(limit(40_050, 0.001)),
      oracle: { type: 'oracle', prices: [{ timestamp: BigInt(Date.now()) * 1_000_000n, symbol: 'BTC-USD', price: 1 }] },
      faucet: { type: 'faucet', user: key, amount: 1 },
      updateUserSettings: { type: 'updateUserSettings', settings: { m: [['BTC-USD', 50]] } },
      agentWalletCreation: { type: 'agentWalletCreation', agent: Keypair.generate().publicKey, delete: false },
    })[type] as Action;

  it('as signer (for the real account or itself) with the fixed signature: 400 naming the field, nothing applied', async () => {
    const before = state();
    let requests = 0;
    for (const e of SMALL_ORDER_ENCODINGS) {
      const key = bs58.encode(e.bytes);
      const forger: Signs = { publicKey: key, sign: () => FIXED_SIGNATURE };
      for (const type of ['order', 'oracle', 'faucet', 'updateUserSettings', 'agentWalletCreation'] as const) {
        for (const account of [owner.account, key]) {
          const r = await send(venue, signed(forger, actionFor(type, key), next(), account));
          expect(badRequest(r), `${type} ${e.name} for ${account === key ? 'itself' : 'the owner'}`).toMatch(
            /^(account|signer|action\.user): .*(small order|non-canonical)/,
          );
          requests++;
        }
      }
    }
    expect(requests).toBe(SMALL_ORDER_ENCODINGS.length * 10);
    expect(state()).toBe(before);
  });
});
