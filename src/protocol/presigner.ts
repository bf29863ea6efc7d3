// Ed25519 signatures from precomputed commitments (RFC 8032 §5.1.6 with the nonce r drawn at random rather than
// hashed from the message): on the hot path one SHA-512 and one scalar multiply-add instead of a fixed-base
// multiplication. Any RFC 8032 verifier accepts them; they are not deterministic.
// Invariants: a commitment signs one message and is wiped after use; with none ready the key's deterministic
// node:crypto signature is used; the secret scalar stays in this object's private field; warm() never touches either.

import { hash } from 'node:crypto';
import { inspect } from 'node:util';
import type { CommitmentSource } from './commitment-pool.js';
import { GROUP_ORDER, littleEndian, writeLittleEndian32 } from './ed25519-scalar.js';

/** What signs messages for one public key (a Keypair, or a Presigner over one). */
export interface MessageSigner {
  /** Base58 public key. */
  readonly publicKey: string;
  /** The 64-byte Ed25519 signature of `message`. */
  sign(message: Uint8Array): Uint8Array;
  /**
   * A signature of `message` by a fixed throwaway key, computed by the same code as sign() (keep-warm dry runs keep
   * that code and its buffers in the CPU caches); uses nothing of this signer's key or commitments.
   */
  warm?(message: Uint8Array): Uint8Array;
}

/** The throwaway key and commitment of warm(): arbitrary public constants, no secret. */
const WARM = { R: new Uint8Array(32).fill(0x5a), r: 0x1234567890abcdefn, scalar: 0x0fedcba987654321n, publicKeyBytes: new Uint8Array(32).fill(0xa5) };

export class Presigner implements MessageSigner {
  readonly publicKey: string;
  readonly #publicKeyBytes: Uint8Array;
  readonly #scalar: bigint;
  readonly #fallback: (message: Uint8Array) => Uint8Array;
  readonly #commitments: CommitmentSource;
  #deterministic = 0;
  #precomputed = 0;
  /** R ‖ A ‖ message, hashed in one call (grown as messages need). */
  #hashInput = Buffer.allocUnsafe(1024);

  /** Use Keypair.presigner(); `scalar` is the key's RFC 8032 secret scalar, `fallback` its deterministic signature. */
  constructor(
    key: { publicKey: string; publicKeyBytes: Uint8Array },
    scalar: bigint,
    fallback: (message: Uint8Array) => Uint8Array,
    commitments: CommitmentSource,
  ) {
    this.publicKey = key.publicKey;
    this.#publicKeyBytes = key.publicKeyBytes;
    this.#scalar = scalar;
    this.#fallback = fallback;
    this.#commitments = commitments;
  }

  /** Signatures made deterministically because no commitment was ready. */
  get deterministicCount(): number {
    return this.#deterministic;
  }

  /** Signatures made with a precomputed commitment. */
  get precomputedCount(): number {
    return this.#precomputed;
  }

  sign(message: Uint8Array): Uint8Array {
    const c = this.#commitments.take();
    if (!c) {
      this.#deterministic++;
      return this.#fallback(message);
    }
    const signature = this.#signWith(c.R, littleEndian(c.r), this.#scalar, this.#publicKeyBytes, message);
    c.r.fill(0);
    this.#precomputed++;
    return signature;
  }

  warm(message: Uint8Array): Uint8Array {
    return this.#signWith(WARM.R, WARM.r, WARM.scalar, WARM.publicKeyBytes, message);
  }

  /** S = r + SHA-512(R ‖ A ‖ message) · scalar mod L; the signature R ‖ S. */
  #signWith(R: Uint8Array, r: bigint, scalar: bigint, publicKeyBytes: Uint8Array, message: Uint8Array): Uint8Array {
    const length = 64 + message.length;
    if (this.#hashInput.length < length) this.#hashInput = Buffer.allocUnsafe(2 * length);
    const input = this.#hashInput;
    input.set(R, 0);
    input.set(publicKeyBytes, 32);
    input.set(message, 64);
    const digest = Buffer.from(hash('sha512', input.subarray(0, length), 'hex'), 'hex');
    const s = (r + (littleEndian(digest) % GROUP_ORDER) * scalar) % GROUP_ORDER;
    const signature = new Uint8Array(64);
    signature.set(R);
    writeLittleEndian32(s, signature, 32);
    return signature;
  }

  toString(): string {
    return `Presigner(${this.publicKey})`;
  }

  toJSON(): { publicKey: string } {
    return { publicKey: this.publicKey };
  }

  [inspect.custom](): string {
    return this.toString();
  }
}
