// Strict Ed25519 signature verification by base58 public key, with a bounded cache of node:crypto keys.
// Invariants: any malformed, non-canonical or small-order key, and any signature with such an R or with S ≥ L,
// verifies as false (ed25519-strict.ts); a key is checked once, when first seen; nothing here throws on input.

import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { FifoMap } from '../core/fifo-map.js';
import { base58Decode } from './base58.js';
import { strictSignatureProblem } from './ed25519-strict.js';
import { decodePublicKey } from './pubkey.js';

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The 64 signature bytes of base58 `text` when they pass the strict checks, else undefined. */
export function strictSignatureBytes(text: string): Uint8Array | undefined {
  let sig: Uint8Array;
  try {
    sig = base58Decode(text);
  } catch {
    return undefined;
  }
  return sig.length === 64 && strictSignatureProblem(sig) === undefined ? sig : undefined;
}

/** The 32 bytes of a base58 public key that passes the strict checks (cached), else undefined. */
export function strictPublicKeyBytes(text: string): Uint8Array | undefined {
  try {
    return decodePublicKey(text, 'publicKey');
  } catch {
    return undefined;
  }
}

export class SignatureVerifier {
  private readonly keys: FifoMap<string, KeyObject>;

  constructor(maxKeys = 10_000) {
    this.keys = new FifoMap(maxKeys);
  }

  /** True when `signature` (base58, 64 bytes) is `publicKey`'s strict Ed25519 signature of `message`. */
  verify(publicKey: string, message: Uint8Array, signature: string): boolean {
    const sig = strictSignatureBytes(signature);
    const key = sig && this.key(publicKey);
    return key !== undefined && cryptoVerify(null, message, key, sig!);
  }

  private key(publicKey: string): KeyObject | undefined {
    let key = this.keys.get(publicKey);
    if (key) return key;
    const raw = strictPublicKeyBytes(publicKey);
    if (!raw) return undefined;
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' });
    this.keys.set(publicKey, key);
    return key;
  }
}
