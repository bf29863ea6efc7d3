// Base58 (Bitcoin alphabet) for keys, hashes and signatures, tuned for the signing hot path.
// Invariant: byte-for-byte identical to bs58 (tested on random inputs); leading zero bytes map to '1'.

import { ValidationError } from '../core/errors.js';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const LIMB = 656356768; // 58^5: five base58 digits per limb
const CHUNK = 65536; // input consumed 16 bits at a time so limb * CHUNK + carry < 2^53
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT_OF[ALPHABET.charCodeAt(i)] = i;
const PAIR = new Array<string>(58 * 58);
for (let i = 0; i < 58 * 58; i++) PAIR[i] = ALPHABET[Math.floor(i / 58)]! + ALPHABET[i % 58]!;

const scratch: number[] = [];

/** Encodes bytes as base58 text. */
export function base58Encode(bytes: Uint8Array): string {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  const limbs = scratch;
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
      carry = Math.floor(x / LIMB);
      limbs[j] = x - carry * LIMB;
    }
    while (carry > 0) {
      const q = Math.floor(carry / LIMB);
      limbs[used++] = carry - q * LIMB;
      carry = q;
    }
  }
  let out = '1'.repeat(zeros);
  if (used === 0) return out;
  let top = limbs[used - 1]!;
  let head = '';
  while (top > 0) {
    head = ALPHABET[top % 58]! + head;
    top = Math.floor(top / 58);
  }
  out += head;
  for (let j = used - 2; j >= 0; j--) out += limbText(limbs[j]!);
  return out;
}

function limbText(v: number): string {
  const lo = v % 3364;
  const mid = Math.floor(v / 3364) % 3364;
  const hi = Math.floor(v / 11316496);
  return ALPHABET[hi]! + PAIR[mid]! + PAIR[lo]!;
}

/** Decodes base58 text; throws ValidationError naming `field` on a bad character. */
export function base58Decode(text: string, field = 'base58'): Uint8Array {
  const n = text.length;
  let zeros = 0;
  while (zeros < n && text.charCodeAt(zeros) === 49) zeros++;
  const limbs = scratch;
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
