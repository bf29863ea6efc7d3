import { describe, expect, it } from 'vitest';
import { parse } from '../../../../src/core/schema.js';
import { toHex } from '../../../../src/protocol/bytes.js';
import { actionSchema } from '../../../../src/protocol/v1/actions.js';
import { serializeAction } from '../../../../src/protocol/v1/serialize.js';
import { ACCOUNT, AGENT, CLOID, NONCE, OID, SIGNER, TAIL, USER } from './fixtures.js';

// Expected bytes are assembled by hand from the table of gaps-decided §1 (little-endian, no padding).
// f64 constants were computed with Python's struct.pack('<d', x).
const BTC = '0700000000000000' + '4254432d555344'; // string: u64 len 7 ‖ "BTC-USD"
const ETH = '0700000000000000' + '4554482d555344'; // string: u64 len 7 ‖ "ETH-USD"
const F64 = {
  '0': '0000000000000000',
  '0.25': '000000000000d03f',
  '1.5': '000000000000f83f',
  '10': '0000000000002440',
  '20.5': '0000000000803440',
  '1000': '0000000000408f40',
  '3000.25': '000000008070a740',
  '94000': '0000000000f3f640',
  '95000': '000000008031f740',
  '100000.5': '00000000086af840',
};

function serialize(action: unknown): string {
  return toHex(serializeAction(parse(actionSchema, action), NONCE, ACCOUNT.b58, SIGNER.b58));
}

const limitGtc = { c: 'BTC-USD', b: true, px: 100000.5, sz: 0.25, r: false, t: { limit: { tif: 'GTC' } }, cloid: CLOID.b58 };
const limitGtcHex =
  '00000000' + // item discriminant: order 0
  BTC + // c
  '01' + // b = true
  F64['100000.5'] + // px
  F64['0.25'] + // sz
  '00' + // r = false
  '00000000' + // orderType: limit 0
  '00000000' + // tif: GTC 0
  '01' +
  CLOID.hex; // cloid: Some(hash)

const market = { c: 'ETH-USD', b: false, px: 0, sz: 1.5, r: true, t: { trigger: { is_market: true, triggerPx: 0 } } };
const marketHex =
  '00000000' + // item: order
  ETH +
  '00' + // b = false
  F64['0'] + // px 0.0
  F64['1.5'] + // sz
  '01' + // r = true
  '01000000' + // orderType: trigger 1
  '01' + // is_market = true
  F64['0'] + // triggerPx 0.0
  '00'; // cloid: None

const cancelHex = '01000000' + BTC + OID.hex; // item: cancel 1 ‖ c ‖ oid hash

describe('v1 wincode layout (hand-built vectors)', () => {
  it('one limit GTC order with cloid', () => {
    expect(serialize({ type: 'order', orders: [{ order: limitGtc }] })).toBe(
      '00000000' + // action: order 0
        '0100000000000000' + // Vec<OrderItem> count 1
        limitGtcHex +
        TAIL,
    );
  });

  it('one market order (trigger is_market, px 0)', () => {
    expect(serialize({ type: 'order', orders: [{ order: market }] })).toBe('00000000' + '0100000000000000' + marketHex + TAIL);
  });

  it('a stop-limit trigger (is_market false)', () => {
    const stop = { c: 'BTC-USD', b: false, px: 94000, sz: 0.25, r: false, t: { trigger: { is_market: false, triggerPx: 95000 } } };
    expect(serialize({ type: 'order', orders: [{ order: stop }] })).toBe(
      '00000000' +
        '0100000000000000' +
        '00000000' + // item: order
        BTC +
        '00' + // b = false
        F64['94000'] + // px (limit price after triggering)
        F64['0.25'] + // sz
        '00' + // r = false
        '01000000' + // orderType: trigger
        '00' + // is_market = false
        F64['95000'] + // triggerPx
        '00' + // cloid: None
        TAIL,
    );
  });

  it('cancel', () => {
    expect(serialize({ type: 'order', orders: [{ cancel: { c: 'BTC-USD', oid: OID.b58 } }] })).toBe('00000000' + '0100000000000000' + cancelHex + TAIL);
  });

  it('cancelAll with no symbols and with two symbols', () => {
    expect(serialize({ type: 'order', orders: [{ cancelAll: { c: [] } }] })).toBe(
      '00000000' + '0100000000000000' + '02000000' + '0000000000000000' + TAIL, // item: cancelAll 2 ‖ Vec<string> count 0
    );
    expect(serialize({ type: 'order', orders: [{ cancelAll: { c: ['BTC-USD', 'ETH-USD'] } }] })).toBe(
      '00000000' + '0100000000000000' + '02000000' + '0200000000000000' + BTC + ETH + TAIL,
    );
  });

  it('a mixed batch keeps item order', () => {
    const ioc = { c: 'ETH-USD', b: true, px: 3000.25, sz: 1.5, r: false, t: { limit: { tif: 'IOC' } } };
    const alo = { ...ioc, t: { limit: { tif: 'ALO' } } };
    expect(
      serialize({
        type: 'order',
        orders: [
          { order: limitGtc },
          { cancel: { c: 'BTC-USD', oid: OID.b58 } },
          { order: ioc },
          { cancelAll: { c: ['ETH-USD'] } },
          { order: alo },
          { order: market },
        ],
      }),
    ).toBe(
      '00000000' +
        '0600000000000000' + // six items
        limitGtcHex +
        cancelHex +
        ('00000000' + ETH + '01' + F64['3000.25'] + F64['1.5'] + '00' + '00000000' + '01000000' + '00') + // limit, tif IOC 1, no cloid
        ('02000000' + '0100000000000000' + ETH) + // cancelAll [ETH-USD]
        ('00000000' + ETH + '01' + F64['3000.25'] + F64['1.5'] + '00' + '00000000' + '02000000' + '00') + // limit, tif ALO 2
        marketHex +
        TAIL,
    );
  });

  it('updateUserSettings with two entries, in the JSON array order (not sorted)', () => {
    const action = {
      type: 'updateUserSettings',
      settings: {
        m: [
          ['ETH-USD', 20.5],
          ['BTC-USD', 10],
        ],
      },
    };
    expect(serialize(action)).toBe(
      '03000000' + // action: updateUserSettings 3
        '0200000000000000' + // n = 2
        ETH +
        F64['20.5'] +
        BTC +
        F64['10'] +
        TAIL,
    );
  });

  it('agentWalletCreation', () => {
    expect(serialize({ type: 'agentWalletCreation', agent: AGENT.b58, delete: true })).toBe(
      '04000000' + // action: agentWalletCreation 4
        AGENT.hex + // pubkey, raw 32 bytes
        '01' + // delete = true
        TAIL,
    );
  });

  it('faucet with and without amount', () => {
    expect(serialize({ type: 'faucet', user: USER.b58, amount: 1000 })).toBe('02000000' + USER.hex + '01' + F64['1000'] + TAIL);
    expect(serialize({ type: 'faucet', user: USER.b58 })).toBe('02000000' + USER.hex + '00' + TAIL);
  });

  it('oracle', () => {
    const action = {
      type: 'oracle',
      prices: [
        { timestamp: '1700000000123456789', symbol: 'BTC-USD', price: 100000.5 },
        { timestamp: 1_700_000_000_987_654_321n, symbol: 'ETH-USD', price: 3000.25 },
      ],
    };
    expect(serialize(action)).toBe(
      '01000000' + // action: oracle 1
        '0200000000000000' + // Vec count 2
        '15cd853dfe9c9717' + // u64 timestamp_ns 1700000000123456789
        BTC +
        F64['100000.5'] +
        'b1680871fe9c9717' + // u64 timestamp_ns 1700000000987654321
        ETH +
        F64['3000.25'] +
        TAIL,
    );
  });

  it('accepts keys as raw bytes, ignores the action nonce field, and writes -0 as +0', () => {
    const action = parse(actionSchema, { type: 'faucet', user: USER.b58, amount: 1000, nonce: 5 });
    const fromBytes = serializeAction(action, NONCE, new Uint8Array(32).fill(0x11), new Uint8Array(32).fill(0x22));
    expect(toHex(fromBytes)).toBe('02000000' + USER.hex + '01' + F64['1000'] + TAIL);
    const negZero = { type: 'order', orders: [{ order: { ...market, px: -0 } }] };
    expect(serialize(negZero)).toBe(serialize({ type: 'order', orders: [{ order: market }] }));
  });

  it('returns a fresh copy on every call (the writer is reused)', () => {
    const action = parse(actionSchema, { type: 'faucet', user: USER.b58 });
    const a = serializeAction(action, NONCE, ACCOUNT.b58, SIGNER.b58);
    const b = serializeAction(parse(actionSchema, { type: 'agentWalletCreation', agent: AGENT.b58, delete: false }), NONCE, ACCOUNT.b58, SIGNER.b58);
    expect(toHex(a)).toBe('02000000' + USER.hex + '00' + TAIL);
    expect(toHex(b)).toBe('04000000' + AGENT.hex + '00' + TAIL);
  });

  it('names the field of a bad key or nonce given directly', () => {
    const action = parse(actionSchema, { type: 'faucet', user: USER.b58 });
    expect(() => serializeAction(action, NONCE, new Uint8Array(31), SIGNER.b58)).toThrow(expect.objectContaining({ field: 'account' }));
    expect(() => serializeAction(action, -1n, ACCOUNT.b58, SIGNER.b58)).toThrow(expect.objectContaining({ field: 'nonce' }));
  });
});
