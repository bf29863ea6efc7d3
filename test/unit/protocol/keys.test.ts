import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { randomBytes, verify } from 'node:crypto';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { SignatureVerifier } from '../../../src/protocol/verify.js';

const SEED9 = new Uint8Array(32).fill(9);

describe('Keypair', () => {
  it('node:crypto and @noble/ed25519 produce identical signatures on random messages', async () => {
    for (let i = 0; i < 40; i++) {
      const kp = Keypair.fromBytes(new Uint8Array(randomBytes(32)));
      const msg = new Uint8Array(randomBytes(i * 7));
      const fast = kp.sign(msg);
      const portable = await kp.signPortable(msg);
      expect(Buffer.from(fast).equals(Buffer.from(portable))).toBe(true);
      expect(await ed.verifyAsync(fast, msg, kp.publicKeyBytes)).toBe(true);
    }
  });

  it('derives the public key independently of node:crypto (checked with noble)', async () => {
    const kp = Keypair.fromBytes(SEED9);
    expect(Buffer.from(await ed.getPublicKeyAsync(SEED9)).equals(Buffer.from(kp.publicKeyBytes))).toBe(true);
  });

  it('loads a 32-byte seed and a 64-byte keypair from base58, and rejects a mismatched public half', () => {
    const a = Keypair.fromBase58(bs58.encode(SEED9));
    const b = Keypair.fromBase58(bs58.encode(Buffer.concat([SEED9, a.publicKeyBytes])));
    expect(b.publicKey).toBe(a.publicKey);
    const wrong = Buffer.concat([SEED9, new Uint8Array(32).fill(1)]);
    expect(() => Keypair.fromBase58(bs58.encode(wrong))).toThrow(/public half/);
    expect(() => Keypair.fromBase58(bs58.encode(new Uint8Array(31)))).toThrow(ValidationError);
    expect(() => Keypair.fromBase58('not base58 0OIl')).toThrow(/not valid base58/);
  });

  it('loads Solana JSON array files and base58 files, warning when group/other can read them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-keys-'));
    const kp = Keypair.generate();
    const file = join(dir, 'id.json');
    writeFileSync(file, kp.keyFileText(), { mode: 0o600 });
    const warnings: string[] = [];
    expect(Keypair.fromFile(file, (m) => warnings.push(m)).publicKey).toBe(kp.publicKey);
    expect(warnings).toEqual([]);
    chmodSync(file, 0o644);
    Keypair.fromFile(file, (m) => warnings.push(m));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/readable by group or others/);
    const b58 = join(dir, 'id.b58');
    writeFileSync(b58, bs58.encode(SEED9), { mode: 0o600 });
    expect(Keypair.fromFile(b58).publicKey).toBe(Keypair.fromBytes(SEED9).publicKey);
    writeFileSync(b58, '[1,2,300]', { mode: 0o600 });
    expect(() => Keypair.fromFile(b58)).toThrow(/byte values/);
    expect(() => Keypair.fromFile(join(dir, 'missing.json'))).toThrow(/ENOENT/);
  });

  it('loads from an environment variable', () => {
    const secret = bs58.encode(SEED9);
    expect(Keypair.fromEnv('K', { K: secret }).publicKey).toBe(Keypair.fromBytes(SEED9).publicKey);
    expect(() => Keypair.fromEnv('K', {})).toThrow(/K: environment variable is not set/);
  });

  it('never reveals the secret in toString, JSON, inspect or error messages', () => {
    const secretText = bs58.encode(SEED9);
    const kp = Keypair.fromBase58(secretText);
    const seedJson = JSON.stringify([...SEED9]).slice(1, -1);
    for (const shown of [String(kp), JSON.stringify(kp), inspect(kp, { showHidden: true, depth: 5 }), `${kp}`]) {
      expect(shown).toContain(kp.publicKey);
      expect(shown).not.toContain(secretText);
      expect(shown).not.toContain(seedJson);
    }
    const bad = secretText.slice(0, 20) + '0' + secretText.slice(21);
    try {
      Keypair.fromBase58(bad);
      expect.unreachable();
    } catch (e) {
      expect(String((e as Error).message)).not.toContain(bad);
      expect((e as Error).cause).toBeUndefined();
    }
  });

  it('signatures verify with node:crypto and with SignatureVerifier; forgeries do not', () => {
    const kp = Keypair.generate();
    const msg = new Uint8Array(randomBytes(100));
    const sig = kp.signBase58(msg);
    const verifier = new SignatureVerifier();
    expect(verifier.verify(kp.publicKey, msg, sig)).toBe(true);
    expect(
      verify(
        null,
        msg,
        { key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), kp.publicKeyBytes]), format: 'der', type: 'spki' },
        bs58.decode(sig),
      ),
    ).toBe(true);
    const tampered = new Uint8Array(msg);
    tampered[0]! ^= 1;
    expect(verifier.verify(kp.publicKey, tampered, sig)).toBe(false);
    expect(verifier.verify(kp.publicKey, msg, sig.slice(0, -4))).toBe(false);
    expect(verifier.verify('garbage', msg, sig)).toBe(false);
    expect(verifier.verify(Keypair.generate().publicKey, msg, sig)).toBe(false);
  });
});
