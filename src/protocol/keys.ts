// Ed25519 keypairs: loading (base58 seed or keypair, Solana JSON array file, environment variable),
// generation and signing. Invariant: secret bytes never appear in messages, toString, JSON or inspect.

import * as ed from '@noble/ed25519';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { inspect } from 'node:util';
import { SigningError, ValidationError } from '../core/errors.js';
import { base58Decode, base58Encode } from './base58.js';
import type { CommitmentSource } from './commitment-pool.js';
import { secretScalar } from './ed25519-scalar.js';
import { strictPointProblem } from './ed25519-strict.js';
import { Presigner } from './presigner.js';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The throwaway key of Keypair.warm(), made on first use. */
let warmKey: KeyObject | undefined;

/** Default environment variable holding a base58 secret key. */
export const SECRET_KEY_ENV = 'PERPBOT_SECRET_KEY';

export class Keypair {
  /** Base58 public key. */
  readonly publicKey: string;
  readonly publicKeyBytes: Uint8Array;
  readonly #privateKey: KeyObject;

  private constructor(privateKey: KeyObject) {
    this.#privateKey = privateKey;
    const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
    this.publicKeyBytes = new Uint8Array(spki.subarray(spki.length - 32));
    this.publicKey = base58Encode(this.publicKeyBytes);
  }

  static generate(): Keypair {
    return new Keypair(generateKeyPairSync('ed25519').privateKey);
  }

  /**
   * From secret bytes: a 32-byte seed, or a 64-byte keypair (seed ‖ public key, Solana style)
   * whose public half must be a strict public key (ed25519-strict.ts) and match. Throws ValidationError (field
   * `source`) otherwise. A key derived from a seed is never of small order: its clamped scalar is a multiple of 8
   * in [2^254, 2^255), never a multiple of the group order.
   */
  static fromBytes(secret: Uint8Array, source = 'secret key'): Keypair {
    if (secret.length !== 32 && secret.length !== 64) {
      throw new ValidationError(source, `expected a 32-byte seed or a 64-byte keypair, got ${secret.length} bytes`);
    }
    const publicHalfProblem = secret.length === 64 ? strictPointProblem(secret, 32) : undefined;
    if (publicHalfProblem !== undefined) throw new ValidationError(source, `the public half of the 64-byte keypair is ${publicHalfProblem}`);
    const seed = secret.subarray(0, 32);
    const kp = new Keypair(createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' }));
    if (secret.length === 64 && !Buffer.from(secret.subarray(32)).equals(Buffer.from(kp.publicKeyBytes))) {
      throw new ValidationError(source, 'the public half of the 64-byte keypair does not match its secret half');
    }
    return kp;
  }

  /** From base58 text of a 32-byte seed or 64-byte keypair. */
  static fromBase58(text: string, source = 'secret key'): Keypair {
    let bytes: Uint8Array;
    try {
      bytes = base58Decode(text.trim(), source);
    } catch {
      throw new ValidationError(source, 'not valid base58');
    }
    return Keypair.fromBytes(bytes, source);
  }

  /**
   * From a key file: a Solana-style JSON array of 64 (or 32) byte values, or base58 text.
   * Calls `warn` when the file is readable by group or others.
   */
  static fromFile(path: string, warn: (message: string) => void = defaultWarn): Keypair {
    const source = `key file ${path}`;
    let text: string;
    try {
      if ((statSync(path).mode & 0o077) !== 0) warn(`${source} is readable by group or others; run chmod 600 ${path}`);
      text = readFileSync(path, 'utf8').trim();
    } catch (e) {
      throw new ValidationError(source, `cannot read: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    if (!text.startsWith('[')) return Keypair.fromBase58(text, source);
    let values: unknown;
    try {
      values = JSON.parse(text);
    } catch {
      throw new ValidationError(source, 'not a JSON array of byte values');
    }
    if (!Array.isArray(values) || !values.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)) {
      throw new ValidationError(source, 'not a JSON array of byte values (integers 0..255)');
    }
    return Keypair.fromBytes(Uint8Array.from(values as number[]), source);
  }

  /** From an environment variable holding base58 secret text. */
  static fromEnv(name = SECRET_KEY_ENV, env: NodeJS.ProcessEnv = process.env): Keypair {
    const value = env[name];
    if (!value) throw new ValidationError(name, 'environment variable is not set');
    return Keypair.fromBase58(value, `environment variable ${name}`);
  }

  /** Hot-path Ed25519 signature with the node:crypto key (64 bytes). */
  sign(message: Uint8Array): Uint8Array {
    return cryptoSign(null, message, this.#privateKey);
  }

  /** sign()'s computation with a throwaway key (MessageSigner.warm): the same node:crypto code, not this key. */
  warm(message: Uint8Array): Uint8Array {
    warmKey ??= generateKeyPairSync('ed25519').privateKey;
    return cryptoSign(null, message, warmKey);
  }

  /** Base58 of `sign(message)`. */
  signBase58(message: Uint8Array): string {
    return base58Encode(this.sign(message));
  }

  /** A signer over this key that signs with precomputed commitments (presigner.ts), and with sign() when none is ready. */
  presigner(commitments: CommitmentSource): Presigner {
    const seed = this.#seed();
    const digest = createHash('sha512').update(seed).digest();
    const scalar = secretScalar(digest);
    seed.fill(0);
    digest.fill(0);
    return new Presigner(this, scalar, (message) => this.sign(message), commitments);
  }

  /** The same signature through the portable pure-JS implementation (@noble/ed25519). */
  async signPortable(message: Uint8Array): Promise<Uint8Array> {
    return ed.signAsync(message, this.#seed());
  }

  /** The Solana-style 64-value JSON keypair text, for writing a key file (mode 0600). */
  keyFileText(): string {
    return `${JSON.stringify([...this.#seed(), ...this.publicKeyBytes])}\n`;
  }

  #seed(): Uint8Array {
    const jwk = this.#privateKey.export({ format: 'jwk' });
    if (!jwk.d) throw new SigningError('private key cannot be exported');
    return new Uint8Array(Buffer.from(jwk.d, 'base64url'));
  }

  toString(): string {
    return `Keypair(${this.publicKey})`;
  }

  toJSON(): { publicKey: string } {
    return { publicKey: this.publicKey };
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

function defaultWarn(message: string): void {
  process.emitWarning(message, { code: 'PERPBOT_KEY_PERMISSIONS' });
}
