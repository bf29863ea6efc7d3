// Ed25519 signature verification by base58 public key, with a bounded cache of node:crypto keys.
// Invariant: any malformed key or signature verifies as false; nothing here throws on input.

import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { base58Decode } from './base58.js';

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export class SignatureVerifier {
  private readonly keys = new Map<string, KeyObject>();

  constructor(private readonly maxKeys = 10_000) {}

  /** True when `signature` (base58, 64 bytes) is `publicKey`'s Ed25519 signature of `message`. */
  verify(publicKey: string, message: Uint8Array, signature: string): boolean {
    let sig: Uint8Array;
    let key: KeyObject;
    try {
      sig = base58Decode(signature);
      key = this.key(publicKey);
    } catch {
      return false;
    }
    if (sig.length !== 64) return false;
    return cryptoVerify(null, message, key, sig);
  }

  private key(publicKey: string): KeyObject {
    let key = this.keys.get(publicKey);
    if (key) return key;
    const raw = base58Decode(publicKey);
    if (raw.length !== 32) throw new Error('not a 32-byte key');
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' });
    if (this.keys.size >= this.maxKeys) this.keys.delete(this.keys.keys().next().value!);
    this.keys.set(publicKey, key);
    return key;
  }
}
