// Base58 (Bitcoin alphabet) for keys, hashes and signatures, tuned for the signing hot path.
// Invariant: byte-for-byte identical to bs58 (tested on random inputs); leading zero bytes map to '1'.

import { ValidationError } from '../core/errors.js';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const LIMB = 656356768; // 58^5: five base58 digits per limb
const CHUNK = 65536; // input consumed 16 bits at a time so limb * CHUNK + carry < 2^53
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT_OF[ALPHABET.charCodeAt(i)] = i;
const CODE = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));

const scratch = new Float64Array(64);
const chars = Buffer.alloc(128);
const INV_LIMB = 1 / LIMB;

/** Encodes bytes as base58 text (inputs up to 64 bytes use no per-call scratch allocation). */
export function base58Encode(bytes: Uint8Array): string {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  const limbs = n <= 64 ? scratch : new Float64Array(Math.ceil(n / 3) + 2);
  let used = 0;
  let i = zeros;
  if ((n - zeros) % 2 === 1) {
    limbs[0] = bytes[i++]!;
    used = 1;
  }
  for (; i < n; i += 2) {
    let carry = (bytes[i]! << 8) | bytes[i + 1]!;
    for (let j = 0; j < used; j++) {
      const x = limbs[j]! * CHUNK + carry;
      let q = Math.floor(x * INV_LIMB);
      const r = x - q * LIMB;
      if (r < 0) {
        q--;
        limbs[j] = r + LIMB;
      } else if (r >= LIMB) {
        q++;
        limbs[j] = r - LIMB;
      } else limbs[j] = r;
      carry = q;
    }
    while (carry > 0) {
      const q = Math.floor(carry / LIMB);
      limbs[used++] = carry - q * LIMB;
      carry = q;
    }
  }
  const out = n <= 64 ? chars : Buffer.alloc(n * 2 + 8);
  let p = 0;
  for (; p < zeros; p++) out[p] = 49;
  if (used > 0) {
    let top = limbs[used - 1]!;
    const start = p;
    while (top > 0) {
      const q = Math.floor(top / 58);
      out[p++] = CODE[top - q * 58]!;
      top = q;
    }
    out.subarray(start, p).reverse();
    for (let j = used - 2; j >= 0; j--) {
      let v = limbs[j]!;
      for (let k = 4; k >= 0; k--) {
        const q = Math.floor(v / 58);
        out[p + k] = CODE[v - q * 58]!;
        v = q;
      }
      p += 5;
    }
  }
  return out.toString('latin1', 0, p);
}

/** Decodes base58 text; throws ValidationError naming `field` on a bad character. */
export function base58Decode(text: string, field = 'base58'): Uint8Array {
  const n = text.length;
  let zeros = 0;
  while (zeros < n && text.charCodeAt(zeros) === 49) zeros++;
  const limbs = n <= 96 ? scratch : new Float64Array(n);
  let used = 0;
  let i = zeros;
  const firstGroup = (n - zeros) % 5 || 5;
  for (let group = firstGroup; i < n; group = 5) {
    let value = 0;
    let mult = 1;
    for (let k = 0; k < group; k++, i++) {
      const c = text.charCodeAt(i);
      const d = c < 128 ? DIGIT_OF[c]! : -1;
      if (d < 0) throw new ValidationError(field, `invalid base58 character ${JSON.stringify(text[i])}`);
      value = value * 58 + d;
      mult *= 58;
    }
    let carry = value;
    for (let j = 0; j < used; j++) {
      const x = limbs[j]! * mult + carry;
      carry = Math.floor(x / CHUNK);
      limbs[j] = x - carry * CHUNK;
    }
    while (carry > 0) {
      const q = Math.floor(carry / CHUNK);
      limbs[used++] = carry - q * CHUNK;
      carry = q;
    }
  }
  let len = used * 2;
  if (used > 0 && limbs[used - 1]! < 256) len--;
  const out = new Uint8Array(zeros + len);
  let p = out.length - 1;
  for (let j = 0; j < used; j++) {
    const v = limbs[j]!;
    out[p--] = v & 0xff;
    if (p >= zeros) out[p--] = v >>> 8;
  }
  return out;
}
