import bs58 from 'bs58';
import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/core/errors.js';
import { parseJson } from '../../../../src/core/json.js';
import { parse } from '../../../../src/core/schema.js';
import type { EncodeInput, SignMode } from '../../../../src/protocol/dialect.js';
import { requestBodySchemas } from '../../../../src/protocol/v1/actions.js';
import { v1Codec } from '../../../../src/protocol/v1/codec.js';
import { serializeAction } from '../../../../src/protocol/v1/serialize.js';
import { ACCOUNT, AGENT, CLOID, NONCE, NONCE_HEX, OID, SIGNER, USER } from './fixtures.js';

const limit = { c: 'BTC-USD', b: true, px: 100000.5, sz: 0.25, r: false, t: { limit: { tif: 'GTC' } }, cloid: CLOID.b58 };
const market = { c: 'ETH-USD', b: false, px: 0, sz: 1.5, r: true, t: { trigger: { is_market: true, triggerPx: 0 } } };

function input(actions: unknown, extra: Partial<EncodeInput> = {}): EncodeInput {
  return { actions, account: ACCOUNT.b58, signer: SIGNER.b58, nonce: NONCE, network: 'testnet', mode: 'raw', ...extra };
}

/** Independent order id: base58(sha256(u32 LE k ‖ item bytes ‖ account ‖ u64 LE nonce)) from hand-written hex. */
function expectedId(k: number, itemHex: string): string {
  const kHex = Buffer.alloc(4);
  kHex.writeUInt32LE(k);
  const preimage = Buffer.from(kHex.toString('hex') + itemHex + ACCOUNT.hex + NONCE_HEX, 'hex');
  return bs58.encode(createHash('sha256').update(preimage).digest());
}

// OrderItem bytes (discriminant + data) per gaps-decided §1, written by hand.
const limitItemHex =
  '00000000' + '0700000000000000' + '4254432d555344' + '01' + '00000000086af840' + '000000000000d03f' + '00' + '00000000' + '00000000' + '01' + CLOID.hex;
const marketItemHex =
  '00000000' + '0700000000000000' + '4554482d555344' + '00' + '0000000000000000' + '000000000000f83f' + '01' + '01000000' + '01' + '0000000000000000' + '00';

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).field;
  }
  throw new Error('expected a ValidationError');
}

describe('v1Codec.encode', () => {
  it('returns signable = message = the wincode bytes, the path and one id per item', () => {
    const action = { type: 'order', orders: [{ order: limit }, { cancel: { c: 'BTC-USD', oid: OID.b58 } }, { order: market }, { cancelAll: { c: [] } }] };
    const enc = v1Codec.encode(input(action));
    expect(v1Codec.name).toBe('v1');
    expect(enc.message).toBe(enc.signable);
    expect(enc.path).toBe('/order');
    expect(enc.orderIds).toEqual([expectedId(0, limitItemHex), null, expectedId(2, marketItemHex), null]);
    expect(Buffer.from(enc.message).toString('hex')).toMatch(/^00000000040000000000000000000000/);
  });

  it('gives the same id for the same item, index, account and nonce, and a different one otherwise', () => {
    const one = v1Codec.encode(input({ type: 'order', orders: [{ order: limit }] })).orderIds[0];
    expect(one).toBe(expectedId(0, limitItemHex));
    expect(v1Codec.encode(input({ type: 'order', orders: [{ order: limit }] }, { signer: ACCOUNT.b58 })).orderIds[0]).toBe(one);
    expect(v1Codec.encode(input({ type: 'order', orders: [{ order: limit }] }, { nonce: NONCE + 1n })).orderIds[0]).not.toBe(one);
  });

  it('returns [null] ids and the endpoint path for non-order actions', () => {
    const cases: [unknown, string][] = [
      [{ type: 'updateUserSettings', settings: { m: [['BTC-USD', 10]] } }, '/user-settings'],
      [{ type: 'agentWalletCreation', agent: AGENT.b58, delete: false }, '/agent-wallet'],
      [{ type: 'faucet', user: USER.b58 }, '/private/faucet'],
      [{ type: 'oracle', prices: [{ timestamp: 1, symbol: 'BTC-USD', price: 1 }] }, '/private/oracle'],
    ];
    for (const [action, path] of cases) {
      const enc = v1Codec.encode(input(action));
      expect(enc.path).toBe(path);
      expect(enc.orderIds).toEqual([null]);
    }
  });

  it('a node:crypto Ed25519 signature over message verifies, and the body round-trips through the venue side', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const signerKey = bs58.encode(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'));
    const enc = v1Codec.encode(input({ type: 'order', orders: [{ order: limit }, { order: market }] }, { signer: signerKey }));
    const signature = sign(null, enc.message, privateKey);
    expect(verify(null, enc.message, publicKey, signature)).toBe(true);

    const text = enc.bodyText(bs58.encode(signature));
    expect(text).toContain(`"nonce":${NONCE}}`);
    const body = parse(requestBodySchemas.order, parseJson(text));
    const again = serializeAction(body.action, body.action.nonce, body.account, body.signer);
    expect(Buffer.from(again).equals(Buffer.from(enc.message))).toBe(true);
    expect(verify(null, again, publicKey, bs58.decode(body.signature))).toBe(true);
  });

  it('builds the body {action: {...action, nonce}, account, signer, signature}', () => {
    const enc = v1Codec.encode(input({ type: 'faucet', user: USER.b58, amount: 5 }));
    expect(parseJson(enc.bodyText('sig'))).toEqual({
      action: { type: 'faucet', user: USER.b58, amount: 5, nonce: NONCE.toString() },
      account: ACCOUNT.b58,
      signer: SIGNER.b58,
      signature: 'sig',
    });
  });

  it('accepts a nonce inside the action when it equals input.nonce (integer or decimal string)', () => {
    expect(() => v1Codec.encode(input({ type: 'faucet', user: USER.b58, nonce: NONCE.toString() }))).not.toThrow();
    expect(() => v1Codec.encode(input({ type: 'faucet', user: USER.b58, nonce: 7 }, { nonce: 7n }))).not.toThrow();
  });

  describe('bad input names the field', () => {
    const order = (patch: Record<string, unknown>) => input({ type: 'order', orders: [{ order: { ...limit, ...patch } }] });
    const cases: [string, EncodeInput, string][] = [
      ['NaN size', order({ sz: NaN }), 'action.orders[0].order.sz'],
      ['negative size', order({ sz: -1 }), 'action.orders[0].order.sz'],
      ['zero size', order({ sz: 0 }), 'action.orders[0].order.sz'],
      ['Infinity price', order({ px: Infinity }), 'action.orders[0].order.px'],
      ['negative price', order({ px: -5 }), 'action.orders[0].order.px'],
      ['price 0 on a limit order', order({ px: 0 }), 'action.orders[0].order.px'],
      ['price 0 on a stop-limit', order({ px: 0, t: { trigger: { is_market: false, triggerPx: 5 } } }), 'action.orders[0].order.px'],
      ['triggerPx 0 on a stop-limit', order({ t: { trigger: { is_market: false, triggerPx: 0 } } }), 'action.orders[0].order.t.trigger.triggerPx'],
      ['lowercase symbol', order({ c: 'btc-usd' }), 'action.orders[0].order.c'],
      ['oversize symbol', order({ c: `${'X'.repeat(30)}-USD` }), 'action.orders[0].order.c'],
      ['bad tif', order({ t: { limit: { tif: 'FOK' } } }), 'action.orders[0].order.t.limit.tif'],
      ['31-byte cloid', order({ cloid: bs58.encode(new Uint8Array(31).fill(0x33)) }), 'action.orders[0].order.cloid'],
      ['bad base58 character in cloid', order({ cloid: `0${CLOID.b58.slice(1)}` }), 'action.orders[0].order.cloid'],
      ['unknown field in an order', order({ extra: 1 }), 'action.orders[0].order.extra'],
      ['unknown item key', input({ type: 'order', orders: [{ modify: { c: 'BTC-USD' } }] }), 'action.orders[0].modify'],
      ['item key naming a prototype member', input({ type: 'order', orders: [{ toString: {} }] }), 'action.orders[0].toString'],
      ['item key __proto__ (from JSON.parse)', input({ type: 'order', orders: [JSON.parse('{"__proto__":{}}')] }), 'action.orders[0].__proto__'],
      ['order type key naming a prototype member', order({ t: { constructor: {} } }), 'action.orders[0].order.t.constructor'],
      ['two keys in one item', input({ type: 'order', orders: [{ cancel: { c: 'BTC-USD', oid: OID.b58 }, cancelAll: { c: [] } }] }), 'action.orders[0]'],
      ['bad oid', input({ type: 'order', orders: [{ cancel: { c: 'BTC-USD', oid: 'abc' } }] }), 'action.orders[0].cancel.oid'],
      ['unknown action type', input({ type: 'transfer', amount: 1 }), 'action.type'],
      ['missing action type', input({ orders: [] }), 'action.type'],
      ['101 items', input({ type: 'order', orders: Array.from({ length: 101 }, () => ({ order: limit })) }), 'action.orders'],
      ['empty batch', input({ type: 'order', orders: [] }), 'action.orders'],
      ['mismatched nonce', input({ type: 'faucet', user: USER.b58, nonce: 1 }), 'action.nonce'],
      ['non-u64 nonce in the action', input({ type: 'faucet', user: USER.b58, nonce: -1 }), 'action.nonce'],
      ['mode offchain', input({ type: 'faucet', user: USER.b58 }, { mode: 'offchain' as SignMode }), 'mode'],
      ['mode base58', input({ type: 'faucet', user: USER.b58 }, { mode: 'base58' }), 'mode'],
      ['31-byte account', input({ type: 'faucet', user: USER.b58 }, { account: bs58.encode(new Uint8Array(31).fill(1)) }), 'account'],
      ['bad base58 signer', input({ type: 'faucet', user: USER.b58 }, { signer: `I${SIGNER.b58.slice(1)}` }), 'signer'],
      ['nonce out of u64 range', input({ type: 'faucet', user: USER.b58 }, { nonce: 1n << 64n }), 'nonce'],
      ['faucet amount 0', input({ type: 'faucet', user: USER.b58, amount: 0 }), 'action.amount'],
      ['faucet user not a key', input({ type: 'faucet', user: 'alice' }), 'action.user'],
      ['settings entry not a tuple', input({ type: 'updateUserSettings', settings: { m: [['BTC-USD']] } }), 'action.settings.m[0]'],
      ['settings leverage NaN', input({ type: 'updateUserSettings', settings: { m: [['BTC-USD', NaN]] } }), 'action.settings.m[0][1]'],
      ['agent delete not boolean', input({ type: 'agentWalletCreation', agent: AGENT.b58, delete: 'yes' }), 'action.delete'],
      ['oracle timestamp negative', input({ type: 'oracle', prices: [{ timestamp: -1, symbol: 'BTC-USD', price: 1 }] }), 'action.prices[0].timestamp'],
      ['action not an object', input('order'), 'action'],
    ];
    it.each(cases)('%s', (_name, bad, field) => {
      expect(fieldOf(() => v1Codec.encode(bad))).toBe(field);
    });
  });

  it('allows exactly 100 items and market orders with px 0', () => {
    const hundred = v1Codec.encode(input({ type: 'order', orders: Array.from({ length: 100 }, () => ({ order: market })) }));
    expect(hundred.orderIds).toHaveLength(100);
    expect(new Set(hundred.orderIds).size).toBe(100);
  });
});

describe('v1Codec.encodeTrusted', () => {
  const action = { type: 'order', orders: [{ order: limit }, { cancel: { c: 'BTC-USD', oid: OID.b58 } }, { order: market }] };

  it("gives the validating encode's message, ids, path and body for an action in its parsed shape", () => {
    const trusted = v1Codec.encodeTrusted(input(action));
    const validated = v1Codec.encode(input(action));
    expect(Buffer.from(trusted.message).equals(Buffer.from(validated.message))).toBe(true);
    expect(trusted.orderIds).toEqual(validated.orderIds);
    expect(trusted.path).toBe('/order');
    expect(trusted.cancelOnly).toBe(false);
    expect(trusted.bodyText('sig')).toBe(validated.bodyText('sig'));
  });

  it('skips only the schema pass: the mode, nonce and keys are still checked', () => {
    expect(() => v1Codec.encodeTrusted(input({ type: 'order', orders: [{ order: { ...limit, sz: -1 } }] }))).not.toThrow();
    expect(() => v1Codec.encode(input({ type: 'order', orders: [{ order: { ...limit, sz: -1 } }] }))).toThrow(ValidationError);
    expect(fieldOf(() => v1Codec.encodeTrusted(input(action, { mode: 'base58' })))).toBe('mode');
    expect(fieldOf(() => v1Codec.encodeTrusted(input(action, { nonce: -1n })))).toBe('nonce');
    expect(fieldOf(() => v1Codec.encodeTrusted(input({ type: 'order', orders: [{ cancel: { c: 'BTC-USD', oid: 'not-a-key' } }] })))).toBe('oid');
  });
});
