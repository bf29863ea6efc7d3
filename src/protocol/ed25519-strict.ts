// Strict Ed25519 acceptance (RFC 8032 §5.1.7 read strictly, as libsodium and @noble/ed25519 with `zip215: false`):
// point encodings canonical (y < p), S < L, and neither the public key A nor the commitment R of small order.
// Invariants: the checks compare bytes only (no point arithmetic, no allocation); node:crypto's verify stays the
// signature equation (it already refuses S ≥ L, and an R that is not its own canonical re-encoding).

import * as ed from '@noble/ed25519';
import { GROUP_ORDER, writeLittleEndian32 } from './ed25519-scalar.js';

/** The field prime p = 2^255 − 19. */
const FIELD_PRIME = 2n ** 255n - 19n;

/** y of two of the four points of order 8 (the other two have y = p − ORDER_8_Y). */
const ORDER_8_Y = 0x7a03ac9277fdc74ec6cc392cfa53202a0f67100d760b3cba4fd84d3d706a17c7n;

function littleEndian32(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  writeLittleEndian32(value, out, 0);
  return out;
}

const FIELD_PRIME_LE = littleEndian32(FIELD_PRIME);
const GROUP_ORDER_LE = littleEndian32(GROUP_ORDER);

/**
 * The y coordinates of the 8 small-order points (the torsion subgroup): 1 (identity), p − 1 (order 2), 0 (order 4,
 * x = ±√−1) and ±ORDER_8_Y (order 8). Every point with one of these y, either sign of x, is of small order.
 */
const SMALL_ORDER_Y = [1n, FIELD_PRIME - 1n, 0n, ORDER_8_Y, FIELD_PRIME - ORDER_8_Y].map(littleEndian32);

/** Compares the 32-byte little-endian integer at `bytes[at]` (its bit 255 masked off when `masked`) with `ref`. */
function compare(bytes: Uint8Array, at: number, ref: Uint8Array, masked: boolean): number {
  const top = masked ? bytes[at + 31]! & 0x7f : bytes[at + 31]!;
  if (top !== ref[31]) return top - ref[31]!;
  for (let i = 30; i >= 0; i--) if (bytes[at + i] !== ref[i]) return bytes[at + i]! - ref[i]!;
  return 0;
}

/**
 * Why the 32-byte point encoding at `bytes[at]` is refused, or undefined: a y ≥ p (a non-canonical alias of another
 * point), or a point of small order (whose fixed signatures verify for every message, or a fraction of them; this
 * includes the non-canonical "x = 0 with the sign bit set" encodings, which exist only for y = ±1). Whether the point
 * is on the curve at all is left to the verify equation, which fails for one that is not (see isCurvePoint).
 */
export function strictPointProblem(bytes: Uint8Array, at = 0): string | undefined {
  if (compare(bytes, at, FIELD_PRIME_LE, true) >= 0) return 'a non-canonical point encoding (y ≥ p)';
  for (const y of SMALL_ORDER_Y) if (compare(bytes, at, y, true) === 0) return 'a point of small order, not an Ed25519 public key';
  return undefined;
}

/** Why a 64-byte signature R ‖ S is refused, or undefined: R refused by strictPointProblem, or S ≥ L. */
export function strictSignatureProblem(signature: Uint8Array): string | undefined {
  const r = strictPointProblem(signature, 0);
  if (r !== undefined) return `R is ${r}`;
  return compare(signature, 32, GROUP_ORDER_LE, false) >= 0 ? 'S is not below the group order L' : undefined;
}

/** True when the 32 bytes decode strictly to a point of the curve (a square root exists): a costly check, for configuration. */
export function isCurvePoint(bytes: Uint8Array): boolean {
  try {
    ed.Point.fromBytes(bytes, false);
    return true;
  } catch {
    return false;
  }
}
