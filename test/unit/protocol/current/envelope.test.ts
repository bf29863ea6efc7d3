import { describe, expect, it } from 'vitest';
import { ConfigError, ValidationError } from '../../../../src/core/errors.js';
import { toHex } from '../../../../src/protocol/bytes.js';
import { toFx } from '../../../../src/protocol/fixed.js';
import type { EncodeInput } from '../../../../src/protocol/dialect.js';
import { parseActions } from '../../../../src/protocol/current/actions.js';
import { createCurrentCodec, currentCodec } from '../../../../src/protocol/current/codec.js';
import { orderId } from '../../../../src/protocol/current/order-id.js';
import { DEFAULT_MAX_SCHEMA, envelopeOf, LEGACY } from '../../../../src/protocol/current/serialize.js';
import { formatDecimal8, formatScaled } from '../../../../src/protocol/current/wallet-mode.js';
import { decodeKey32 } from '../../../../src/protocol/pubkey.js';

const ACCOUNT = 'J2xccRtuG43drESLYznHhLhQkLTdfepcKYbiQ9BsJVaf';
const KEY = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
const BUILDER = { to: KEY, fee: 5 };
const limit = (over: Record<string, unknown> = {}) => ({ l: { c: 'BTC-USD', b: true, px: '100', sz: '1', tif: 'GTC', r: false, i: false, ...over } });
const market = (over: Record<string, unknown> = {}) => ({ m: { c: 'BTC-USD', b: true, sz: 1, r: false, i: false, ...over } });
const stop = (over: Record<string, unknown> = {}) => ({ st: { c: 'BTC-USD', d: true, sz: 1, tr: 100, i: false, ...over } });
const trig = (actions: unknown[]) => ({ trig: { c: 'BTC-USD', d: true, tr: 100, actions } });
const input = (actions: unknown[], over: Partial<EncodeInput> = {}): EncodeInput => ({
  actions,
  account: ACCOUNT,
  signer: ACCOUNT,
  nonce: 42n,
  network: 'devnet',
  mode: 'raw',
  ...over,
});
const envelope = (actions: unknown[], codec = currentCodec) => envelopeOf(codec.encode(input(actions)).signable);
/** The last 41 bytes are nonce ‖ account ‖ network; this strips them to look at the end of the last body. */
const bodyTail = (signable: Uint8Array, n: number) => toHex(signable.subarray(signable.length - 41 - n, signable.length - 41));

function failure(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ValidationError) return e;
    throw e;
  }
  throw new Error('expected a ValidationError');
}

describe('envelope selection', () => {
  it('defaults to a maximum of V3', () => expect(DEFAULT_MAX_SCHEMA).toBe(3));

  it('a plain limit order is Legacy: the bytes start with the u64 action count', () => {
    const { signable } = currentCodec.encode(input([limit()]));
    expect(envelopeOf(signable)).toBe(LEGACY);
    expect(toHex(signable.subarray(0, 12))).toBe('0100000000000000' + '01000000');
    expect(signable[signable.length - 1]).toBe(3);
  });

  it('plain m, cx, cxa, account actions and conditionals stay Legacy', () => {
    expect(envelope([market(), { cxa: { c: [] } }, stop(), { faucet: { u: KEY } }])).toBe(LEGACY);
  });

  it('market slippage anywhere selects V2', () => {
    expect(envelope([market({ slippage: 25 })])).toBe(2);
    expect(envelope([limit(), trig([market({ slippage: '10' })])])).toBe(2);
  });

  it('any builder code anywhere selects V3', () => {
    expect(envelope([limit({ builderCode: BUILDER })])).toBe(3);
    expect(envelope([market({ slippage: 25 }), stop({ builderCode: BUILDER })])).toBe(3);
    expect(envelope([trig([market(), limit({ builderCode: BUILDER })])])).toBe(3);
    expect(envelope([{ msp: { m: KEY, a: [{ of: { trigger: market({ builderCode: BUILDER }), actions: [limit()] } }] } }])).toBe(3);
  });

  it('V3 adds the builder option to conditionals; V2 does not', () => {
    expect(bodyTail(currentCodec.encode(input([market({ slippage: 1 }), stop()])).signable, 1)).toBe('00');
    const v3 = currentCodec.encode(input([limit({ builderCode: BUILDER }), stop()])).signable;
    expect(bodyTail(v3, 2)).toBe('0000');
  });

  it('with maxSchema 2, a builder code is a clear error naming the field', () => {
    const codec = createCurrentCodec({ maxSchema: 2 });
    expect(envelope([market({ slippage: 25 })], codec)).toBe(2);
    const err = failure(() => codec.encode(input([market(), trig([market(), limit({ builderCode: BUILDER })])])));
    expect(err.field).toBe('actions[1].trig.actions[1].l.builderCode');
    expect(err.message).toMatch(/builder code needs envelope V3, but the maximum schema is V2/);
  });

  it('conditional-order slippage needs V4, which is opt-in', () => {
    const err = failure(() => currentCodec.encode(input([limit(), stop({ slippage: 5 })])));
    expect(err.field).toBe('actions[1].st.slippage');
    expect(err.message).toMatch(/V4/);
    const rng = { rng: { c: 'BTC-USD', d: true, sz: 1, pmin: 90, pmax: 110, i: false, tpSlippage: 3 } };
    expect(failure(() => currentCodec.encode(input([rng]))).field).toBe('actions[0].rng.tpSlippage');
  });

  it('with maxSchema 4, any conditional leaf selects V4 and gains the slippage options', () => {
    const codec = createCurrentCodec({ maxSchema: 4 });
    expect(envelope([limit()], codec)).toBe(LEGACY);
    expect(envelope([market({ slippage: 25 })], codec)).toBe(2);
    expect(envelope([limit({ builderCode: BUILDER })], codec)).toBe(3);
    const st = codec.encode(input([stop()])).signable;
    expect(envelopeOf(st)).toBe(4);
    expect(bodyTail(st, 3)).toBe('00' + '00' + '00'); // i, builder None, slippage None
    const withSlippage = codec.encode(input([trig([stop({ slippage: 5 })])])).signable;
    // i, builder None, slippage Some(5 bps)
    expect(bodyTail(withSlippage, 11)).toBe('00' + '00' + '01' + toHex(u64le(500_000_000n)));
    const rng = { rng: { c: 'BTC-USD', d: true, sz: 1, pmin: 90, pmax: 110, i: false, slSlippage: 2 } };
    // i, builder None, slSlippage Some(2 bps), tpSlippage None
    expect(bodyTail(codec.encode(input([rng])).signable, 12)).toBe('00' + '00' + '01' + toHex(u64le(200_000_000n)) + '00');
  });

  it('rejects a maxSchema outside 2..4', () => {
    expect(() => createCurrentCodec({ maxSchema: 5 as never })).toThrow(ConfigError);
    expect(() => createCurrentCodec({ maxSchema: 1 as never })).toThrow(ConfigError);
  });
});

function u64le(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, v, true);
  return out;
}

describe('fixed-point values (§3.4)', () => {
  it('rounds the f64 product half away from zero', () => {
    expect(toFx('1.000000005', 'sz')).toBe(100000001n);
    expect(toFx('100.123456789', 'px')).toBe(10012345679n);
    expect(toFx('0.000000015', 'sz')).toBe(1n);
  });

  it('writes those values into the limit body', () => {
    const { signable } = currentCodec.encode(input([limit({ px: '100.123456789', sz: '1.000000005' })]));
    expect(toHex(signable)).toContain(toHex(u64le(10012345679n)) + toHex(u64le(100000001n)) + '00000000');
  });
});

describe('clear-sign number formatting', () => {
  it('prints scaled fields at the signed 1e-8 resolution', () => {
    expect(formatScaled('1.000000005')).toBe('1.00000001');
    expect(formatScaled('100.123456789')).toBe('100.12345679');
    expect(formatScaled(25)).toBe('25.00000000');
    expect(formatScaled('0')).toBe('0.00000000');
    expect(formatScaled(123456.7)).toBe('123456.70000000');
  });

  it('prints plain f64 values like Rust {:.8}: exact binary value, ties to even', () => {
    expect(formatDecimal8(12.5)).toBe('12.50000000');
    expect(formatDecimal8(4.125)).toBe('4.12500000');
    expect(formatDecimal8(0.1)).toBe('0.10000000');
    expect(formatDecimal8(0.001953125)).toBe('0.00195312');
    expect(formatDecimal8(0.005859375)).toBe('0.00585938');
    expect(formatDecimal8(1e21)).toBe('1000000000000000000000.00000000');
  });
});

describe('order ids and the request body', () => {
  it('gives m/l an id from their index, account and nonce, and null to other actions', () => {
    const actions = [{ cx: { c: 'BTC-USD', oid: KEY } }, limit(), limit()];
    const { orderIds } = currentCodec.encode(input(actions));
    const parsed = parseActions(actions);
    const account = decodeKey32(ACCOUNT, 'account');
    expect(orderIds[0]).toBeNull();
    expect(orderIds[1]).toBe(orderId(parsed[1]!, 1, account, 42n));
    expect(orderIds[2]).toBe(orderId(parsed[2]!, 2, account, 42n));
    expect(orderIds[1]).not.toBe(orderIds[2]);
  });

  it('ignores builder codes in the id but not slippage', () => {
    const zero = new Uint8Array(32);
    const [plain, built, slipped] = parseActions([market(), market({ builderCode: BUILDER }), market({ slippage: 25 })]);
    expect(orderId(built!, 0, zero, 0n)).toBe(orderId(plain!, 0, zero, 0n));
    expect(orderId(slipped!, 0, zero, 0n)).not.toBe(orderId(plain!, 0, zero, 0n));
  });

  it('posts to /order with the nonce as a decimal string and the validated actions', () => {
    const nonce = (1n << 63n) + 7n;
    const encoded = currentCodec.encode(input([limit()], { nonce }));
    expect(encoded.path).toBe('/order');
    const signature = '1'.repeat(64);
    expect(JSON.parse(encoded.bodyText(signature))).toEqual({ actions: [limit()], nonce: nonce.toString(), account: ACCOUNT, signer: ACCOUNT, signature });
  });

  it('normalizes renameSubAccount {account, name} to the wire form {a, n} with identical bytes', () => {
    const wire = currentCodec.encode(input([{ renameSubAccount: { a: KEY, n: 'desk-2' } }]));
    const fixture = currentCodec.encode(input([{ renameSubAccount: { account: KEY, name: 'desk-2' } }]));
    expect(fixture.signable).toEqual(wire.signable);
    expect(JSON.parse(fixture.bodyText('1'.repeat(64))).actions).toEqual([{ renameSubAccount: { a: KEY, n: 'desk-2' } }]);
  });

  it('writes an msp lifetime as Some(u32) after the nested actions (docs layout, unpinned)', () => {
    const { signable } = currentCodec.encode(input([{ msp: { m: KEY, a: [limit()], l: 3600 } }]));
    expect(bodyTail(signable, 6)).toBe('00' + '01' + '100e0000'); // nested l's LegacyEmbedded builder None, then Some(3600)
  });

  it('sorts the leverage map by key bytes whatever the insertion order', () => {
    const a = currentCodec.encode(input([{ updateUserSettings: { m: { 'ETH-USD': 4, 'BTC-USD': 10 } } }])).signable;
    const b = currentCodec.encode(input([{ updateUserSettings: { m: { 'BTC-USD': 10, 'ETH-USD': 4 } } }])).signable;
    expect(a).toEqual(b);
  });
});

describe('encodeTrusted', () => {
  it("gives the validating encode's bytes, ids and body for actions in their parsed shape", () => {
    const actions = [limit({ px: 100.5, sz: 0.25, tif: 'ALO' }), market(), { cx: { c: 'BTC-USD', oid: KEY } }];
    const trusted = currentCodec.encodeTrusted(input(actions));
    const validated = currentCodec.encode(input(actions));
    expect(toHex(trusted.signable)).toBe(toHex(validated.signable));
    expect(toHex(trusted.message)).toBe(toHex(validated.message));
    expect(trusted.orderIds).toEqual(validated.orderIds);
    expect(trusted.bodyText('sig')).toBe(validated.bodyText('sig'));
  });

  it('still checks the nonce, network, mode and keys', () => {
    expect(failure(() => currentCodec.encodeTrusted(input([limit()], { nonce: -1n }))).field).toBe('nonce');
    expect(failure(() => currentCodec.encodeTrusted(input([limit()], { mode: 'bad' as EncodeInput['mode'] }))).field).toBe('mode');
    expect(failure(() => currentCodec.encodeTrusted(input([{ cx: { c: 'BTC-USD', oid: 'not-a-key' } }]))).field).toBe('oid');
  });
});
