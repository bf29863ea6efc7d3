// The one interface both wire dialects implement: JSON actions in, signable bytes, the bytes
// actually signed, predicted order ids and the JSON request body out. Invariant: encode validates
// every field (throwing ValidationError naming it) before any byte is produced; only encodeTrusted skips that pass.

import type { Dialect, Network } from '../core/types.js';
import type { OrderItem } from './orders.js';

/** What is handed to Ed25519: the canonical bytes, their base58 text, or the Solana offchain envelope. */
export type SignMode = 'raw' | 'base58' | 'offchain';
export const SIGN_MODES: readonly SignMode[] = ['raw', 'base58', 'offchain'];

export interface EncodeInput {
  /**
   * Dialect JSON. `v1`: the specification's `action` object (`{type, ...}`; a `nonce` inside it,
   * if present, must equal `nonce`). `current`: the `actions` array of single-key objects.
   */
  readonly actions: unknown;
  /** Base58 public key of the traded account. */
  readonly account: string;
  /** Base58 public key of the signer (the account or one of its agents). */
  readonly signer: string;
  /** u64 replay-protection nonce, nanoseconds by convention. */
  readonly nonce: bigint;
  /** Network byte of the current dialect; `v1` ignores it. */
  readonly network: Network;
  /** Wallet mode; `v1` supports only `raw`. */
  readonly mode: SignMode;
}

export interface Encoded {
  /** The canonical signable bytes of the dialect. */
  readonly signable: Uint8Array;
  /** The bytes actually passed to Ed25519 (equal to `signable` in raw mode). */
  readonly message: Uint8Array;
  /**
   * Deterministic order ids (base58), one per top-level action (v1: per order item); null where
   * none applies. Computed on first read (not part of the signed request), so a caller can send first.
   */
  readonly orderIds: (string | null)[];
  /**
   * Per top-level action, the ids of the orders nested in it (current `trig` / `of`: docs/protocol.md's rule), null
   * where a nested action places none; empty for any other action and in v1. Computed on first read.
   */
  readonly childOrderIds: (string | null)[][];
  /** Endpoint path relative to the base URL (`/order`, `/agent-wallet`, ...). */
  readonly path: string;
  /** True when the request only cancels orders (clients give cancels their own rate budget). */
  readonly cancelOnly: boolean;
  /** The JSON request body text carrying `signature` (base58); u64 values keep every digit. */
  bodyText(signature: string): string;
}

export interface DialectCodec {
  readonly name: Dialect;
  /** Throws ValidationError naming the field on bad input. */
  encode(input: EncodeInput): Encoded;
  /**
   * `encode` without the schema pass over `actions`, for actions built in process from checked values (execution's
   * order batches): they must be exactly what the dialect's action schema returns (v1 without a `nonce` field).
   * Nonce, mode, keys and ids are still checked (ValidationError); any other bad field yields wrong bytes, not an error.
   */
  encodeTrusted(input: EncodeInput): Encoded;
  /** The dialect's `actions` JSON for order items, in item order (what `encode` and `encodeTrusted` take). */
  orderActions(items: readonly OrderItem[]): unknown;
  /**
   * True when orders carry a client order id (a place item's `cloid`) and the venue refuses a live id again as
   * rejectedDuplicate; false when `cloid` is dropped and a reused client tag must be refused locally.
   */
  readonly clientOrderIds: boolean;
}
