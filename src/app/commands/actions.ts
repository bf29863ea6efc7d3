// Dialect JSON of the one-off actions the command line and the daemon's start-up send (orders through the codec's
// orderActions; leverage, agent, faucet), and their signing. Invariant: every value is validated by the dialect codec when signed.

import type { OrderSpec } from '../../core/intent.js';
import type { Dialect, Network } from '../../core/types.js';
import { codecFor } from '../../protocol/codecs.js';
import type { Keypair } from '../../protocol/keys.js';
import { signRequest, type SignedRequest } from '../../protocol/sign.js';

/** Signs dialect JSON `actions` with `key` (raw mode) for `account` (default: the key's own). Throws ValidationError on bad input. */
export function signAction(dialect: Dialect, network: Network, key: Keypair, nonce: bigint, actions: unknown, account = key.publicKey): SignedRequest {
  return signRequest(codecFor(dialect), key, { actions, account, signer: key.publicKey, nonce, network, mode: 'raw' });
}

/** The action placing one order (a market order when `spec.price` is absent). */
export function placeAction(dialect: Dialect, spec: OrderSpec, cloid: string | undefined): unknown {
  return codecFor(dialect).orderActions([{ kind: 'place', spec, cloid }]);
}

export function cancelAction(dialect: Dialect, symbol: string, orderId: string): unknown {
  return codecFor(dialect).orderActions([{ kind: 'cancel', symbol, orderId }]);
}

/** Cancels every order in `symbols`, or everywhere when empty. */
export function cancelAllAction(dialect: Dialect, symbols: string[]): unknown {
  return codecFor(dialect).orderActions([{ kind: 'cancelAll', symbols }]);
}

export function leverageAction(dialect: Dialect, symbol: string, leverage: number): unknown {
  return dialect === 'current'
    ? [{ updateUserSettings: { m: { [symbol]: leverage } } }]
    : { type: 'updateUserSettings', settings: { m: [[symbol, leverage]] } };
}

export function agentAction(dialect: Dialect, agent: string, remove: boolean): unknown {
  return dialect === 'current' ? [{ agentWalletCreation: { a: agent, d: remove } }] : { type: 'agentWalletCreation', agent, delete: remove };
}

export function faucetAction(dialect: Dialect, user: string, amount: number | undefined): unknown {
  if (dialect === 'current') return [{ faucet: { u: user, ...(amount === undefined ? {} : { amount }) } }];
  return { type: 'faucet', user, ...(amount === undefined ? {} : { amount }) };
}

/** A failed item of an accepted action: its status (`rejected…`, `error`, `…Failed`, `…Rejected`) and the venue's reason. */
export interface FailedItem {
  readonly index: number;
  readonly status: string;
  readonly reason: string;
}

/** Status keys of a refused item: v1's `rejected…` and `error`; the current generation's `agentWalletFailed`, `cancelOneRejected`, ... */
const FAILED = /^rejected|^error$|Failed$|Rejected$/;

/** The items of an accepted action's `statuses` that the venue refused, in order. */
export function failedItems(statuses: readonly Record<string, unknown>[]): FailedItem[] {
  const failed: FailedItem[] = [];
  statuses.forEach((s, index) => {
    const [status, detail] = Object.entries(s)[0] ?? ['', undefined];
    if (FAILED.test(status)) failed.push({ index, status, reason: reasonOf(detail) });
  });
  return failed;
}

/** The text of a status detail: a string, or an object's `reason` or `message`. */
function reasonOf(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (typeof detail === 'object' && detail !== null) {
    const { reason, message } = detail as { reason?: unknown; message?: unknown };
    if (typeof reason === 'string') return reason;
    if (typeof message === 'string') return message;
  }
  return 'no reason given';
}
