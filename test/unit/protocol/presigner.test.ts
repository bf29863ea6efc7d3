import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CommitmentPool, type Commitment, type CommitmentSource } from '../../../src/protocol/commitment-pool.js';
import { GROUP_ORDER, littleEndian, secretScalar, writeLittleEndian32 } from '../../../src/protocol/ed25519-scalar.js';
import { Keypair } from '../../../src/protocol/keys.js';

const VECTORS = JSON.parse(readFileSync(new URL('../../fixtures/vectors/bulk-keychain/wallet-mode-vectors.json', import.meta.url), 'utf8')) as {
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

/** Hands out the RFC commitment of each message signed, and counts take() calls. */
function countingSource(seed: Uint8Array, messages: Uint8Array[]): CommitmentSource & { taken: number } {
  const queue = messages.map((m) => rfcCommitment(seed, m));
  return {
    taken: 0,
    take() {
      this.taken++;
      return queue.shift();
    },
  };
}

/** R ‖ S by presigner.ts's WARM constants (R = 0x5a…, A = 0xa5…, r, scalar): what warm() must compute for `message`. */
function warmSignature(message: Uint8Array): Uint8Array {
  const R = new Uint8Array(32).fill(0x5a);
  const digest = createHash('sha512').update(R).update(new Uint8Array(32).fill(0xa5)).update(message).digest();
  const s = (0x1234567890abcdefn + (littleEndian(digest) % GROUP_ORDER) * 0x0fedcba987654321n) % GROUP_ORDER;
  const signature = new Uint8Array(64);
  signature.set(R);
  writeLittleEndian32(s, signature, 32);
  return signature;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('warm (keep-warm dry runs)', () => {
  it('Presigner.warm computes the fixed throwaway signature, takes no commitment and counts nothing', () => {
    const key = Keypair.fromBytes(SEED9);
    const message = new Uint8Array(randomBytes(100));
    const commitments = countingSource(SEED9, [message]);
    const presigner = key.presigner(commitments);
    const warm = presigner.warm(message);
    expect(warm).toHaveLength(64);
    expect(hex(warm)).toBe(hex(warmSignature(message)));
    expect(verifies(key, message, warm)).toBe(false);
    expect([commitments.taken, presigner.precomputedCount, presigner.deterministicCount]).toEqual([0, 0, 0]);
    expect(hex(presigner.sign(message))).toBe(hex(key.sign(message)));
    expect([commitments.taken, presigner.precomputedCount, presigner.deterministicCount]).toEqual([1, 1, 0]);
  });

  it('Presigner.warm interleaved with sign, the shared buffer grown by either, leaves every signature exact', () => {
    const key = Keypair.fromBytes(SEED9);
    // warm grows the buffer (2500, 13000 > 1024 - 64), sign grows it (6000), each then uses what the other grew.
    const warmed = [2500, 17, 0, 1300, 9000, 13000].map((n) => new Uint8Array(randomBytes(n)));
    const signed = [3000, 10, 0, 6000, 1, 12999].map((n) => new Uint8Array(randomBytes(n)));
    const commitments = countingSource(SEED9, signed);
    const presigner = key.presigner(commitments);
    for (let i = 0; i < signed.length; i++) {
      const w = warmed[i]!;
      expect(hex(presigner.warm(w)), `warm ${w.length}`).toBe(hex(warmSignature(w)));
      const m = signed[i]!;
      const signature = presigner.sign(m);
      expect(hex(signature), `sign ${m.length}`).toBe(hex(key.sign(m)));
      expect(verifies(key, m, signature)).toBe(true);
    }
    expect([commitments.taken, presigner.precomputedCount, presigner.deterministicCount]).toEqual([6, 6, 0]);
  });

  it("Keypair.warm signs with one throwaway key, not the keypair's", () => {
    const key = Keypair.fromBytes(SEED9);
    const message = new Uint8Array(randomBytes(80));
    const warm = key.warm(message);
    expect(warm).toHaveLength(64);
    expect(verifies(key, message, warm)).toBe(false);
    expect(hex(warm)).not.toBe(hex(key.sign(message)));
    expect(hex(key.warm(message))).toBe(hex(warm));
    expect(hex(Keypair.generate().warm(message))).toBe(hex(warm));
    expect(hex(key.warm(Uint8Array.of(1)))).not.toBe(hex(warm));
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
