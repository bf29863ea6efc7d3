// Ed25519 scalars (integers modulo the group order L) as RFC 8032 writes them: little-endian byte strings.
// Invariant: results are reduced mod L; 32-byte outputs are zero-padded little-endian.

/** The order L of the Ed25519 base point: 2^252 + 27742317777372353535851937790883648493. */
export const GROUP_ORDER = 2n ** 252n + 27742317777372353535851937790883648493n;

/** The little-endian integer in `bytes`. */
export function littleEndian(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`);
}

/** Writes `value` (0 <= value < 2^256) as 32 little-endian bytes at `out[offset]`. */
export function writeLittleEndian32(value: bigint, out: Uint8Array, offset: number): void {
  const bigEndian = Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
  for (let i = 0; i < 32; i++) out[offset + i] = bigEndian[31 - i]!;
}

/** The RFC 8032 secret scalar of a 32-byte seed's SHA-512 digest: its first half, clamped. */
export function secretScalar(digest: Uint8Array): bigint {
  const a = digest.slice(0, 32);
  a[0]! &= 248;
  a[31]! &= 127;
  a[31]! |= 64;
  return littleEndian(a);
}
