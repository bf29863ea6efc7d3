// The signing hot path: encode with a dialect (validating, or trusted for in-process batches), sign (a Keypair's
// node:crypto key, or a Presigner over it), build the JSON body. Invariant: the key must belong to the declared signer; nothing is signed for any other.

import { SigningError } from '../core/errors.js';
import type { DialectCodec, EncodeInput, Encoded } from './dialect.js';
import { base58Encode } from './base58.js';
import type { MessageSigner } from './presigner.js';

export interface SignedRequest {
  readonly encoded: Encoded;
  /** Base58 Ed25519 signature of `encoded.message`. */
  readonly signature: string;
  /** The request body as JSON text (u64 values exact). */
  readonly bodyText: string;
  /** Base58 public key that signed it. */
  readonly signer: string;
  /** Its nonce, nanoseconds. */
  readonly nonce: bigint;
}

/** Encodes and signs one request; throws ValidationError on bad input, SigningError on a key/signer mismatch. */
export function signRequest(codec: DialectCodec, key: MessageSigner, input: EncodeInput): SignedRequest {
  checkSigner(key, input);
  return sign(key, input, codec.encode(input));
}

/**
 * signRequest for actions built in process from checked values (execution's batches): the codec's encodeTrusted,
 * without the schema pass over the actions. Throws like signRequest for the nonce, mode, keys and ids.
 */
export function signTrustedRequest(codec: DialectCodec, key: MessageSigner, input: EncodeInput): SignedRequest {
  checkSigner(key, input);
  return sign(key, input, codec.encodeTrusted(input));
}

function checkSigner(key: MessageSigner, input: EncodeInput): void {
  if (input.signer !== key.publicKey) throw new SigningError(`the key ${key.publicKey} is not the declared signer ${input.signer}`);
}

/** A signed request whose JSON body is built when first read (a simulated venue that reads the encoded action never builds it). */
class Signed implements SignedRequest {
  private body: string | undefined;

  constructor(
    readonly encoded: Encoded,
    readonly signature: string,
    readonly signer: string,
    readonly nonce: bigint,
  ) {}

  get bodyText(): string {
    return (this.body ??= this.encoded.bodyText(this.signature));
  }
}

function sign(key: MessageSigner, input: EncodeInput, encoded: Encoded): SignedRequest {
  return new Signed(encoded, base58Encode(key.sign(encoded.message)), input.signer, input.nonce);
}
