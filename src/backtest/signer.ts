// The backtest's batch signer: the simulated venue verifies no signature, so the session's batches are "signed" with a
// constant 64-byte value instead of Ed25519 (the signer is an injected port; strategy, risk and execution are unchanged).
// Invariants: declares the backtest key's public key (execution checks it); order ids never depend on the signature.

import type { MessageSigner } from '../protocol/presigner.js';

const SIGNATURE = new Uint8Array(64);

/** A signer for `publicKey` whose every signature is 64 zero bytes: only for the simulated venue, which verifies none. */
export function unverifiedSigner(publicKey: string): MessageSigner {
  return { publicKey, sign: () => SIGNATURE };
}
