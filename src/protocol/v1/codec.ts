// The v1 dialect codec (API v1.0.11): validates the spec's `action` object, serializes it with wincode,
// predicts order ids and builds the signed body. Invariant: raw mode only; `encode` produces nothing from invalid input.

import { ValidationError } from '../../core/errors.js';
import { stringifyJson } from '../../core/json.js';
import { parse } from '../../core/schema.js';
import type { DialectCodec, EncodeInput, Encoded } from '../dialect.js';
import { v1OrderActions } from '../orders.js';
import { decodeKey32 } from '../pubkey.js';
import { ACTION_PATHS, actionSchema, type Action } from './actions.js';
import { orderIdsOf } from './order-id.js';
import { checkNonce, serializeAction } from './serialize.js';

function checkInput(input: EncodeInput): void {
  if (input.mode !== 'raw') throw new ValidationError('mode', `the v1 dialect signs raw bytes only, got ${JSON.stringify(input.mode)}`);
  checkNonce(input.nonce);
}

/** The validated action without its own `nonce` field (the signed nonce is the input's). */
function parseAction(actions: unknown, nonce: bigint): Action {
  const action = parse(actionSchema, actions, 'action');
  if (action.nonce === undefined) return action;
  if (action.nonce !== nonce) throw new ValidationError('action.nonce', `${action.nonce} differs from the signed nonce ${nonce}`);
  const { nonce: _signed, ...fields } = action;
  return fields as Action;
}

class V1Encoded implements Encoded {
  private ids: (string | null)[] | undefined;

  constructor(
    readonly message: Uint8Array,
    readonly action: Action,
    private readonly account: Uint8Array,
    private readonly input: EncodeInput,
  ) {}

  get signable(): Uint8Array {
    return this.message;
  }

  get path(): string {
    return ACTION_PATHS[this.action.type];
  }

  get cancelOnly(): boolean {
    return this.action.type === 'order' && this.action.orders.every((item) => !('order' in item));
  }

  get orderIds(): (string | null)[] {
    return (this.ids ??= orderIdsOf(this.action, this.account, this.input.nonce));
  }

  /** v1 has no nested orders. */
  get childOrderIds(): (string | null)[][] {
    return this.orderIds.map(() => []);
  }

  /**
   * `{"action":{...action,"nonce":<integer>},"account","signer","signature"}` with every digit of the
   * nonce; besides the nonce, only the oracle action carries u64 values (its timestamps).
   */
  bodyText(signature: string): string {
    const { nonce, account, signer } = this.input;
    const head = (this.action.type === 'oracle' ? stringifyJson : JSON.stringify)(this.action).slice(0, -1);
    return `{"action":${head},"nonce":${nonce}},"account":${JSON.stringify(account)},"signer":${JSON.stringify(signer)},"signature":${JSON.stringify(signature)}}`;
  }
}

/**
 * The action (without its `nonce` field) of a request this codec encoded in this process: what its body carries, without
 * parsing it again (the backtest's simulated venue); undefined for any other Encoded.
 */
export function encodedAction(encoded: Encoded): Action | undefined {
  return encoded instanceof V1Encoded ? encoded.action : undefined;
}

/** The request of a validated `action` (its own `nonce` field already removed). */
function encodeAction(action: Action, input: EncodeInput): Encoded {
  const account = decodeKey32(input.account, 'account');
  const signer = decodeKey32(input.signer, 'signer');
  return new V1Encoded(serializeAction(action, input.nonce, account, signer), action, account, input);
}

export const v1Codec: DialectCodec = {
  name: 'v1',
  encode: (input) => {
    checkInput(input);
    return encodeAction(parseAction(input.actions, input.nonce), input);
  },
  encodeTrusted: (input) => {
    checkInput(input);
    return encodeAction(input.actions as Action, input);
  },
  orderActions: v1OrderActions,
  clientOrderIds: true,
};
