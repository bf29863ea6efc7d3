// Authentication of signed v1 actions (gaps §3): signature over the wincode bytes, the signer's
// authority for the account and action, and the nonce rules. Invariant: checks only; no state changes.

import { serializeAction } from '../../protocol/v1/serialize.js';
import type { ActionType, RequestBody } from '../../protocol/v1/actions.js';
import type { SignatureVerifier } from '../../protocol/verify.js';
import type { Engine } from '../engine/index.js';
import type { NonceGuard } from './nonce-guard.js';

export interface AuthDeps {
  readonly engine: Engine;
  readonly verifier: SignatureVerifier;
  readonly nonces: NonceGuard;
  /** Public keys allowed to send the oracle action. */
  readonly oracleKeys: ReadonlySet<string>;
}

/** Why the signed request must be refused (the message the venue answers), or undefined when it is authentic. */
export function authenticate(type: ActionType, body: RequestBody, deps: AuthDeps, nowNs: bigint): string | undefined {
  const { action, account, signer, signature } = body;
  const message = serializeAction(action, action.nonce, account, signer);
  if (!deps.verifier.verify(signer, message, signature)) return 'bad signature';
  if (!authorized(type, account, signer, deps)) return 'unauthorized signer';
  return deps.nonces.check(signer, action.nonce, nowNs);
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
