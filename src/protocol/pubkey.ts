// 32-byte public keys and hashes in their base58 wire form, validated at the boundary.
// Invariants: every key that reaches a serializer decoded to exactly 32 bytes; a key decoded as an Ed25519 public
// key (account, signer, agent, oracle key) passed the strict point check (ed25519-strict.ts).

import { ValidationError } from '../core/errors.js';
import { FifoMap } from '../core/fifo-map.js';
import { custom, invalid, type Schema } from '../core/schema.js';
import { base58Decode } from './base58.js';
import { isCurvePoint, strictPointProblem } from './ed25519-strict.js';

const MAX_CACHED = 4096;
const decoded = new FifoMap<string, Uint8Array>(MAX_CACHED);
/** Keys that passed the strict check: checked once when first seen. */
const publicKeys = new FifoMap<string, Uint8Array>(MAX_CACHED);

/**
 * Decodes a base58 32-byte key or hash; throws ValidationError naming `field`. Recently decoded
 * keys come from a bounded cache (accounts and signers repeat on every request): do not mutate.
 */
export function decodeKey32(text: unknown, field: string): Uint8Array {
  if (typeof text !== 'string') throw new ValidationError(field, `expected a base58 string, got ${text === null ? 'null' : typeof text}`);
  const hit = decoded.get(text);
  if (hit) return hit;
  if (text.length < 32 || text.length > 44)
    throw new ValidationError(field, `expected 32 bytes of base58 (32 to 44 characters), got ${text.length} characters`);
  const bytes = base58Decode(text, field);
  if (bytes.length !== 32) throw new ValidationError(field, `expected 32 bytes of base58, got ${bytes.length} bytes`);
  decoded.set(text, bytes);
  return bytes;
}

/**
 * decodeKey32 for an Ed25519 public key: also refuses a non-canonical or small-order point, naming `field`.
 * Keys that passed come from a bounded cache: do not mutate.
 */
export function decodePublicKey(text: unknown, field: string): Uint8Array {
  const hit = typeof text === 'string' ? publicKeys.get(text) : undefined;
  if (hit) return hit;
  const bytes = decodeKey32(text, field);
  const problem = strictPointProblem(bytes);
  if (problem !== undefined) throw new ValidationError(field, problem);
  publicKeys.set(text as string, bytes);
  return bytes;
}

/** decodePublicKey, and the key must be a point of the curve: a costly check (not cached), for configured keys. */
export function decodeCurvePublicKey(text: unknown, field: string): Uint8Array {
  const bytes = decodePublicKey(text, field);
  if (!isCurvePoint(bytes)) throw new ValidationError(field, 'not a point of the Ed25519 curve');
  return bytes;
}

function schemaOf(expected: string, decode: (text: unknown, field: string) => Uint8Array): Schema<string> {
  return custom(expected, (v) => {
    try {
      decode(v, '');
    } catch (e) {
      invalid(e instanceof ValidationError ? e.message.replace(/^: /, '') : String(e));
    }
    return v as string;
  });
}

/** Schema for a base58 32-byte key or hash (kept as text; decoding happens in the serializer). */
export function key32(): Schema<string> {
  return schemaOf('base58 32-byte key', decodeKey32);
}

/** Schema for a base58 Ed25519 public key that may act (account, signer, agent, oracle key): decodePublicKey's checks. */
export function publicKey32(): Schema<string> {
  return schemaOf('base58 Ed25519 public key', decodePublicKey);
}

/** Schema for a configured Ed25519 public key (an oracle key): decodeCurvePublicKey's checks. */
export function curvePublicKey32(): Schema<string> {
  return schemaOf('base58 Ed25519 public key', decodeCurvePublicKey);
}
