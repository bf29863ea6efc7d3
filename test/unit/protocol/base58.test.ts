import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.js';
import { base58Decode, base58Encode } from '../../../src/protocol/base58.js';

describe('base58', () => {
  it('matches bs58 on random inputs of every length 0..80, including leading zeros', () => {
    for (let len = 0; len <= 80; len++) {
      for (let k = 0; k < 25; k++) {
        const bytes = new Uint8Array(randomBytes(len));
        if (k % 5 === 0 && len > 2) bytes.fill(0, 0, 1 + (k % 3));
        const ours = base58Encode(bytes);
        expect(ours).toBe(bs58.encode(bytes));
        expect(Buffer.from(base58Decode(ours)).equals(Buffer.from(bytes))).toBe(true);
      }
    }
  });

  it('matches bs58 on 10,000 random 64-byte signatures and 32-byte keys', () => {
    for (let i = 0; i < 10_000; i++) {
      const bytes = new Uint8Array(randomBytes(i % 2 ? 64 : 32));
      const text = base58Encode(bytes);
      expect(text).toBe(bs58.encode(bytes));
      expect(base58Decode(text)).toEqual(bytes);
    }
  });

  it('encodes all-zero and edge values like bs58', () => {
    for (const bytes of [new Uint8Array(32), new Uint8Array(64).fill(255), Uint8Array.of(0, 0, 1), Uint8Array.of(255)]) {
      expect(base58Encode(bytes)).toBe(bs58.encode(bytes));
      expect(base58Decode(bs58.encode(bytes))).toEqual(bytes);
    }
    expect(base58Encode(new Uint8Array(32))).toBe('11111111111111111111111111111111');
  });

  it('rejects characters outside the alphabet with a ValidationError naming the field', () => {
    for (const bad of ['0abc', 'IlO', 'abc!', 'é']) {
      expect(() => base58Decode(bad, 'account')).toThrow(ValidationError);
      expect(() => base58Decode(bad, 'account')).toThrow(/^account: invalid base58 character/);
    }
  });
});
