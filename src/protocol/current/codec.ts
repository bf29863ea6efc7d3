// The `current` dialect codec (Gen B): validated wire-JSON actions in; signable bytes, wallet message, order ids, POST /order body out.
// Invariant: `encode` validates every field before any byte is written; the body carries exactly the encoded actions.

import { ConfigError, ValidationError } from '../../core/errors.js';
import { NETWORK_BYTE, type Network } from '../../core/types.js';
import { SIGN_MODES, type DialectCodec, type EncodeInput, type Encoded, type SignMode } from '../dialect.js';
import { currentOrderActions } from '../orders.js';
import { decodeKey32 } from '../pubkey.js';
import { parseActions, type Action } from './actions.js';
import { childOrderIds, orderIds } from './order-id.js';
import { DEFAULT_MAX_SCHEMA, signableBytes, type MaxSchema } from './serialize.js';
import { base58Message, clearSignLines, clearSignText, offchainMessage } from './wallet-mode.js';

export interface CurrentCodecOptions {
  /** Highest envelope the codec may emit (default 3; 4 enables the V4 conditional-order envelope). */
  readonly maxSchema?: MaxSchema;
}

const U64_MAX = (1n << 64n) - 1n;

class CurrentEncoded implements Encoded {
  readonly path = '/order';
  private ids: (string | null)[] | undefined;

  constructor(
    readonly signable: Uint8Array,
    readonly message: Uint8Array,
    private readonly actions: Action[],
    private readonly account: Uint8Array,
    private readonly input: EncodeInput,
  ) {}

  get cancelOnly(): boolean {
    return this.actions.every((a) => 'cx' in a || 'cxa' in a);
  }

  get orderIds(): (string | null)[] {
    return (this.ids ??= orderIds(this.actions, this.account, this.input.nonce));
  }

  get childOrderIds(): (string | null)[][] {
    const ids = this.orderIds;
    return this.actions.map((a, k) => childOrderIds(a, ids[k]!));
  }

  bodyText(signature: string): string {
    const { nonce, account, signer } = this.input;
    return `{"actions":${JSON.stringify(this.actions)},"nonce":"${nonce}","account":${JSON.stringify(account)},"signer":${JSON.stringify(signer)},"signature":${JSON.stringify(signature)}}`;
  }
}

function checkInput(input: EncodeInput): void {
  const { nonce, network, mode } = input;
  if (typeof nonce !== 'bigint' || nonce < 0n || nonce > U64_MAX) throw new ValidationError('nonce', 'expected a u64 bigint');
  if (!Object.hasOwn(NETWORK_BYTE, network))
    throw new ValidationError('network', `expected one of ${Object.keys(NETWORK_BYTE).join(', ')}, got ${String(network)}`);
  if (!SIGN_MODES.includes(mode)) throw new ValidationError('mode', `expected one of ${SIGN_MODES.join(', ')}, got ${String(mode)}`);
}

function message(mode: SignMode, signable: Uint8Array, input: EncodeInput, signer: Uint8Array, lines: string[] | undefined): Uint8Array {
  if (mode === 'raw') return signable;
  if (mode === 'base58') return base58Message(signable);
  const network: Network = input.network;
  return offchainMessage(clearSignText({ network, account: input.account, nonce: input.nonce, signable }, lines ?? []), signer, network);
}

/** A current-dialect codec whose envelope never exceeds `maxSchema`. */
export function createCurrentCodec(opts: CurrentCodecOptions = {}): DialectCodec {
  const maxSchema = opts.maxSchema ?? DEFAULT_MAX_SCHEMA;
  if (maxSchema !== 2 && maxSchema !== 3 && maxSchema !== 4) throw new ConfigError('maxSchema', `expected 2, 3 or 4, got ${String(maxSchema)}`);
  /** The request of validated `actions`. */
  const encodeActions = (actions: Action[], input: EncodeInput): Encoded => {
    const account = decodeKey32(input.account, 'account');
    const signer = decodeKey32(input.signer, 'signer');
    checkInput(input);
    const lines = input.mode === 'offchain' ? clearSignLines(actions) : undefined;
    const signable = signableBytes(actions, input.nonce, account, NETWORK_BYTE[input.network], maxSchema);
    return new CurrentEncoded(signable, message(input.mode, signable, input, signer, lines), actions, account, input);
  };
  return {
    name: 'current',
    encode: (input) => encodeActions(parseActions(input.actions), input),
    encodeTrusted: (input) => encodeActions(input.actions as Action[], input),
    orderActions: currentOrderActions,
    clientOrderIds: false,
  };
}

/** The default current-dialect codec (envelopes up to V3). */
export const currentCodec: DialectCodec = createCurrentCodec();
