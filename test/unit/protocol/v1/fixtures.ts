// Shared fixtures of the v1 dialect tests: fixed 32-byte keys (known bytes, base58 via bs58) and a nonce.
// Invariant: built independently of the code under test (bs58, not src/protocol/base58.ts).

import bs58 from 'bs58';

/** A 32-byte key filled with `byte`, as [hex of its 32 bytes, base58 text]. */
function key(byte: number): { hex: string; b58: string } {
  const bytes = new Uint8Array(32).fill(byte);
  return { hex: Buffer.from(bytes).toString('hex'), b58: bs58.encode(bytes) };
}

export const ACCOUNT = key(0x11);
export const SIGNER = key(0x22);
export const CLOID = key(0x33);
export const OID = key(0x44);
export const AGENT = key(0x55);
export const USER = key(0x66);

export const NONCE = 1_700_000_000_000_000_000n;
/** NONCE as u64 little-endian. */
export const NONCE_HEX = '00002a36fe9c9717';
/** The common tail of every signed message: u64 nonce ‖ account[32] ‖ signer[32]. */
export const TAIL = NONCE_HEX + ACCOUNT.hex + SIGNER.hex;
