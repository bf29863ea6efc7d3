import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Network } from '../../../../src/core/types.js';
import { base58Encode } from '../../../../src/protocol/base58.js';
import { fromHex, toHex } from '../../../../src/protocol/bytes.js';
import type { SignMode } from '../../../../src/protocol/dialect.js';
import { decodeKey32 } from '../../../../src/protocol/pubkey.js';
import { parseActions } from '../../../../src/protocol/current/actions.js';
import { currentCodec } from '../../../../src/protocol/current/codec.js';
import { conditionalOrderId, orderId } from '../../../../src/protocol/current/order-id.js';
import { clearSignLines, clearSignText } from '../../../../src/protocol/current/wallet-mode.js';

const VECTORS = new URL('../../../fixtures/vectors/', import.meta.url);
const load = <T>(file: string): T => JSON.parse(readFileSync(new URL(file, VECTORS), 'utf8')) as T;

interface SdkVector {
  name: string;
  domain: Network;
  nonce: string;
  account: string;
  actions: unknown[];
  signable_hex: string;
  default_meta_order_ids: (string | null)[];
}
interface ClearSignVector {
  actions: unknown[];
  message_hex: string;
  canonical_text: string;
}
interface WalletVector {
  name: string;
  mode: 'Raw' | 'Base58' | 'Offchain';
  domain: Network;
  nonce: string;
  account: string;
  signer: string;
  actions: unknown[];
  raw_hex: string;
  message_hex: string;
  canonical_text: string;
  signature: string;
}

const sdk = load<{ vectors: SdkVector[] }>('bulk-client/sdk-signing-vectors.json').vectors;
const clearSign = load<{ vectors: ClearSignVector[] }>('bulk-keychain/clear_sign_sdk.json').vectors;
const wallet = load<{ vectors: WalletVector[] }>('bulk-keychain/wallet-mode-vectors.json').vectors;

const ZERO_KEY = '11111111111111111111111111111111';
const SEED = Buffer.alloc(32, 0x09);
const PRIVATE_KEY = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), SEED]), format: 'der', type: 'pkcs8' });

const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const signB58 = (message: Uint8Array): string => base58Encode(sign(null, message, PRIVATE_KEY));
/** The clear-sign text carried by an offchain envelope (payload after the 85-byte header). */
const offchainPayload = (message: Uint8Array): string => Buffer.from(message.subarray(85)).toString('utf8');

function encode(v: { actions: unknown[]; account: string; nonce: string; domain: Network }, mode: SignMode, signer = v.account) {
  return currentCodec.encode({ actions: v.actions, account: v.account, signer, nonce: BigInt(v.nonce), network: v.domain, mode });
}

describe('bulk-client sdk-signing-vectors.json (SDK bc0ea23f)', () => {
  it('holds 18 vectors', () => expect(sdk).toHaveLength(18));

  it.each(sdk.map((v) => [v.name, v] as const))('%s: signable bytes and default-meta order ids', (_name, v) => {
    const encoded = encode(v, 'raw');
    expect(toHex(encoded.signable)).toBe(v.signable_hex);
    expect(encoded.message).toBe(encoded.signable);
    const zero = new Uint8Array(32);
    expect(parseActions(v.actions).map((a) => orderId(a, 0, zero, 0n))).toEqual(v.default_meta_order_ids);
  });

  it.each(sdk.map((v) => [v.name, v] as const))('%s: codec order ids use the real seqno, account and nonce', (_name, v) => {
    const encoded = encode(v, 'raw');
    const account = decodeKey32(v.account, 'account');
    const actions = parseActions(v.actions);
    const expected = actions.map((a, i) => orderId(a, i, account, BigInt(v.nonce)) ?? conditionalOrderId(a, i, account, BigInt(v.nonce)));
    expect(encoded.orderIds).toEqual(expected);
    // the SDK's ids where it computes one; perpbot's rule for a top-level conditional; none for a multisig proposal
    expect(encoded.orderIds.map((id) => id === null)).toEqual(actions.map((a, i) => v.default_meta_order_ids[i] === null && 'msp' in a));
  });
});

describe('bulk-keychain clear_sign_sdk.json (SDK 1521f300)', () => {
  it('holds 23 vectors', () => expect(clearSign).toHaveLength(23));

  const cases = clearSign.map((v, i) => [`${i} ${Object.keys(v.actions[0] as object)[0]}`, v] as const);

  it.each(cases)('%s: signable bytes, clear-sign text and Signable-Hash', (_label, v) => {
    const tx = { actions: v.actions, account: ZERO_KEY, nonce: '42', domain: 'devnet' as const };
    const encoded = encode(tx, 'offchain');
    expect(toHex(encoded.signable)).toBe(v.message_hex);
    expect(v.canonical_text).toContain(`Signable-Hash: ${sha256Hex(fromHex(v.message_hex))}\n`);
    const text = clearSignText({ network: 'devnet', account: ZERO_KEY, nonce: 42n, signable: encoded.signable }, clearSignLines(parseActions(v.actions)));
    expect(text).toBe(v.canonical_text);
    expect(offchainPayload(encoded.message)).toBe(v.canonical_text);
  });
});

describe('bulk-keychain wallet-mode-vectors.json (seed 0x09 x 32)', () => {
  it('holds 6 vectors and the seed derives the vector account', () => {
    expect(wallet).toHaveLength(6);
    const spki = createPublicKey(PRIVATE_KEY).export({ format: 'der', type: 'spki' });
    expect(base58Encode(spki.subarray(spki.length - 32))).toBe(wallet[0]!.account);
  });

  it.each(wallet.map((v) => [`${v.name} ${v.mode}`, v] as const))('%s: raw bytes, message, clear-sign text and Ed25519 signature', (_label, v) => {
    const encoded = encode(v, v.mode.toLowerCase() as SignMode, v.signer);
    expect(toHex(encoded.signable)).toBe(v.raw_hex);
    expect(toHex(encoded.message)).toBe(v.message_hex);
    const text = clearSignText(
      { network: v.domain, account: v.account, nonce: BigInt(v.nonce), signable: encoded.signable },
      clearSignLines(parseActions(v.actions)),
    );
    expect(text).toBe(v.canonical_text);
    if (v.mode === 'Offchain') expect(offchainPayload(encoded.message)).toBe(v.canonical_text);
    expect(signB58(fromHex(v.message_hex))).toBe(v.signature);
    expect(signB58(encoded.message)).toBe(v.signature);
    expect(JSON.parse(encoded.bodyText(v.signature))).toEqual({
      actions: v.actions,
      nonce: v.nonce,
      account: v.account,
      signer: v.signer,
      signature: v.signature,
    });
  });
});
