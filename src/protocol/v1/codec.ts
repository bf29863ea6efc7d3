// The v1 dialect codec (API v1.0.11): validates the spec's `action` object, serializes it with wincode,
// predicts order ids and builds the signed body. Invariant: raw mode only; nothing is produced from invalid input.

import { ValidationError } from '../../core/errors.js';
import { parse } from '../../core/schema.js';
import type { DialectCodec, EncodeInput, Encoded } from '../dialect.js';
import { decodeKey32 } from '../pubkey.js';
import { ACTION_PATHS, actionSchema, type Action } from './actions.js';
import { orderIdsOf } from './order-id.js';
import { checkNonce, serializeAction } from './serialize.js';

function checkInput(input: EncodeInput): void {
  if (input.mode !== 'raw') throw new ValidationError('mode', `the v1 dialect signs raw bytes only, got ${JSON.stringify(input.mode)}`);
  checkNonce(input.nonce);
}

function parseAction(actions: unknown, nonce: bigint): Action {
  const action = parse(actionSchema, actions, 'action');
  if (action.nonce !== undefined && action.nonce !== nonce) throw new ValidationError('action.nonce', `${action.nonce} differs from the signed nonce ${nonce}`);
  return action;
}

function encode(input: EncodeInput): Encoded {
  checkInput(input);
  const { nonce } = input;
  const action = parseAction(input.actions, nonce);
  const account = decodeKey32(input.account, 'account');
  const signer = decodeKey32(input.signer, 'signer');
  const message = serializeAction(action, nonce, account, signer);
  return {
    signable: message,
    message,
    orderIds: orderIdsOf(action, account, nonce),
    path: ACTION_PATHS[action.type],
    body: (signature) => ({ action: { ...action, nonce }, account: input.account, signer: input.signer, signature }),
  };
}

export const v1Codec: DialectCodec = { name: 'v1', encode };
