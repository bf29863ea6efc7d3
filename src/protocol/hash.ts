// SHA-256 helpers for ids and clear-sign text: one-shot node:crypto hashing (no Hash object per call).
// Invariant: the same bytes always give the same id; ids are base58 of the 32-byte digest.

import { hash } from 'node:crypto';
import { base58Encode } from './base58.js';

/** base58(sha256(bytes)): the wire form of an order id. */
export function sha256Base58(bytes: Uint8Array): string {
  return base58Encode(hash('sha256', bytes, 'buffer'));
}

/** Lowercase hex of sha256(bytes). */
export function sha256Hex(bytes: Uint8Array): string {
  return hash('sha256', bytes, 'hex');
}
