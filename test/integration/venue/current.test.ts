import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { signAction } from '../../../src/app/commands/actions.js';
import { ManualClock } from '../../../src/core/clock.js';
import type { Network } from '../../../src/core/types.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { createCurrentCodec } from '../../../src/protocol/current/codec.js';
import { envelopeOf } from '../../../src/protocol/current/serialize.js';
import type { Action } from '../../../src/protocol/current/actions.js';
import { nestedOrderIds } from '../../../src/protocol/current/order-id.js';
import { signRequest, type SignedRequest } from '../../../src/protocol/sign.js';
import { startVenue, type BlockRecord, type Venue, type VenueOptions } from '../../../src/venue-sim/server/index.js';
import { subAccountKey } from '../../../src/venue-sim/engine/index.js';
import { AccountStreams } from '../../../src/account/account.js';
import type { AccountState } from '../../../src/account/state.js';
import { connectVenue } from '../../../src/client/venue.js';
import type { AccountNotice } from '../../../src/core/account-data.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';
import { post, WsClient } from './harness.js';

const cleanup = cleanups();
const SYMBOL = 'BTC-USD';

interface WalletVector {
  name: string;
  mode: string;
  account: string;
  signer: string;
  nonce: string;
  actions: unknown[];
  signature: string;
}
const sdkVectors = (
  JSON.parse(readFileSync(new URL('../../fixtures/vectors/bulk-client/sdk-signing-vectors.json', import.meta.url), 'utf8')) as {
    vectors: { name: string; actions: unknown[] }[];
  }
).vectors;
const vectors = (
  JSON.parse(readFileSync(new URL('../../fixtures/vectors/bulk-keychain/wallet-mode-vectors.json', import.meta.url), 'utf8')) as { vectors: WalletVector[] }
).vectors;

async function venueWith(opts: VenueOptions = {}): Promise<Venue> {
  const v = await startVenue({ flow: false, dialect: 'current', network: 'devnet', verifyOnWorker: false, ...opts });
  cleanup.push(() => v.close());
  return v;
}

let nonce = BigInt(Date.now()) * 1_000_000n;
const send = (venue: Venue, r: SignedRequest, headers: Record<string, string> = {}) =>
  fetch(`${venue.url}${r.encoded.path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: r.bodyText }).then(
    async (res) => ({ status: res.status, body: (await res.json()) as { status: string; response: { data: { statuses: Record<string, any>[] } } } }),
  );
const sign = (key: Keypair, actions: unknown, opts: { network?: Network; account?: string; nonce?: bigint } = {}) =>
  signAction('current', opts.network ?? 'devnet', key, opts.nonce ?? nonce++, actions, opts.account);
const limit = (b: boolean, px: number, sz: number, tif = 'GTC') => ({ l: { c: SYMBOL, b, px, sz, tif, r: false, i: false } });

describe('the local venue in the current generation', () => {
  it.each(vectors.map((v) => [`${v.name} ${v.mode}`, v] as const))('accepts the published signature of %s (devnet, every wallet mode)', async (_label, v) => {
    const venue = await venueWith({ clock: new ManualClock(BigInt(v.nonce)) });
    const body = { actions: v.actions, nonce: v.nonce, account: v.account, signer: v.signer, signature: v.signature };
    const r = await post(venue, '/order', body);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    // The same signature under another network's byte is refused.
    const testnet = await venueWith({ clock: new ManualClock(BigInt(v.nonce)), network: 'testnet' });
    expect((await post(testnet, '/order', body)).body).toEqual({
      status: 'error',
      response: { type: 'order', data: { statuses: [{ error: { message: 'bad signature' } }] } },
    });
  });

  it('places at the id computed at signing, refuses a replayed nonce, an unregistered agent, and an agent managing agents', async () => {
    const venue = await venueWith();
    const owner = Keypair.generate();
    const agent = Keypair.generate();
    venue.engine.faucet(owner.publicKey, 100_000);
    const place = sign(owner, [limit(true, 50_000, 0.01)]);
    expect((await send(venue, place)).body.response.data.statuses).toEqual([{ resting: { oid: place.encoded.orderIds[0] } }]);
    expect((await send(venue, place)).body.response.data.statuses).toEqual([{ error: { message: 'nonce already used' } }]);
    const byAgent = () => sign(agent, [limit(true, 49_000, 0.01)], { account: owner.publicKey });
    expect((await send(venue, byAgent())).body.response.data.statuses).toEqual([{ error: { message: 'unauthorized signer' } }]);
    expect((await send(venue, sign(owner, [{ agentWalletCreation: { a: agent.publicKey, d: false } }]))).body.response.data.statuses).toEqual([
      { agentWallet: { agentWallet: agent.publicKey } },
    ]);
    const agentOrder = byAgent();
    expect((await send(venue, agentOrder)).body.response.data.statuses).toEqual([{ resting: { oid: agentOrder.encoded.orderIds[0] } }]);
    const other = Keypair.generate();
    const managed = sign(agent, [{ agentWalletCreation: { a: other.publicKey, d: false } }], { account: owner.publicKey });
    expect((await send(venue, managed)).body.response.data.statuses).toEqual([{ error: { message: 'unauthorized signer' } }]);
    expect(venue.engine.openOrders(owner.publicKey).map((o) => o.orderId)).toEqual([place.encoded.orderIds[0], agentOrder.encoded.orderIds[0]]);
  });

  it("answers feeTier per market (symbol scopes it); a v1 venue refuses the current generation's query types", async () => {
    const venue = await venueWith();
    const user = Keypair.generate().publicKey;
    const tiers = (await post(venue, '/account', { type: 'feeTier', user, symbol: SYMBOL })).body;
    const { makerFeeRate, takerFeeRate } = venue.engine.marketInfo(SYMBOL)!;
    expect(tiers).toEqual([
      {
        feeTier: {
          scopeInstrument: SYMBOL,
          rollingVolume: 0,
          tierIndex: 0,
          tierThreshold: 0,
          makerBps: makerFeeRate * 10_000,
          takerBps: takerFeeRate * 10_000,
          windowDays: 14,
        },
      },
    ]);
    expect((await post(venue, '/account', { type: 'feeTier', user })).body).toHaveLength(venue.engine.markets().length);
    expect((await post(venue, '/account', { type: 'riskHistory', user })).body).toEqual([]);
    const v1 = await venueWith({ dialect: 'v1' });
    for (const type of ['activityHistory', 'riskHistory', 'feeTier']) {
      const refused = await post(v1, '/account', { type, user });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain('type');
    }
    expect((await post(v1, '/account', { type: 'fills', user, symbol: SYMBOL })).status).toBe(400);
  });

  it('answers fills with signed sizes, a failed cancel as cancelOneRejected, and leverage with no status', async () => {
    const venue = await venueWith();
    const maker = Keypair.generate();
    const taker = Keypair.generate();
    for (const k of [maker, taker]) venue.engine.faucet(k.publicKey, 100_000);
    const ask = sign(maker, [limit(false, 50_000, 0.02)]);
    await send(venue, ask);
    const sell = sign(taker, [limit(true, 50_000, 0.01, 'IOC')]);
    expect((await send(venue, sell)).body.response.data.statuses).toEqual([{ filled: { oid: sell.encoded.orderIds[0], totalSz: 0.01, avgPx: 50_000 } }]);
    await send(venue, sign(maker, [limit(true, 49_000, 0.02)]));
    const hit = sign(taker, [{ m: { c: SYMBOL, b: false, sz: 0.01, r: false, i: false } }]);
    expect((await send(venue, hit)).body.response.data.statuses).toEqual([{ filled: { oid: hit.encoded.orderIds[0], totalSz: -0.01, avgPx: 49_000 } }]);
    const missing = ask.encoded.orderIds[0]!.replace(/.$/, (c) => (c === '1' ? '2' : '1'));
    expect((await send(venue, sign(maker, [{ cx: { c: SYMBOL, oid: missing } }]))).body.response.data.statuses).toEqual([
      { cancelOneRejected: { oid: missing, reason: 'order not found' } },
    ]);
    expect((await send(venue, sign(maker, [{ updateUserSettings: { m: { [SYMBOL]: 5 } } }]))).body).toMatchObject({
      status: 'ok',
      response: { data: { statuses: [] } },
    });
  });

  it('a refused cancel and the fee tiers reach the client: accounts.notices$ and state$', async () => {
    const venue = await venueWith();
    const live = connectVenue({ url: venue.url, wsUrl: venue.wsUrl, dialect: 'current', network: 'devnet' });
    cleanup.push(() => live.close());
    const accounts = new AccountStreams({ source: live.account });
    const owner = Keypair.generate();
    venue.engine.faucet(owner.publicKey, 100_000);
    const notices: AccountNotice[] = [];
    let state: AccountState | undefined;
    const subs = [accounts.notices$(owner.publicKey).subscribe((n) => notices.push(n)), accounts.state$(owner.publicKey).subscribe((s) => (state = s))];
    cleanup.push(() => subs.forEach((s) => s.unsubscribe()));
    await until(() => state !== undefined, 'account snapshot');
    const maker = venue.engine.marketInfo(SYMBOL)!.makerFeeRate * 10_000;
    expect(state!.feeTiers?.get(SYMBOL)).toMatchObject({ symbol: SYMBOL, tierIndex: 0, makerBps: maker });
    const place = sign(owner, [limit(true, 40_000, 0.01)]);
    await send(venue, place);
    const gone = place.encoded.orderIds[0]!;
    await send(venue, sign(owner, [{ cx: { c: SYMBOL, oid: gone } }]));
    await send(venue, sign(owner, [{ cx: { c: SYMBOL, oid: gone } }]));
    await until(() => notices.length === 1, 'the refused cancel');
    expect(notices[0]).toMatchObject({ kind: 'cancelRejected', symbol: SYMBOL, orderId: gone, reason: 'order not found' });
  });

  it('mod changes the size of a resting order: smaller keeps its place in the queue, larger goes to the back', async () => {
    const venue = await venueWith();
    const [first, second, taker] = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
    for (const k of [first, second, taker]) venue.engine.faucet(k.publicKey, 100_000);
    const a = sign(first, [limit(true, 49_000, 0.03)]);
    const b = sign(second, [limit(true, 49_000, 0.01)]);
    await send(venue, a);
    await send(venue, b);
    const oid = a.encoded.orderIds[0]!;
    const mod = (sz: number) => send(venue, sign(first, [{ mod: { oid, c: SYMBOL, sz } }])).then((r) => r.body.response.data.statuses);
    expect(await mod(0.02)).toEqual([{ resting: { oid } }]);
    expect(venue.engine.book(SYMBOL)!.bids).toEqual([{ px: 49_000, sz: 0.03, n: 2 }]);
    // Still first in the queue: a sell of 0.02 fills it completely and leaves the second order alone.
    await send(venue, sign(taker, [limit(false, 49_000, 0.02, 'IOC')]));
    expect(venue.engine.openOrders(first.publicKey)).toEqual([]);
    // The second order now leads; grown, it goes behind an order placed after it.
    const c = sign(first, [limit(true, 49_000, 0.01)]);
    await send(venue, c);
    const bid = b.encoded.orderIds[0]!;
    const grow = await send(venue, sign(second, [{ mod: { oid: bid, c: SYMBOL, sz: 0.02 } }]));
    expect(grow.body.response.data.statuses).toEqual([{ resting: { oid: bid } }]);
    await send(venue, sign(taker, [limit(false, 49_000, 0.01, 'IOC')]));
    expect(venue.engine.openOrders(first.publicKey)).toEqual([]);
    expect(venue.engine.openOrders(second.publicKey)).toMatchObject([{ orderId: bid, originalSize: 0.02, size: 0.02 }]);
    expect(await mod(0.05)).toEqual([{ error: { message: 'order not found' } }]);
  });

  it.each(sdkVectors.map((v) => [v.name, v] as const))(
    'verifies the layout of the published %s vector (Legacy, V2 or V3 envelope) signed by a fresh key',
    async (_name, v) => {
      const venue = await venueWith();
      const key = Keypair.generate();
      const r = await send(venue, sign(key, v.actions));
      expect(r.body.status).toBe('ok');
    },
  );

  it('accepts conditionals signed under the V4 envelope (§3.2), also with conditional slippage, which needs it', async () => {
    const venue = await venueWith();
    const owner = Keypair.generate();
    venue.engine.faucet(owner.publicKey, 100_000);
    const v4 = createCurrentCodec({ maxSchema: 4 });
    const signV4 = (actions: unknown[]) =>
      signRequest(v4, owner, { actions, account: owner.publicKey, signer: owner.publicKey, nonce: nonce++, network: 'devnet', mode: 'raw' });
    const stop = { st: { c: SYMBOL, d: false, sz: 0.01, tr: 49_500, i: false } };
    const plain = signV4([stop]);
    expect(envelopeOf(plain.encoded.signable)).toBe(4);
    const slipped = signV4([{ st: { ...stop.st, slippage: 25 } }]);
    for (const signed of [plain, slipped])
      expect((await send(venue, signed)).body.response.data.statuses).toEqual([{ cancelledReduceOnly: { oid: signed.encoded.orderIds[0] } }]);
    const forged = { ...JSON.parse(plain.bodyText), actions: [{ st: { ...stop.st, sz: 0.02 } }] };
    expect((await post(venue, '/order', forged)).body.status).toBe('error');
  });

  it('a stop rests as a reduce-only trigger under the id computed at signing and closes the position when the mark crosses it', async () => {
    const venue = await venueWith();
    const maker = Keypair.generate();
    const owner = Keypair.generate();
    for (const k of [maker, owner]) venue.engine.faucet(k.publicKey, 100_000);
    venue.engine.setOraclePrice(SYMBOL, 50_000);
    await send(venue, sign(maker, [limit(false, 50_000, 0.01), limit(true, 49_000, 0.01)]));
    await send(venue, sign(owner, [{ m: { c: SYMBOL, b: true, sz: 0.01, r: false, i: false } }]));
    const signedStop = sign(owner, [{ st: { c: SYMBOL, d: false, sz: 0.01, tr: 49_500, i: false } }]);
    const stop = (await send(venue, signedStop)).body.response.data.statuses;
    expect(stop).toEqual([{ resting: { oid: signedStop.encoded.orderIds[0] } }]);
    expect(venue.engine.openOrders(owner.publicKey)).toMatchObject([{ orderId: stop[0]!.resting.oid, isBuy: false, reduceOnly: true }]);
    venue.engine.setOraclePrice(SYMBOL, 49_400);
    venue.step();
    expect(venue.engine.positionDetails(owner.publicKey)).toEqual([]);
    expect(venue.engine.openOrders(owner.publicKey)).toEqual([]);
    // Nothing to protect: a take-profit without a position is cancelled as reduce-only.
    const tp = (await send(venue, sign(owner, [{ tp: { c: SYMBOL, d: true, sz: 0.01, tr: 60_000, i: false } }]))).body.response.data.statuses;
    expect(tp).toEqual([{ cancelledReduceOnly: { oid: expect.any(String) } }]);
  });

  /** A venue at mark 50,000 with bids below, and `owners` each long 0.01 BTC. */
  async function longs(...owners: Keypair[]) {
    const venue = await venueWith();
    const maker = Keypair.generate();
    for (const k of [maker, ...owners]) venue.engine.faucet(k.publicKey, 100_000);
    venue.engine.setOraclePrice(SYMBOL, 50_000);
    await send(venue, sign(maker, [limit(false, 50_000, 0.01 * owners.length), limit(true, 49_000, 0.1)]));
    for (const k of owners) await send(venue, sign(k, [{ m: { c: SYMBOL, b: true, sz: 0.01, r: false, i: false } }]));
    const mark = (px: number) => {
      venue.engine.setOraclePrice(SYMBOL, px);
      venue.step();
    };
    return { venue, mark };
  }

  it('a trailing stop (trl) follows the highest mark in steps of stb and closes the long when the mark falls trb below it', async () => {
    const [tight, stepped] = [Keypair.generate(), Keypair.generate()];
    const { venue, mark } = await longs(tight, stepped);
    const trailing = (stb: number) => [{ trl: { c: SYMBOL, b: true, sz: 0.01, trb: 100, stb, i: false } }];
    const signed = sign(tight, trailing(0));
    expect((await send(venue, signed)).body.response.data.statuses).toEqual([{ resting: { oid: signed.encoded.orderIds[0] } }]);
    expect((await send(venue, sign(stepped, trailing(300)))).body.response.data.statuses).toEqual([{ resting: { oid: expect.any(String) } }]);
    expect(venue.engine.openOrders(tight.publicKey)).toMatchObject([{ isBuy: false, reduceOnly: true, status: 'placed' }]);
    mark(51_000); // tight: trigger 1% below 51,000 = 50,490; stepped: a 2% move is below its 3% step, trigger stays 49,500
    mark(50_600);
    expect(venue.engine.positionDetails(tight.publicKey)).toHaveLength(1);
    mark(50_400);
    expect(venue.engine.positionDetails(tight.publicKey)).toEqual([]);
    expect(venue.engine.openOrders(tight.publicKey)).toEqual([]);
    expect(venue.engine.positionDetails(stepped.publicKey)).toHaveLength(1);
    const limited = { trl: { c: SYMBOL, b: true, sz: 0.01, trb: 100, stb: 0, lim: 49_000, i: false } };
    expect((await send(venue, sign(stepped, [limited]))).body.response.data.statuses).toEqual([
      { rejectedInvalid: { oid: expect.any(String), reason: 'a trailing stop with a limit (lim) is not supported by the local venue' } },
    ]);
  });

  it('a range (rng) closes the long at whichever bound the mark reaches first', async () => {
    const [low, high] = [Keypair.generate(), Keypair.generate()];
    const { venue, mark } = await longs(low, high);
    const range = { rng: { c: SYMBOL, d: true, sz: 0.01, pmin: 49_500, pmax: 51_000, i: false } };
    const signed = sign(low, [range]);
    expect((await send(venue, signed)).body.response.data.statuses).toEqual([{ resting: { oid: signed.encoded.orderIds[0] } }]);
    await send(venue, sign(high, [{ rng: { ...range.rng, pmin: 48_000 } }]));
    mark(49_400);
    expect(venue.engine.positionDetails(low.publicKey)).toEqual([]);
    expect(venue.engine.positionDetails(high.publicKey)).toHaveLength(1);
    mark(51_000);
    expect(venue.engine.positionDetails(high.publicKey)).toEqual([]);
    expect(venue.engine.openOrders(high.publicKey)).toEqual([]);
  });

  it('a trigger basket (trig) parks under its signing id and, when the mark reaches it, runs its actions under their nested ids', async () => {
    const owner = Keypair.generate();
    const { venue, mark } = await longs(owner);
    const ws = await WsClient.open(venue.wsUrl);
    cleanup.push(() => ws.close());
    ws.send({ method: 'subscribe', subscription: [{ type: 'account', user: owner.publicKey }] });
    await ws.until((m) => m.data?.type === 'accountSnapshot');
    // When the mark falls to 49,500: close the long at market and rest a bid at 49,000.
    const actions = [{ m: { c: SYMBOL, b: false, sz: 0.01, r: true, i: false } }, limit(true, 48_000, 0.01)];
    const signed = sign(owner, [{ trig: { c: SYMBOL, d: false, tr: 49_500, actions } }]);
    const basketId = signed.encoded.orderIds[0]!;
    const [closeId, bidId] = signed.encoded.childOrderIds[0]!;
    expect(signed.encoded.childOrderIds[0]).toEqual(nestedOrderIds(actions as Action[], basketId));
    expect((await send(venue, signed)).body.response.data.statuses).toEqual([{ resting: { oid: basketId } }]);
    const row = (await post(venue, '/account', { type: 'openOrders', user: owner.publicKey })).body.map((r: any) => r.openOrder);
    expect(row).toMatchObject([{ orderId: basketId, orderType: 'trigger', size: 0, trigger: { isAbove: false, px: 49_500 } }]);
    mark(49_800);
    expect(venue.engine.positionDetails(owner.publicKey)).toHaveLength(1);
    mark(49_400);
    expect(venue.engine.positionDetails(owner.publicKey)).toEqual([]);
    expect(venue.engine.openOrders(owner.publicKey)).toMatchObject([{ orderId: bidId, price: 48_000, isBuy: true }]);
    expect(venue.engine.orderHistory(owner.publicKey)[0]).toMatchObject({ orderId: closeId, status: 'filled' });
    const basketStatuses = () => ws.messages.filter((m) => m.data?.type === 'orderUpdate' && m.data.oid === basketId).map((m) => [m.data.ot, m.data.status]);
    await ws.until((m) => m.data?.oid === basketId && m.data.status === 'filled');
    expect(basketStatuses()).toEqual([
      ['trigger', 'placed'],
      ['trigger', 'triggered'],
      ['trigger', 'filled'],
    ]);
    // A basket cancelled with cx never runs.
    const again = sign(owner, [{ trig: { c: SYMBOL, d: true, tr: 60_000, actions: [limit(true, 48_500, 0.01)] } }]);
    await send(venue, again);
    const cx = { cx: { c: SYMBOL, oid: again.encoded.orderIds[0]! } };
    expect((await send(venue, sign(owner, [cx]))).body.response.data.statuses).toEqual([{ cancelled: { oid: again.encoded.orderIds[0] } }]);
    mark(60_000);
    expect(venue.engine.openOrders(owner.publicKey).map((o) => o.orderId)).toEqual([bidId]);
  });

  it('on-fill (of) holds its actions until the trigger order fills, then places them under their nested ids; a cancelled trigger drops them', async () => {
    const venue = await venueWith();
    const [owner, taker] = [Keypair.generate(), Keypair.generate()];
    for (const k of [owner, taker]) venue.engine.faucet(k.publicKey, 100_000);
    venue.engine.setOraclePrice(SYMBOL, 50_000);
    const bracket = (px: number) => ({
      of: {
        trigger: limit(true, px, 0.01),
        actions: [{ tp: { c: SYMBOL, d: true, sz: 0.01, tr: 52_000, i: false } }, { st: { c: SYMBOL, d: false, sz: 0.01, tr: 48_000, i: false } }],
      },
    });
    const signed = sign(owner, [bracket(49_900), bracket(49_000)]);
    const [parent, dropped] = signed.encoded.orderIds;
    const [tpId, stId] = signed.encoded.childOrderIds[0]!;
    expect((await send(venue, signed)).body.response.data.statuses).toEqual([{ resting: { oid: parent } }, { resting: { oid: dropped } }]);
    const pending = () =>
      post(venue, '/account', { type: 'fullAccount', user: owner.publicKey }).then((r) => r.body[0].fullAccount.pendingOnFill.map((p: any) => p.parentOrderId));
    expect(await pending()).toEqual([parent, dropped]);
    await send(venue, sign(owner, [{ cx: { c: SYMBOL, oid: dropped! } }]));
    expect(await pending()).toEqual([parent]);
    await send(venue, sign(taker, [limit(false, 49_900, 0.01, 'IOC')]));
    expect(await pending()).toEqual([]);
    const rows = (await post(venue, '/account', { type: 'openOrders', user: owner.publicKey })).body.map((r: any) => [
      r.openOrder.orderId,
      r.openOrder.orderType,
    ]);
    expect(rows).toEqual([
      [tpId, 'takeProfit'],
      [stId, 'stop'],
    ]);
    // A trigger order that fills at once runs its actions in the same answer.
    await send(venue, sign(taker, [limit(false, 50_000, 0.01)]));
    const now = sign(owner, [{ of: { trigger: { m: { c: SYMBOL, b: true, sz: 0.01, r: false, i: false } }, actions: [limit(false, 51_000, 0.01)] } }]);
    expect((await send(venue, now)).body.response.data.statuses).toEqual([
      { filled: { oid: now.encoded.orderIds[0], totalSz: 0.01, avgPx: 50_000 } },
      { resting: { oid: now.encoded.childOrderIds[0]![0] } },
    ]);
  });

  it('a restart with its state keeps parked baskets and held on-fill actions: they run after it as before', async () => {
    const first = await venueWith({ port: 0 });
    const [owner, taker] = [Keypair.generate(), Keypair.generate()];
    for (const k of [owner, taker]) first.engine.faucet(k.publicKey, 100_000);
    first.engine.setOraclePrice(SYMBOL, 50_000);
    const basket = sign(owner, [{ trig: { c: SYMBOL, d: true, tr: 50_500, actions: [limit(true, 48_000, 0.01)] } }]);
    const bracket = sign(owner, [{ of: { trigger: limit(true, 49_900, 0.01), actions: [limit(false, 51_000, 0.01)] } }]);
    for (const r of [basket, bracket]) expect((await send(first, r)).body.status).toBe('ok');
    await first.close();
    const venue = await venueWith({ port: first.port, resume: first });
    const [bidId] = basket.encoded.childOrderIds[0]!;
    const [askId] = bracket.encoded.childOrderIds[0]!;
    const full = async () => (await post(venue, '/account', { type: 'fullAccount', user: owner.publicKey })).body[0].fullAccount;
    expect((await full()).pendingOnFill.map((p: any) => p.parentOrderId)).toEqual([bracket.encoded.orderIds[0]]);
    expect((await full()).openOrders.map((o: any) => o.orderId).sort()).toEqual([basket.encoded.orderIds[0], bracket.encoded.orderIds[0]].sort());
    venue.engine.setOraclePrice(SYMBOL, 50_600);
    venue.step();
    await send(venue, sign(taker, [limit(false, 49_900, 0.01, 'IOC')]));
    expect(
      venue.engine
        .openOrders(owner.publicKey)
        .map((o) => [o.orderId, o.price])
        .sort(),
    ).toEqual(
      [
        [bidId, 48_000],
        [askId, 51_000],
      ].sort(),
    );
  });

  it('types each conditional as itself in openOrders, orderUpdate (ot, trigger) and orderHistory; a fired one keeps its type', async () => {
    const owner = Keypair.generate();
    const { venue, mark } = await longs(owner);
    const ws = await WsClient.open(venue.wsUrl);
    cleanup.push(() => ws.close());
    ws.send({ method: 'subscribe', subscription: [{ type: 'account', user: owner.publicKey }] });
    await ws.until((m) => m.data?.type === 'accountSnapshot');
    const actions = [
      { st: { c: SYMBOL, d: false, sz: 0.01, tr: 49_500, i: false } },
      { tp: { c: SYMBOL, d: true, sz: 0.01, tr: 52_000, lim: 51_900, i: false } },
      { trl: { c: SYMBOL, b: true, sz: 0.01, trb: 100, stb: 10, i: false } },
      { rng: { c: SYMBOL, d: true, sz: 0.01, pmin: 48_000, pmax: 53_000, i: false } },
    ];
    const signed = sign(owner, actions);
    await send(venue, signed);
    const ids = signed.encoded.orderIds;
    const rows = (await post(venue, '/account', { type: 'openOrders', user: owner.publicKey })).body.map((r: any) => r.openOrder);
    const none = { oco: null, limHi: null };
    expect(rows.map((r: any) => [r.orderId, r.orderType, r.trigger])).toEqual([
      [ids[0], 'stop', { isAbove: false, px: 49_500, lim: null, pxHi: null, trb: null, stb: null, ...none }],
      [ids[1], 'takeProfit', { isAbove: true, px: 52_000, lim: 51_900, pxHi: null, trb: null, stb: null, ...none }],
      [ids[2], 'trailing', { isAbove: false, px: 49_500, lim: null, pxHi: null, trb: 100, stb: 10, ...none }],
      [ids[3], 'range', { isAbove: false, px: 48_000, lim: null, pxHi: 53_000, trb: null, stb: null, ...none }],
    ]);
    const updates = await Promise.all(ids.map((id) => ws.until((m) => m.data?.type === 'orderUpdate' && m.data.oid === id)));
    expect(updates.map((m) => [m.data.ot, m.data.status, m.data.trigger.px])).toEqual([
      ['stop', 'placed', 49_500],
      ['takeProfit', 'placed', 52_000],
      ['trailing', 'placed', 49_500],
      ['range', 'placed', 48_000],
    ]);
    const from = ws.messages.length;
    mark(49_400);
    const fired = await ws.until((m) => m.data?.type === 'orderUpdate' && m.data.oid === ids[0] && m.data.status === 'filled', 5000, from);
    expect(fired.data.ot).toBe('stop');
    const history = (await post(venue, '/account', { type: 'orderHistory', user: owner.publicKey })).body.map((r: any) => r.orderHistory);
    expect(history.filter((h: any) => ids.includes(h.orderId)).map((h: any) => [h.orderId, h.orderType])).toEqual(expect.arrayContaining([[ids[0], 'stop']]));
    expect(history.every((h: any) => !('conditional' in h))).toBe(true);
  });

  it('sub-accounts: created under a derived key with margin, traded by the master and its agents, transfers within the family and out of it, renamed, removed', async () => {
    const venue = await venueWith();
    const [owner, agent, stranger] = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
    for (const k of [owner, stranger]) venue.engine.faucet(k.publicKey, 10_000);
    venue.engine.setOraclePrice(SYMBOL, 50_000);
    await send(venue, sign(owner, [{ agentWalletCreation: { a: agent.publicKey, d: false } }]));
    const statuses = async (key: Keypair, actions: unknown[], account?: string) =>
      (await send(venue, sign(key, actions, { account }))).body.response.data.statuses;
    const sub = subAccountKey(owner.publicKey, 0);
    expect(await statuses(owner, [{ createSubAccount: { name: 'hedge', marginAmount: 2500 } }])).toEqual([
      { createSubAccount: { master: owner.publicKey, sub, name: 'hedge', margin: 2500 } },
    ]);
    expect(await statuses(owner, [{ createSubAccount: { name: 'hedge' } }])).toEqual([
      { createSubAccountFailed: { message: 'a sub-account named "hedge" exists' } },
    ]);
    const balance = (key: string) => venue.engine.marginSummary(key).totalBalance;
    expect([balance(owner.publicKey), balance(sub)]).toEqual([7500, 2500]);

    const bid = sign(owner, [limit(true, 49_000, 0.01)], { account: sub });
    expect((await send(venue, bid)).body.response.data.statuses).toEqual([{ resting: { oid: bid.encoded.orderIds[0] } }]);
    expect(await statuses(agent, [limit(true, 48_000, 0.01)], sub)).toEqual([{ resting: { oid: expect.any(String) } }]);
    expect((await send(venue, sign(stranger, [limit(true, 48_000, 0.01)], { account: sub }))).body.status).toBe('error');

    expect(await statuses(owner, [{ transfer: { k: 'internal', from: sub, to: owner.publicKey, marginAmount: 500 } }])).toEqual([
      { transfer: { from: sub, to: owner.publicKey, symbol: 'USDC', amount: 500 } },
    ]);
    expect([balance(owner.publicKey), balance(sub)]).toEqual([8000, 2000]);
    const refusedTransfers = await statuses(owner, [
      { transfer: { k: 'internal', from: owner.publicKey, to: stranger.publicKey, marginAmount: 1 } },
      { transfer: { k: 'external', from: owner.publicKey, to: sub, marginAmount: 1 } },
      { transfer: { k: 'external', from: stranger.publicKey, to: owner.publicKey, marginAmount: 1 } },
      { transfer: { k: 'internal', from: sub, to: owner.publicKey, marginAmount: 2000 } },
    ]);
    expect(refusedTransfers.map((r) => r.transferFailed.message)).toEqual([
      'from and to must be the account or its sub-accounts',
      'to is the account or one of its sub-accounts: use an internal transfer',
      'from must be the account or one of its sub-accounts',
      'Insufficient margin',
    ]);
    // External transfers leave the family: to another account, or to a key the venue has not seen (created).
    const fresh = Keypair.generate().publicKey;
    expect(
      await statuses(owner, [
        { transfer: { k: 'external', from: sub, to: stranger.publicKey, marginAmount: 100 } },
        { transfer: { k: 'external', from: owner.publicKey, to: fresh, marginAmount: 50 } },
      ]),
    ).toEqual([
      { transfer: { from: sub, to: stranger.publicKey, symbol: 'USDC', amount: 100 } },
      { transfer: { from: owner.publicKey, to: fresh, symbol: 'USDC', amount: 50 } },
    ]);
    expect([owner.publicKey, sub, stranger.publicKey, fresh].map(balance)).toEqual([7950, 1900, 10_100, 50]);

    const full = async (key: string) => (await post(venue, '/account', { type: 'fullAccount', user: key })).body[0].fullAccount;
    expect(await full(owner.publicKey)).toMatchObject({ kind: 'MasterEOA', subAccounts: [{ pubkey: sub }] });
    expect(await statuses(owner, [{ renameSubAccount: { a: sub, n: 'carry' } }])).toEqual([{ renameSubAccount: { account: sub, name: 'carry' } }]);
    expect(await full(sub)).toMatchObject({ kind: 'SubAccount', parent: owner.publicKey, name: 'carry', subAccounts: [] });

    expect(await statuses(owner, [{ removeSubAccount: { toRemove: sub } }])).toEqual([
      { removeSubAccountFailed: { message: 'the sub-account has open orders or positions' } },
    ]);
    await send(venue, sign(owner, [{ cxa: { c: [] } }], { account: sub }));
    expect(await statuses(owner, [{ removeSubAccount: { toRemove: sub } }])).toEqual([{ removeSubAccount: { account: sub, marginMoved: 1900 } }]);
    expect(balance(owner.publicKey)).toBe(9850);
    expect((await send(venue, sign(owner, [limit(true, 48_000, 0.01)], { account: sub }))).body.status).toBe('error');
    expect(venue.engine.selfCheck()).toEqual([]);

    // activityHistory lists every completed deposit and transfer of the account, newest first; refused transfers none.
    const activity = async (key: string) =>
      ((await post(venue, '/account', { type: 'activityHistory', user: key })).body as { activityHistory: Record<string, unknown> }[]).map(
        (r) => r.activityHistory,
      );
    const moved = (activityType: string, from: string | null, to: string, amount: number) => ({
      activityType,
      status: 'completed',
      from,
      to,
      symbol: 'USDC',
      amount,
    });
    expect(await activity(owner.publicKey)).toMatchObject([
      moved('transferInternal', sub, owner.publicKey, 1900),
      moved('transferExternal', owner.publicKey, fresh, 50),
      moved('transferInternal', sub, owner.publicKey, 500),
      moved('transferInternal', owner.publicKey, sub, 2500),
      moved('deposit', null, owner.publicKey, 10_000),
    ]);
    expect(await activity(stranger.publicKey)).toMatchObject([
      moved('transferExternal', sub, stranger.publicKey, 100),
      moved('deposit', null, stranger.publicKey, 10_000),
    ]);
    expect((await activity(owner.publicKey))[0]).toMatchObject({
      reason: null,
      iso: false,
      slot: expect.any(Number),
      timestamp: expect.stringMatching(/^\d{19}$/),
    });

    const multisig = { createMultisig: { signers: [owner.publicKey, agent.publicKey], threshold: 2, timeLockSecs: 0, proposalLifetimeSecs: 3600 } };
    expect((await statuses(owner, [multisig]))[0]!.error.message).toMatch(/^createMultisig is not supported by the local venue: multisig/);
  });

  it('slides a crossing ALO_SLIDE order one tick behind the best ask, refuses ALO_JOIN, and rejects a crossing ALO', async () => {
    const venue = await venueWith();
    const maker = Keypair.generate();
    const quoter = Keypair.generate();
    for (const k of [maker, quoter]) venue.engine.faucet(k.publicKey, 100_000);
    await send(venue, sign(maker, [limit(false, 50_000, 0.01)]));
    const tick = venue.engine.marketInfo(SYMBOL)!.tickSize;
    const slide = sign(quoter, [limit(true, 50_100, 0.01, 'ALO_SLIDE')]);
    expect((await send(venue, slide)).body.response.data.statuses).toEqual([{ resting: { oid: slide.encoded.orderIds[0] } }]);
    expect(venue.engine.openOrders(quoter.publicKey)).toMatchObject([{ orderId: slide.encoded.orderIds[0], price: 50_000 - tick, isBuy: true, tif: 'alo' }]);
    const join = sign(quoter, [limit(true, 49_000, 0.01, 'postOnlyJoin')]);
    expect((await send(venue, join)).body.response.data.statuses).toEqual([
      { rejectedInvalid: { oid: join.encoded.orderIds[0], reason: expect.stringMatching(/ALO_JOIN is not supported/) } },
    ]);
    const alo = sign(quoter, [limit(true, 50_100, 0.01, 'ALO')]);
    expect((await send(venue, alo)).body.response.data.statuses).toEqual([{ rejectedCrossing: { oid: alo.encoded.orderIds[0] } }]);
  });

  it('runs a block shuffled by its timestamp, then cancels, then post-only, then the rest; the seed is reported', async () => {
    const blocks: BlockRecord[] = [];
    const clock = new ManualClock(BigInt(Date.now()) * 1_000_000n);
    const venue = await venueWith({ clock, blockMs: 50, onBlock: (b) => blocks.push(b) });
    const maker = Keypair.generate();
    const taker = Keypair.generate();
    for (const k of [maker, taker]) venue.engine.faucet(k.publicKey, 100_000);
    const n = clock.nowNs();
    const resting = sign(maker, [limit(false, 50_000, 0.01)], { nonce: n });
    await send(venue, resting);
    // One block: the taker's IOC buy (sent first) would take the resting ask, but the maker's cancel runs first,
    // and the maker's post-only re-quote rests before the taker's order is matched against it.
    const take = sign(taker, [limit(true, 50_100, 0.01, 'IOC')], { nonce: n + 1n });
    const requote = sign(maker, [limit(false, 50_100, 0.01, 'ALO'), { cx: { c: SYMBOL, oid: resting.encoded.orderIds[0]! } }], { nonce: n + 2n });
    const [took, moved] = await Promise.all([send(venue, take), send(venue, requote)]);
    expect(moved.body.response.data.statuses).toEqual([{ cancelled: { oid: resting.encoded.orderIds[0] } }, { resting: { oid: requote.encoded.orderIds[0] } }]);
    expect(took.body.response.data.statuses).toEqual([{ filled: { oid: take.encoded.orderIds[0], totalSz: 0.01, avgPx: 50_100 } }]);
    const block = blocks.at(-1)!;
    expect(block).toMatchObject({ timestampNs: clock.nowNs(), seed: clock.nowNs() });
    expect(block.transactions.map((t) => t.nonce)).toEqual([n + 1n, n + 2n]);
    const maker1 = block.transactions.findIndex((t) => t.nonce === n + 2n);
    expect(block.order).toEqual([
      [maker1, 1],
      [maker1, 0],
      [1 - maker1, 0],
    ]);
  });
});

describe('the market-data endpoints (venue-protocol §8.2)', () => {
  it('GET /ticker/{symbol}, /klines and /stats answer in the documented shapes; unknown symbols and intervals are refused', async () => {
    const venue = await venueWith();
    const [maker, taker] = [Keypair.generate(), Keypair.generate()];
    for (const k of [maker, taker]) venue.engine.faucet(k.publicKey, 100_000);
    await send(venue, sign(maker, [limit(false, 50_000, 0.02), limit(false, 50_100, 0.02)]));
    await send(venue, sign(taker, [limit(true, 50_100, 0.03, 'IOC')]));
    const get = (path: string) => fetch(`${venue.url}${path}`).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

    const ticker = await get('/ticker/BTC-USD');
    expect(ticker.status).toBe(200);
    expect(ticker.body).toMatchObject({ symbol: SYMBOL, lastPrice: 50_100, highPrice: 50_100, lowPrice: 50_000, volume: 0.03 });
    expect(typeof ticker.body.timestamp).toBe('number');
    expect((await get('/ticker/NOPE-USD')).status).toBe(404);

    const klines = await get(`/klines?symbol=${SYMBOL}&interval=1m`);
    expect(klines.body).toEqual([{ t: expect.any(Number), T: expect.any(Number), o: 50_000, h: 50_100, l: 50_000, c: 50_100, v: 0.03, n: 2 }]);
    expect(klines.body[0].T - klines.body[0].t).toBe(59_999);
    expect((await get(`/klines?symbol=${SYMBOL}&interval=1m&endTime=${klines.body[0].t - 1}`)).body).toEqual([]);
    expect(await get(`/klines?symbol=${SYMBOL}&interval=10s`)).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/interval must be one of/) } },
    });

    const stats = await get(`/stats?period=3m`);
    expect(stats.body).toMatchObject({ period: '90d', volume: { totalUsd: 1501 }, funding: { rates: { [SYMBOL]: { current: expect.any(Number) } } } });
    expect(stats.body.markets.find((m: { symbol: string }) => m.symbol === SYMBOL)).toMatchObject({ volume: 0.03, lastPrice: 50_100 });
    expect((await get('/stats?period=bogus')).body.period).toBe('1d');
    expect((await get('/ticker/%E0%A4%A')).status).toBe(400);
  });
});
