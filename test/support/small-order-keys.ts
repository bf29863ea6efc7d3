// The Ed25519 torsion subgroup for tests of strict key checks: every 32-byte encoding of its 8 points, computed with
// @noble/ed25519 (not copied from a list), and the forged signature that verifies for the identity key under any message.
import * as ed from '@noble/ed25519';
import { littleEndian, writeLittleEndian32 } from '../../src/protocol/ed25519-scalar.js';

export const FIELD_PRIME = 2n ** 255n - 19n;

export const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** `v` (0 <= v < 2^256) as 32 little-endian bytes. */
export function le32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  writeLittleEndian32(v, out, 0);
  return out;
}

/** The 8 points of the torsion subgroup: the multiples of an order-8 point (checked to have order 8). */
function torsionPoints(): ed.Point[] {
  const order8 = ed.Point.fromBytes(Buffer.from('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', 'hex'));
  if (order8.multiply(4n, false).is0() || !order8.multiply(8n, false).is0()) throw new Error('not a point of order 8');
  const points: ed.Point[] = [];
  let p = ed.Point.ZERO;
  for (let k = 0; k < 8; k++, p = p.add(order8)) points.push(p);
  return points;
}

export interface SmallOrderEncoding {
  /** `k·T8` and the hex bytes. */
  readonly name: string;
  readonly bytes: Uint8Array;
  /** The point's RFC 8032 encoding (y < p, sign bit only for x ≠ 0). */
  readonly canonical: boolean;
}

/** Every encoding that a lenient (ZIP-215) decoder maps to a small-order point: canonical, sign bit flipped, y + p. */
function smallOrderEncodings(): SmallOrderEncoding[] {
  const out: SmallOrderEncoding[] = [];
  for (const [k, point] of torsionPoints().entries()) {
    const canonical = point.toBytes();
    const y = littleEndian(canonical.slice(0, 31)) + (BigInt(canonical[31]! & 0x7f) << 248n);
    for (const yy of y + FIELD_PRIME < 2n ** 255n ? [y, y + FIELD_PRIME] : [y]) {
      for (const sign of [0, 0x80]) {
        const bytes = le32(yy);
        bytes[31]! |= sign;
        let decoded: ed.Point | undefined;
        try {
          decoded = ed.Point.fromBytes(bytes, true);
        } catch {
          decoded = undefined;
        }
        if (decoded?.equals(point)) out.push({ name: `${k}·T8 ${hex(bytes)}`, bytes, canonical: hex(bytes) === hex(canonical) });
      }
    }
  }
  return out;
}

export const SMALL_ORDER_ENCODINGS: readonly SmallOrderEncoding[] = smallOrderEncodings();

/** The identity point (0, 1). */
export const IDENTITY = le32(1n);

/** R = identity, S = 0: S·B = R + k·A holds for the identity key A and every message. */
export const FIXED_SIGNATURE = Uint8Array.of(...IDENTITY, ...new Uint8Array(32));
