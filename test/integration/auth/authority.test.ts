// Authentication suite, authority (issue 20), over real HTTP against the local venue (v1, the only dialect it speaks):
// honestly signed requests from keys that may not act: unregistered and removed agents, agents acting for another
// account or managing agents, oracle actions from keys other than the configured oracle key. Each gets 200
// `unauthorized signer` (gaps-decided §3/§4) and changes nothing. Already covered elsewhere: an agent before it is added
// and after it is removed placing an order, an agent adding an agent, a non-oracle key sending one oracle action
// (venue/http.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringifyJson } from '../../../src/core/json.js';
import { Keypair } from '../../../src/protocol/keys.js';
import type { Action, ActionType } from '../../../src/protocol/v1/actions.js';
import type { Venue } from '../../../src/venue-sim/server/index.js';
import { Trader } from '../venue/harness.js';
import { applied, reportAuth, authVenue, refusal, send, signed, venueState, type Signs } from './support.js';

afterAll(() => reportAuth('authority'));

const oracleKey = Keypair.generate();
let venue: Venue;
let owner: Trader;
let other: Trader;
const next = () => owner.nonces.next();

beforeAll(async () => {
  venue = await authVenue({ seed: 21, oracleKeys: [oracleKey.publicKey] });
  owner = new Trader(venue);
  other = new Trader(venue);
  for (const t of [owner, other]) expect(applied(await send(venue, signed(t.key, { type: 'faucet', user: t.account, amount: 50_000 }, next())))).toBe(true);
});
afterAll(() => venue.close());

const ts = () => BigInt(Date.now()) * 1_000_000n;
/** One action of each type a signer might try for `account`. */
const everyAction = (account: string): [ActionType, Action][] => [
  ['order', { type: 'order', orders: [{ order: { c: 'BTC-USD', b: true, px: 40_000, sz: 0.001, r: false, t: { limit: { tif: 'GTC' } } } }] }],
  ['order', { type: 'order', orders: [{ cancelAll: { c: [] } }] }],
  ['updateUserSettings', { type: 'updateUserSettings', settings: { m: [['BTC-USD', 50]] } }],
  ['agentWalletCreation', { type: 'agentWalletCreation', agent: Keypair.generate().publicKey, delete: false }],
  ['faucet', { type: 'faucet', user: account, amount: 5 }],
  ['oracle', { type: 'oracle', prices: [{ timestamp: ts(), symbol: 'BTC-USD', price: 40_000 }] }],
];

async function registerAgent(of: Trader, key: Keypair, remove = false): Promise<void> {
  expect(applied(await send(venue, signed(of.key, { type: 'agentWalletCreation', agent: key.publicKey, delete: remove }, next())))).toBe(true);
}

/** Sends every action type signed by `key` for `account`; each must be refused as `unauthorized signer`, changing nothing. */
async function expectNoAuthority(key: Signs, account: string, watched: string[], label: string): Promise<void> {
  const before = venueState(venue, watched);
  for (const [type, action] of everyAction(account)) {
    expect(refusal(await send(venue, signed(key, action, next(), account)), type), `${label}: ${type} ${stringifyJson(action).slice(0, 60)}`).toBe(
      'unauthorized signer',
    );
  }
  expect(venueState(venue, watched), label).toBe(before);
}

describe('auth (v1): keys without authority for the account', () => {
  it('an unregistered key, on every endpoint', async () => {
    const stranger = Keypair.generate();
    await expectNoAuthority(stranger, owner.account, [owner.account, stranger.publicKey], 'stranger');
  });

  it("an agent of one account acting for another account; the other account's own key is not its agent either", async () => {
    const agent = Keypair.generate();
    await registerAgent(owner, agent);
    await expectNoAuthority(agent, other.account, [owner.account, other.account], "owner's agent for other");
    await expectNoAuthority(owner.key, other.account, [owner.account, other.account], 'owner for other');
  });

  it('a removed agent, with requests signed before and after its removal', async () => {
    const agent = Keypair.generate();
    await registerAgent(owner, agent);
    const place = signed(agent, everyAction(owner.account)[0]![1], next(), owner.account);
    const signedEarly = signed(
      agent,
      { type: 'order', orders: [{ order: { c: 'ETH-USD', b: true, px: 1000, sz: 0.1, r: false, t: { limit: { tif: 'GTC' } } } }] },
      next(),
      owner.account,
    );
    expect(applied(await send(venue, place))).toBe(true);
    await registerAgent(owner, agent, true);
    expect(venue.engine.isAuthorized(owner.account, agent.publicKey)).toBe(false);
    const before = venueState(venue, [owner.account, agent.publicKey]);
    expect(refusal(await send(venue, signedEarly), 'order')).toBe('unauthorized signer');
    expect(venueState(venue, [owner.account, agent.publicKey])).toBe(before);
    await expectNoAuthority(agent, owner.account, [owner.account, agent.publicKey], 'removed agent');
    // Added again, what it signed while removed and never got applied is its own business again: applied once.
    await registerAgent(owner, agent);
    expect(applied(await send(venue, signedEarly))).toBe(true);
    expect(refusal(await send(venue, signedEarly), 'order')).toBe('nonce already used');
  });
});

describe('auth (v1): agents managing agents', () => {
  it('an agent cannot add, remove or re-add agents of its account, itself included', async () => {
    const boss = new Trader(venue);
    const [agent, sibling, newcomer] = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
    await registerAgent(boss, agent);
    await registerAgent(boss, sibling);
    const watched = [boss.account, agent.publicKey, sibling.publicKey, newcomer.publicKey];
    const before = venueState(venue, watched);
    const tries: [string, Keypair, boolean][] = [
      ['add a newcomer', newcomer, false],
      ['remove a sibling agent', sibling, true],
      ['remove itself', agent, true],
      ['add the owner key', boss.key, false],
    ];
    for (const [label, target, remove] of tries) {
      const r = await send(venue, signed(agent, { type: 'agentWalletCreation', agent: target.publicKey, delete: remove }, next(), boss.account));
      expect(refusal(r, 'agentWalletCreation'), label).toBe('unauthorized signer');
    }
    expect(venueState(venue, watched)).toBe(before);
    expect(venue.engine.agents(boss.account).sort()).toEqual([agent.publicKey, sibling.publicKey].sort());

    await registerAgent(boss, agent, true);
    const readd = await send(venue, signed(agent, { type: 'agentWalletCreation', agent: agent.publicKey, delete: false }, next(), boss.account));
    expect(refusal(readd, 'agentWalletCreation'), 'a removed agent adding itself back').toBe('unauthorized signer');
    const bySibling = await send(venue, signed(sibling, { type: 'agentWalletCreation', agent: agent.publicKey, delete: false }, next(), boss.account));
    expect(refusal(bySibling, 'agentWalletCreation'), 'a sibling adding the removed agent back').toBe('unauthorized signer');
    expect(venue.engine.agents(boss.account)).toEqual([sibling.publicKey]);
  });

  it("an agent's own agents get no authority over the account it serves (no delegation chain)", async () => {
    const [agent, subAgent] = [Keypair.generate(), Keypair.generate()];
    await registerAgent(owner, agent);
    // The agent key is also an account of its own and may register agents for itself.
    expect(applied(await send(venue, signed(agent, { type: 'agentWalletCreation', agent: subAgent.publicKey, delete: false }, next())))).toBe(true);
    expect(venue.engine.agents(agent.publicKey)).toEqual([subAgent.publicKey]);
    await expectNoAuthority(subAgent, owner.account, [owner.account, agent.publicKey, subAgent.publicKey], 'sub-agent for the owner');
  });
});

describe('auth (v1): oracle actions from keys other than the oracle key', () => {
  it("an account's own key, an agent of the oracle key's account, and an agent claiming the oracle account", async () => {
    const oracleAgent = Keypair.generate();
    expect(applied(await send(venue, signed(oracleKey, { type: 'agentWalletCreation', agent: oracleAgent.publicKey, delete: false }, next())))).toBe(true);
    const ownerAgent = Keypair.generate();
    await registerAgent(owner, ownerAgent);
    const watched = [owner.account, oracleKey.publicKey, oracleAgent.publicKey];
    const before = venueState(venue, watched);
    const marks = () => venue.engine.markets().map((m) => venue.engine.marketState(m.symbol)!.oraclePrice);
    const marksBefore = marks();
    const senders: [string, Keypair, string][] = [
      ['the owner for itself', owner.key, owner.account],
      ['an agent of the oracle account', oracleAgent, oracleKey.publicKey],
      ["the owner's agent for the owner", ownerAgent, owner.account],
      ['the owner claiming the oracle account', owner.key, oracleKey.publicKey],
    ];
    for (const [label, key, account] of senders) {
      for (const symbol of ['BTC-USD', 'ETH-USD', 'SOL-USD']) {
        const r = await send(venue, signed(key, { type: 'oracle', prices: [{ timestamp: ts(), symbol, price: 123 }] }, next(), account));
        expect(refusal(r, 'oracle'), `${label} ${symbol}`).toBe('unauthorized signer');
      }
    }
    expect(marks()).toEqual(marksBefore);
    expect(venueState(venue, watched)).toBe(before);
    // The oracle key itself still moves the mark (the refusals are about the key, not the action).
    expect(applied(await send(venue, signed(oracleKey, { type: 'oracle', prices: [{ timestamp: ts(), symbol: 'SOL-USD', price: 123 }] }, next())))).toBe(true);
    expect(venue.engine.marketState('SOL-USD')!.oraclePrice).toBe(123);
  });
});
