import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CommitmentPool, type Commitment, type CommitmentSource } from '../../../src/protocol/commitment-pool.js';
import { GROUP_ORDER, littleEndian, secretScalar, writeLittleEndian32 } from '../../../src/protocol/ed25519-scalar.js';
import { Keypair } from '../../../src/protocol/keys.js';

const VECTORS = JSON.parse(readFileSync(new URL('../../../../shared/vectors/bulk-keychain/wallet-mode-vectors.json', import.meta.url), 'utf8')) as {
  vectors: { name: string; message_hex: string; signature: string; signer: string }[];
};
const SEED9 = new Uint8Array(32).fill(9);

/** The commitment RFC 8032 itself would use for `message`: r = SHA-512(prefix ‖ M) mod L, R = r·B (noble). */
function rfcCommitment(seed: Uint8Array, message: Uint8Array): Commitment {
  const prefix = createHash('sha512').update(seed).digest().subarray(32);
  const r = littleEndian(createHash('sha512').update(prefix).update(message).digest()) % GROUP_ORDER;
  const rBytes = new Uint8Array(32);
  writeLittleEndian32(r, rBytes, 0);
  return { r: rBytes, R: ed.Point.BASE.multiply(r).toBytes() };
}

/** Hands out the given commitments once each, then none. */
function source(commitments: Commitment[]): CommitmentSource {
  return { take: () => commitments.shift() };
}

function verifies(key: Keypair, message: Uint8Array, signature: Uint8Array): boolean {
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), key.publicKeyBytes]);
  return verify(null, message, createPublicKey({ key: spki, format: 'der', type: 'spki' }), signature);
}

describe('ed25519 scalars', () => {
  it('reads and writes little-endian integers, and clamps the secret scalar as noble does', async () => {
    const bytes = new Uint8Array(randomBytes(32));
    const out = new Uint8Array(40);
    writeLittleEndian32(littleEndian(bytes), out, 8);
    expect(Buffer.from(out.subarray(8)).equals(Buffer.from(bytes))).toBe(true);
    expect(littleEndian(Uint8Array.of(1, 2))).toBe(0x0201n);
    const seed = new Uint8Array(randomBytes(32));
    expect(secretScalar(createHash('sha512').update(seed).digest()) % GROUP_ORDER).toBe((await ed.utils.getExtendedPublicKeyAsync(seed)).scalar);
  });
});

describe('Presigner', () => {
  it('reproduces every published wallet-mode signature when given the RFC 8032 commitment', () => {
    const key = Keypair.fromBytes(SEED9);
    for (const v of VECTORS.vectors) {
      expect(v.signer).toBe(key.publicKey);
      const message = Buffer.from(v.message_hex, 'hex');
      const presigner = key.presigner(source([rfcCommitment(SEED9, message)]));
      expect(bs58.encode(presigner.sign(message)), v.name).toBe(v.signature);
      expect(presigner.deterministicCount).toBe(0);
    }
  });

  it('equals the deterministic node:crypto signature on random keys and messages given the RFC commitment', () => {
    for (let i = 0; i < 30; i++) {
      const seed = new Uint8Array(randomBytes(32));
      const key = Keypair.fromBytes(seed);
      const message = new Uint8Array(randomBytes(i * 11));
      const signature = key.presigner(source([rfcCommitment(seed, message)])).sign(message);
      expect(Buffer.from(signature).equals(Buffer.from(key.sign(message)))).toBe(true);
    }
  });

  it('wipes a commitment after one use and signs deterministically when none is ready', () => {
    const key = Keypair.fromBytes(SEED9);
    const message = new Uint8Array(randomBytes(100));
    const commitment = rfcCommitment(SEED9, message);
    const presigner = key.presigner(source([commitment]));
    presigner.sign(message);
    expect(commitment.r.every((b) => b === 0)).toBe(true);
    const fallback = presigner.sign(message);
    expect(Buffer.from(fallback).equals(Buffer.from(key.sign(message)))).toBe(true);
    expect(presigner.deterministicCount).toBe(1);
  });

  it('shows only the public key when printed', () => {
    const presigner = Keypair.fromBytes(SEED9).presigner(source([]));
    const secret = bs58.encode(SEED9);
    for (const text of [String(presigner), inspect(presigner), JSON.stringify(presigner)]) {
      expect(text).toContain(presigner.publicKey);
      expect(text).not.toContain(secret);
    }
  });
});

describe('CommitmentPool', () => {
  const pool = new CommitmentPool({ capacity: 128, chunk: 32 });
  afterAll(() => pool.close());

  it('fills from its worker with commitments R = r·B, r in [1, L), each handed out once', async () => {
    await pool.whenFilled();
    await expect.poll(() => pool.size, { timeout: 10_000 }).toBe(128);
    const seen = new Set<string>();
    for (let i = 0; i < 128; i++) {
      const c = pool.take()!;
      const r = littleEndian(c.r);
      expect(r > 0n && r < GROUP_ORDER).toBe(true);
      if (i < 8) expect(Buffer.from(ed.Point.BASE.multiply(r).toBytes()).equals(Buffer.from(c.R))).toBe(true);
      seen.add(Buffer.from(c.R).toString('hex'));
    }
    expect(seen.size).toBe(128);
    await expect.poll(() => pool.size, { timeout: 10_000 }).toBeGreaterThanOrEqual(64);
  });

  it('gives signatures that node:crypto and noble verify, none repeated, none deterministic while it has stock', async () => {
    const key = Keypair.generate();
    const presigner = key.presigner(pool);
    const signatures = new Set<string>();
    const message = new Uint8Array(randomBytes(120));
    for (let i = 0; i < 40; i++) {
      const m = i % 2 === 0 ? message : new Uint8Array(randomBytes(i));
      const signature = presigner.sign(m);
      expect(verifies(key, m, signature)).toBe(true);
      expect(await ed.verifyAsync(signature, m, key.publicKeyBytes)).toBe(true);
      signatures.add(Buffer.from(signature).toString('hex'));
    }
    expect(signatures.size).toBe(40);
    expect(presigner.deterministicCount).toBe(0);
    const tampered = presigner.sign(message);
    tampered[40]! ^= 1;
    expect(verifies(key, message, tampered)).toBe(false);
  });

  it('wipes what is left on close and hands out nothing after', async () => {
    const other = new CommitmentPool({ capacity: 16, chunk: 16 });
    await other.whenFilled();
    const kept = other.take()!;
    await other.close();
    expect(other.size).toBe(0);
    expect(other.take()).toBeUndefined();
    expect(kept.r.some((b) => b !== 0)).toBe(true);
  });
});
