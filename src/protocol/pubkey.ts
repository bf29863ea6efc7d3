// 32-byte public keys and hashes in their base58 wire form, validated at the boundary.
// Invariant: every key that reaches a serializer decoded to exactly 32 bytes.

import { ValidationError } from '../core/errors.js';
import { custom, invalid, type Schema } from '../core/schema.js';
import { base58Decode } from './base58.js';

const decoded = new Map<string, Uint8Array>();
const MAX_CACHED = 4096;

/**
 * Decodes a base58 32-byte key or hash; throws ValidationError naming `field`. Recently decoded
 * keys come from a bounded cache (accounts and signers repeat on every request): do not mutate.
 */
export function decodeKey32(text: unknown, field: string): Uint8Array {
  if (typeof text !== 'string') throw new ValidationError(field, `expected a base58 string, got ${text === null ? 'null' : typeof text}`);
  const hit = decoded.get(text);
  if (hit) return hit;
  if (text.length < 32 || text.length > 44) throw new ValidationError(field, `expected 32 bytes of base58 (32 to 44 characters), got ${text.length} characters`);
  const bytes = base58Decode(text, field);
  if (bytes.length !== 32) throw new ValidationError(field, `expected 32 bytes of base58, got ${bytes.length} bytes`);
  if (decoded.size >= MAX_CACHED) decoded.clear();
  decoded.set(text, bytes);
  return bytes;
}

/** Schema for a base58 32-byte key or hash (kept as text; decoding happens in the serializer). */
export function key32(): Schema<string> {
  return custom('base58 32-byte key', (v) => {
    try {
      decodeKey32(v, '');
    } catch (e) {
      invalid(e instanceof ValidationError ? e.message.replace(/^: /, '') : String(e));
    }
    return v as string;
  });
}
