import { afterEach, describe, expect, it, vi } from 'vitest';
import { ValidationError } from '../../../../src/core/errors.js';
import { ByteWriter } from '../../../../src/protocol/bytes.js';
import type { EncodeInput } from '../../../../src/protocol/dialect.js';
import { MAX_ACTIONS, MAX_NESTING } from '../../../../src/protocol/current/actions.js';
import { currentCodec } from '../../../../src/protocol/current/codec.js';

const ACCOUNT = 'J2xccRtuG43drESLYznHhLhQkLTdfepcKYbiQ9BsJVaf';
const KEY = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
const limit = (over: Record<string, unknown> = {}) => ({ l: { c: 'BTC-USD', b: true, px: '100', sz: '1', tif: 'GTC', r: false, i: false, ...over } });
const market = (over: Record<string, unknown> = {}) => ({ m: { c: 'BTC-USD', b: true, sz: 1, r: false, i: false, ...over } });
const input = (actions: unknown, over: Partial<EncodeInput> = {}): EncodeInput => ({
  actions,
  account: ACCOUNT,
  signer: ACCOUNT,
  nonce: 42n,
  network: 'devnet',
  mode: 'raw',
  ...over,
});
const without = (o: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== key));

function failure(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ValidationError) return e;
    throw e;
  }
  throw new Error('expected a ValidationError');
}

function nest(depth: number): unknown {
  return depth === 0 ? limit() : { msp: { m: KEY, a: [nest(depth - 1)] } };
}

afterEach(() => {
  vi.restoreAllMocks();
});

const BAD_ACTIONS: [string, string, unknown][] = [
  ['NaN size', 'actions[0].l.sz', [limit({ sz: NaN })]],
  ['"NaN" size string', 'actions[0].l.sz', [limit({ sz: 'NaN' })]],
  ['negative size', 'actions[0].l.sz', [limit({ sz: -1 })]],
  ['negative size string', 'actions[0].m.sz', [market({ sz: '-0.5' })]],
  ['size that rounds to zero', 'actions[0].l.sz', [limit({ sz: '0.000000004' })]],
  ['Infinity price', 'actions[0].l.px', [limit({ px: Infinity })]],
  ['lowercase symbol btc-usd', 'actions[0].l.c', [limit({ c: 'btc-usd' })]],
  ['symbol without dash BTCUSD', 'actions[0].l.c', [limit({ c: 'BTCUSD' })]],
  ['oversize symbol', 'actions[0].l.c', [limit({ c: `${'X'.repeat(30)}-USD` })]],
  ['sub-account name over 64 UTF-8 bytes', 'actions[0].createSubAccount.name', [{ createSubAccount: { name: '测'.repeat(22) } }]],
  ['unknown action tag', 'actions[1].px', [limit(), { px: { t: 1, c: 'BTC-USD', px: 1 } }]],
  ['builder fee 16', 'actions[0].l.builderCode.fee', [limit({ builderCode: { to: KEY, fee: 16 } })]],
  ['builder fee 0', 'actions[0].m.builderCode.fee', [market({ builderCode: { to: KEY, fee: 0 } })]],
  ['missing i on m', 'actions[0].m.i', [{ m: without(market().m, 'i') }]],
  ['missing i on st', 'actions[0].st.i', [{ st: { c: 'BTC-USD', d: true, sz: 1, tr: 100 } }]],
  ['more than 100 actions', 'actions', Array.from({ length: MAX_ACTIONS + 1 }, () => limit())],
  ['empty action list', 'actions', []],
  ['actions not an array', 'actions', { l: limit().l }],
  ['unknown field (typo)', 'actions[0].l.reduceOnly', [limit({ reduceOnly: true })]],
  ['bad tif', 'actions[0].l.tif', [limit({ tif: 'FOK' })]],
  ['bad size inside trig', 'actions[0].trig.actions[1].l.sz', [{ trig: { c: 'BTC-USD', d: true, tr: 100, actions: [market(), limit({ sz: 'x' })] } }]],
  ['faucet inside trig', 'actions[0].trig.actions[0].faucet', [{ trig: { c: 'BTC-USD', d: true, tr: 100, actions: [{ faucet: { u: KEY } }] } }]],
  ['on-fill trigger that is not m/l', 'actions[0].of.trigger.cx', [{ of: { trigger: { cx: { c: 'BTC-USD', oid: KEY } }, actions: [market()] } }]],
  ['Gen A trig.i', 'actions[0].trig.i', [{ trig: { c: 'BTC-USD', d: true, tr: 100, i: false, actions: [market()] } }]],
  ['leverage Infinity', 'actions[0].updateUserSettings.m.BTC-USD', [{ updateUserSettings: { m: { 'BTC-USD': Infinity } } }]],
  ['leverage for a bad symbol', 'actions[0].updateUserSettings.m.BTC', [{ updateUserSettings: { m: { BTC: 5 } } }]],
  ['quoted marginAmount', 'actions[0].transfer.marginAmount', [{ transfer: { k: 'internal', from: KEY, to: ACCOUNT, marginAmount: '1.5' } }]],
  ['bad key inside cancel', 'actions[0].cx.oid', [{ cx: { c: 'BTC-USD', oid: 'short' } }]],
  [
    'multisig threshold above signers',
    'actions[0].createMultisig',
    [{ createMultisig: { signers: [KEY], threshold: 2, timeLockSecs: 0, proposalLifetimeSecs: 60 } }],
  ],
  ['msu outside msp', 'actions[0].msu', [{ msu: { m: KEY, signers: [KEY], threshold: 1, timeLockSecs: 0, proposalLifetimeSecs: 60 } }]],
  ['proposal id that is not a u64', 'actions[0].msa.p', [{ msa: { m: KEY, p: -1 } }]],
];

describe('current codec validation', () => {
  it.each(BAD_ACTIONS)('%s → ValidationError on %s, before any byte is written', (_label, field, actions) => {
    const u32 = vi.spyOn(ByteWriter.prototype, 'u32');
    const err = failure(() => currentCodec.encode(input(actions)));
    expect(err.field).toBe(field);
    expect(err.message.startsWith(`${field}: `)).toBe(true);
    expect(u32).not.toHaveBeenCalled();
  });

  it('rejects nesting deeper than MAX_NESTING and accepts MAX_NESTING', () => {
    expect(() => currentCodec.encode(input([nest(MAX_NESTING)]))).not.toThrow();
    const err = failure(() => currentCodec.encode(input([nest(MAX_NESTING + 1)])));
    expect(err.field).toBe(`actions[0]${'.msp.a[0]'.repeat(MAX_NESTING + 1)}`);
    expect(err.message).toMatch(/nested more than 4 levels/);
  });

  it.each([
    ['account too short', 'account', { account: '1111' }],
    ['account with a bad base58 character', 'account', { account: `0${ACCOUNT.slice(1)}` }],
    ['account decoding to 33 bytes', 'account', { account: 'z'.repeat(44) }],
    ['signer with a bad character', 'signer', { signer: `${ACCOUNT.slice(0, -1)}l` }],
    ['negative nonce', 'nonce', { nonce: -1n }],
    ['nonce above u64', 'nonce', { nonce: 1n << 64n }],
    ['unknown network', 'network', { network: 'localnet' as never }],
    ['unknown mode', 'mode', { mode: 'hex' as never }],
  ] as const)('%s → ValidationError on %s', (_label, field, over) => {
    const u32 = vi.spyOn(ByteWriter.prototype, 'u32');
    expect(failure(() => currentCodec.encode(input([limit()], over))).field).toBe(field);
    expect(u32).not.toHaveBeenCalled();
  });

  it('accepts lowercase tif and encodes it like uppercase', () => {
    const upper = currentCodec.encode(input([limit({ tif: 'ALO' })])).signable;
    expect(currentCodec.encode(input([limit({ tif: 'alo' })])).signable).toEqual(upper);
  });

  it('accepts numbers and decimal strings for scaled fields alike', () => {
    const a = currentCodec.encode(input([limit({ px: 100.5, sz: 2 })])).signable;
    expect(currentCodec.encode(input([limit({ px: '100.5', sz: '2' })])).signable).toEqual(a);
  });

  it('refuses offchain clear-sign text for actions with no defined text, naming the action', () => {
    const msp = { msp: { m: KEY, a: [limit()] } };
    expect(failure(() => currentCodec.encode(input([limit(), msp], { mode: 'offchain' }))).field).toBe('actions[1].msp');
    const nested = { trig: { c: 'BTC-USD', d: true, tr: 100, actions: [market()] } };
    expect(() => currentCodec.encode(input([nested], { mode: 'offchain' }))).not.toThrow();
    expect(() => currentCodec.encode(input([msp], { mode: 'base58' }))).not.toThrow();
  });
});
