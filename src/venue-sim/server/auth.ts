// Authentication of signed v1 actions (gaps §3): signature over the wincode bytes, the signer's
// authority for the account and action, and the nonce rules. Invariant: checks only; no state changes.

import { decodeCurvePublicKey } from '../../protocol/pubkey.js';
import { serializeAction } from '../../protocol/v1/serialize.js';
import type { ActionType, RequestBody } from '../../protocol/v1/actions.js';
import type { Engine } from '../engine/index.js';
import type { NonceGuard } from './nonce-guard.js';
import type { AsyncVerifier } from './verify-pool.js';

export interface AuthDeps {
  readonly engine: Engine;
  readonly verifier: AsyncVerifier;
  readonly nonces: NonceGuard;
  /** Public keys allowed to send the oracle action. */
  readonly oracleKeys: ReadonlySet<string>;
}

/** The set of oracle keys; throws ValidationError naming `oracleKeys[i]` for a key that is not a strict curve point. */
export function oracleKeySet(keys: readonly string[]): ReadonlySet<string> {
  keys.forEach((key, i) => decodeCurvePublicKey(key, `oracleKeys[${i}]`));
  return new Set(keys);
}

/** True when the body's signature is the signer's strict Ed25519 signature of its wincode bytes. */
export function verifySignature(body: RequestBody, verifier: AsyncVerifier): Promise<boolean> {
  const { action, account, signer, signature } = body;
  return verifier.verify(signer, serializeAction(action, action.nonce, account, signer), signature);
}

/**
 * Why a request with a valid signature must still be refused (authority, nonce), or undefined.
 * Run it in the same synchronous step as applying the action, so no other request slips between.
 */
export function authorize(type: ActionType, body: RequestBody, deps: AuthDeps, nowNs: bigint): string | undefined {
  if (!authorized(type, body.account, body.signer, deps)) return 'unauthorized signer';
  return deps.nonces.check(body.signer, body.action.nonce, nowNs);
}

function authorized(type: ActionType, account: string, signer: string, deps: AuthDeps): boolean {
  switch (type) {
    case 'oracle':
      return deps.oracleKeys.has(signer);
    case 'agentWalletCreation':
      return signer === account;
    default:
      return deps.engine.isAuthorized(account, signer);
  }
}
