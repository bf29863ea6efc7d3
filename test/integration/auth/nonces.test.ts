// Authentication suite, replays and nonces (issue 20), over real HTTP against the local venue (v1, the only dialect it
// speaks), under the nonce rules of gaps-decided §3 (src/venue-sim/server/nonce-guard.ts): per signer, unused, above the
// smallest of the 100 highest accepted once 100 are kept, within 24 h of the venue clock. Replays (every action type, other JSON spellings
// of the same signed values, N copies at once), the window, and the 24 h bounds to the nanosecond on a manual venue
// clock. Refused: 200 with the reason; out of u64: 400 naming action.nonce; nothing applied either way. Already covered
// elsewhere: one sequential replay of an order and a nonce 2 days old (venue/http.test.ts), a new signer's crossing
// requests (venue/state-hardening.test.ts), the guard's rules in isolation (unit/venue-sim/server/nonce-guard.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Keypair } from '../../../src/protocol/keys.js';
import type { Action, ActionType, OrderItem } from '../../../src/protocol/v1/actions.js';
import type { Venue } from '../../../src/venue-sim/server/index.js';
import { post, Trader } from '../venue/harness.js';
import { applied, reportAuth, authVenue, badRequest, bodyOf, refusal, send, sendAtOnce, signed, venueState, type RawRequest } from './support.js';

afterAll(() => reportAuth('nonces'));

const DAY_NS = 86_400_000_000_000n;
const U64_MAX = 2n ** 64n - 1n;
const oracleKey = Keypair.generate();

describe('auth (v1): replays on the system clock', () => {
  let venue: Venue;
  let owner: Trader;
  const next = () => owner.nonces.next();
  beforeAll(async () => {
    venue = await authVenue({ seed: 22, oracleKeys: [oracleKey.publicKey] });
    owner = new Trader(venue);
    expect(applied(await send(venue, signed(owner.key, { type: 'faucet', user: owner.account, amount: 100_000 }, next())))).toBe(true);
  });
  afterAll(() => venue.close());

  const state = () => venueState(venue, [owner.account, oracleKey.publicKey]);
  const place = (px: number): Action => ({ type: 'order', orders: [owner.limit('BTC-USD', true, px, 0.001) as OrderItem] });

  it('every action type, replayed after it was applied: nonce already used, nothing applied twice', async () => {
    const agent = Keypair.generate().publicKey;
    const requests: RawRequest[] = [
      signed(owner.key, place(40_000), next()),
      signed(owner.key, { type: 'faucet', user: owner.account, amount: 7 }, next()),
      signed(owner.key, { type: 'updateUserSettings', settings: { m: [['BTC-USD', 4]] } }, next()),
      signed(owner.key, { type: 'agentWalletCreation', agent, delete: false }, next()),
      signed(oracleKey, { type: 'oracle', prices: [{ timestamp: BigInt(Date.now()) * 1_000_000n, symbol: 'BTC-USD', price: 40_000 }] }, next()),
      signed(owner.key, { type: 'agentWalletCreation', agent, delete: true }, next()),
      signed(owner.key, { type: 'order', orders: [{ cancelAll: { c: [] } }] }, next()),
    ];
    for (const r of requests) expect(applied(await send(venue, r)), r.action.type).toBe(true);
    const before = state();
    for (const r of requests) expect(refusal(await send(venue, r), r.action.type), r.action.type).toBe('nonce already used');
    expect(state()).toBe(before);
  });

  it("the owner's agent registration replayed after the agent's removal does not bring it back", async () => {
    const agent = Keypair.generate();
    const add = signed(owner.key, { type: 'agentWalletCreation', agent: agent.publicKey, delete: false }, next());
    expect(applied(await send(venue, add))).toBe(true);
    expect(applied(await send(venue, signed(owner.key, { type: 'agentWalletCreation', agent: agent.publicKey, delete: true }, next())))).toBe(true);
    expect(refusal(await send(venue, add), 'agentWalletCreation')).toBe('nonce already used');
    expect(venue.engine.isAuthorized(owner.account, agent.publicKey)).toBe(false);
  });

  it('the same signed values in other JSON spellings are the same request: refused as replays', async () => {
    const r = signed(owner.key, place(40_001), next());
    expect(applied(await send(venue, r))).toBe(true);
    const before = state();
    const text = bodyOf(r);
    const spellings: [string, string, 'replay' | 'replay or 400'][] = [
      ['nonce as a decimal string', text.replace(/"nonce":(\d+)/, '"nonce":"$1"'), 'replay'],
      [
        'keys reordered, indented',
        JSON.stringify({ signature: r.signature, signer: r.signer, account: r.account, action: { ...r.action, nonce: String(r.nonce) } }, null, 2),
        'replay',
      ],
      ['price written 4.0001e4', text.replace('"px":40001', '"px":4.0001e4'), 'replay'],
      ['nonce as a string with leading zeros', text.replace(/"nonce":(\d+)/, '"nonce":"000$1"'), 'replay or 400'],
    ];
    for (const [name, body, expected] of spellings) {
      const reply = await post(venue, '/order', body);
      if (expected === 'replay or 400' && reply.status === 400) expect(badRequest(reply), name).toMatch(/^action\.nonce: /);
      else expect(refusal(reply, 'order'), name).toBe('nonce already used');
    }
    expect(state()).toBe(before);
  });

  it.each([
    ['an order', () => place(40_002), 'order'],
    ['a faucet', () => ({ type: 'faucet', user: owner.account, amount: 11 }) as Action, 'faucet'],
    ['a leverage change', () => ({ type: 'updateUserSettings', settings: { m: [['ETH-USD', 7]] } }) as Action, 'updateUserSettings'],
  ] as [string, () => Action, ActionType][])('32 copies of %s sent at once: exactly one applied, 31 nonce already used', async (_name, action, type) => {
    const balance = () => venue.engine.marginSummary(owner.account).totalBalance;
    const [slot, openBefore, balanceBefore] = [venue.engine.slot, venue.engine.openOrders(owner.account).length, balance()];
    const r = signed(owner.key, action(), next());
    const replies = await sendAtOnce(venue, Array(32).fill(r));
    expect(replies.filter(applied)).toHaveLength(1);
    expect(replies.filter((x) => !applied(x)).map((x) => refusal(x, type))).toEqual(Array(31).fill('nonce already used'));
    expect(venue.engine.slot).toBe(slot + 1);
    if (type === 'order') expect(venue.engine.openOrders(owner.account).length).toBe(openBefore + 1);
    if (type === 'faucet') expect(balance()).toBe(balanceBefore + 11);
  });

  it('a genuine request raced by 31 tampered copies with its nonce: only the genuine one is applied', async () => {
    const r = signed(owner.key, { type: 'faucet', user: owner.account, amount: 3 }, next());
    const balance = venue.engine.marginSummary(owner.account).totalBalance;
    const tampered = Array.from({ length: 31 }, (_, i): RawRequest => ({ ...r, action: { type: 'faucet', user: owner.account, amount: 1_000 + i } }));
    const replies = await sendAtOnce(venue, [...tampered, r]);
    expect(replies.slice(0, 31).map((x) => refusal(x, 'faucet'))).toEqual(Array(31).fill('bad signature'));
    expect(applied(replies[31]!)).toBe(true);
    expect(venue.engine.marginSummary(owner.account).totalBalance).toBe(balance + 3);
  });

  it('a request held back while 100 newer ones were accepted is stale when it arrives (the window)', async () => {
    const held = signed(owner.key, { type: 'faucet', user: owner.account, amount: 1 }, next());
    const first = signed(owner.key, { type: 'faucet', user: owner.account, amount: 1 }, next());
    expect(applied(await send(venue, first))).toBe(true);
    for (let i = 0; i < 100; i++) expect(applied(await send(venue, signed(owner.key, { type: 'faucet', user: owner.account, amount: 1 }, next())))).toBe(true);
    const before = state();
    expect(refusal(await send(venue, held), 'faucet')).toMatch(/^stale nonce: not above the smallest of the 100 highest accepted nonces/);
    // The first of them left the window: its replay is refused all the same.
    expect(refusal(await send(venue, first), 'faucet')).toMatch(/^stale nonce|^nonce already used/);
    expect(state()).toBe(before);
  });

  it('a venue restarted with its state remembers the nonces: a request applied before the restart is a replay after it', async () => {
    const r = signed(owner.key, { type: 'faucet', user: owner.account, amount: 4 }, next());
    expect(applied(await send(venue, r))).toBe(true);
    const port = venue.port;
    await venue.close();
    venue = await authVenue({ port, resume: venue, oracleKeys: [oracleKey.publicKey] });
    const before = state();
    expect(refusal(await send(venue, r), 'faucet')).toBe('nonce already used');
    expect(state()).toBe(before);
  });

  it('nonces are per signer: the same nonce from two signers is applied for each', async () => {
    const n = next();
    const agent = Keypair.generate();
    expect(applied(await send(venue, signed(agent, { type: 'faucet', user: agent.publicKey, amount: 2 }, n)))).toBe(true);
    expect(applied(await send(venue, signed(owner.key, { type: 'faucet', user: owner.account, amount: 2 }, n)))).toBe(true);
  });
});

describe('auth (v1): stale and future nonces on a manual venue clock', () => {
  const NOW = 1_800_000_000_000_000_000n;
  const clock = new ManualClock(NOW);
  let venue: Venue;
  let key: Keypair;
  beforeAll(async () => {
    venue = await authVenue({ seed: 23, clock });
    key = Keypair.generate();
  });
  afterAll(() => venue.close());

  const faucet = (n: bigint, amount = 1): RawRequest => signed(key, { type: 'faucet', user: key.publicKey, amount }, n);
  const state = () => venueState(venue, [key.publicKey]);

  it('more than 24 h either side of the venue clock is stale; 24 h exactly is accepted', async () => {
    const before = state();
    for (const n of [NOW - DAY_NS - 1n, NOW + DAY_NS + 1n, 0n, 1n, U64_MAX, NOW + 365n * DAY_NS]) {
      expect(refusal(await send(venue, faucet(n)), 'faucet'), String(n)).toBe('stale nonce: more than 24 hours from the venue clock');
    }
    expect(state()).toBe(before);
    // A first nonce 24 h behind the clock is accepted; afterwards one 24 h ahead still is (the floor is below it).
    expect(applied(await send(venue, faucet(NOW - DAY_NS)))).toBe(true);
    expect(applied(await send(venue, faucet(NOW + DAY_NS)))).toBe(true);
    expect(venue.engine.marginSummary(key.publicKey).totalBalance).toBe(2);
  });

  it('a nonce beyond u64, negative or fractional is a 400 naming action.nonce', async () => {
    const before = state();
    const base = JSON.parse(bodyOf(faucet(NOW)).replace(/"nonce":\d+/, '"nonce":"0"'));
    for (const nonceJson of [String(U64_MAX + 1n), `"${U64_MAX + 1n}"`, '-1', '"-1"', '1.5', '1e400', 'null', '"0x10"']) {
      const r = await post(venue, '/private/faucet', JSON.stringify(base).replace('"nonce":"0"', `"nonce":${nonceJson}`));
      expect(badRequest(r), nonceJson).toMatch(/^action\.nonce: /);
    }
    expect(state()).toBe(before);
  });

  it('an applied request replayed after the clock moved on by more than 24 h is stale, and a replay at once is a reuse', async () => {
    const r = faucet(NOW + 5n, 5);
    expect(applied(await send(venue, r))).toBe(true);
    const before = state();
    expect(refusal(await send(venue, r), 'faucet')).toBe('nonce already used');
    clock.set(NOW + 5n + DAY_NS + 1n);
    expect(refusal(await send(venue, r), 'faucet')).toBe('stale nonce: more than 24 hours from the venue clock');
    expect(state()).toBe(before);
  });
});
