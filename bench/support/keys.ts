// Deterministic signer keys shared by bench `venue-http` and its load generator.
// Invariant: the same seed and index always give the same key.

import { Keypair } from '../../src/protocol/keys.js';

/** The signer of load connection `i`: the seed with its last byte increased by `i`. */
export function keyForConnection(seedHex: string, i: number): Keypair {
  const seed = new Uint8Array(Buffer.from(seedHex, 'hex'));
  seed[31] = (seed[31]! + i) & 0xff;
  return Keypair.fromBytes(seed);
}
