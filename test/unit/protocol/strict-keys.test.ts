// Strict Ed25519 (issue 14, defect 2): small-order and non-canonical public keys and signatures are refused by the
// byte checks, by the key decoders and schemas, by both verifiers and by key loading; honest keys still pass.
import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.js';
import { parse } from '../../../src/core/schema.js';
import { GROUP_ORDER, littleEndian, writeLittleEndian32 } from '../../../src/protocol/ed25519-scalar.js';
import { isCurvePoint, strictPointProblem, strictSignatureProblem } from '../../../src/protocol/ed25519-strict.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { decodeKey32, decodePublicKey } from '../../../src/protocol/pubkey.js';
import { createRequestBodySchema } from '../../../src/protocol/v1/actions.js';
import { SignatureVerifier } from '../../../src/protocol/verify.js';
import { inlineVerifier, workerVerifier, type AsyncVerifier } from '../../../src/venue-sim/server/verify-pool.js';
import { FIELD_PRIME, FIXED_SIGNATURE, hex, IDENTITY, le32, SMALL_ORDER_ENCODINGS as ENCODINGS } from '../../support/small-order-keys.js';

describe('the torsion subgroup as enumerated for these tests', () => {
  it('has 8 distinct canonical encodings, all of small order, plus non-canonical aliases', () => {
    const canonical = ENCODINGS.filter((e) => e.canonical);
    expect(new Set(canonical.map((e) => hex(e.bytes))).size).toBe(8);
    expect(hex(IDENTITY)).toBe(`01${'00'.repeat(31)}`);
    expect(ENCODINGS.some((e) => hex(e.bytes) === '00'.repeat(32))).toBe(true);
    expect(ENCODINGS.length).toBeGreaterThan(8);
    for (const e of ENCODINGS) expect(ed.Point.fromBytes(e.bytes, true).isSmallOrder()).toBe(true);
  });
});

describe('strictPointProblem', () => {
  it.each(ENCODINGS.map((e) => [e.name, e] as const))('refuses %s', (_name, e) => {
    expect(strictPointProblem(e.bytes)).toMatch(e.canonical ? /small order/ : /small order|non-canonical/);
  });

  it('refuses an encoding with y ≥ p that aliases a point of large order', () => {
    const y = [...Array(19).keys()].map(BigInt).find((v) => {
      try {
        return !ed.Point.fromBytes(le32(v), false).isSmallOrder();
      } catch {
        return false;
      }
    })!;
    const alias = le32(y + FIELD_PRIME);
    expect(ed.Point.fromBytes(alias, true).equals(ed.Point.fromBytes(le32(y), false))).toBe(true);
    expect(strictPointProblem(le32(y))).toBeUndefined();
    expect(strictPointProblem(alias)).toMatch(/non-canonical/);
  });

  it('accepts every generated key, and agrees with @noble/ed25519 strict decoding on random bytes', () => {
    for (let i = 0; i < 50; i++) expect(strictPointProblem(Keypair.generate().publicKeyBytes)).toBeUndefined();
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.constantFrom(...ENCODINGS.map((e) => e.bytes)),
        fc.boolean(),
        (random, small, pickSmall) => {
          const bytes = pickSmall ? small : random;
          let strict: ed.Point | undefined;
          try {
            strict = ed.Point.fromBytes(bytes, false);
          } catch {
            strict = undefined;
          }
          if (strictPointProblem(bytes) !== undefined) return strict === undefined || strict.isSmallOrder();
          // accepted by the byte check: noble strict finds it canonical and not small, or off the curve
          return strict === undefined ? !isCurvePoint(bytes) : !strict.isSmallOrder();
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads the point at an offset (the R half of a signature)', () => {
    expect(strictPointProblem(FIXED_SIGNATURE, 0)).toMatch(/small order/);
    expect(strictPointProblem(Uint8Array.of(...new Uint8Array(5), ...Keypair.generate().publicKeyBytes), 5)).toBeUndefined();
  });
});

describe('strictSignatureProblem', () => {
  const key = Keypair.generate();
  const message = new TextEncoder().encode('strict');
  const good = key.sign(message);

  it('accepts an honest signature and refuses S ≥ L, a small-order R and a non-canonical R', () => {
    expect(strictSignatureProblem(good)).toBeUndefined();
    const s = littleEndian(good.slice(32));
    const withS = (v: bigint) => {
      const sig = Uint8Array.from(good);
      writeLittleEndian32(v, sig, 32);
      return sig;
    };
    expect(strictSignatureProblem(withS(GROUP_ORDER - 1n))).toBeUndefined();
    expect(strictSignatureProblem(withS(s + GROUP_ORDER))).toMatch(/S/);
    expect(strictSignatureProblem(withS(GROUP_ORDER))).toMatch(/S/);
    expect(strictSignatureProblem(withS(2n ** 256n - 1n))).toMatch(/S/);
    for (const e of ENCODINGS) expect(strictSignatureProblem(Uint8Array.of(...e.bytes, ...good.slice(32)))).toMatch(/^R/);
  });
});

describe('public key decoding and schemas', () => {
  it.each(ENCODINGS.map((e) => [e.name, bs58.encode(e.bytes)] as const))('decodePublicKey refuses %s, naming the field', (_name, text) => {
    expect(() => decodePublicKey(text, 'signer')).toThrow(ValidationError);
    expect(() => decodePublicKey(text, 'signer')).toThrow(/^signer: /);
    expect(decodeKey32(text, 'oid')).toHaveLength(32); // hashes and order ids are not points
  });

  it('the signed request body refuses such an account, signer, agent or faucet user, by field', () => {
    const good = Keypair.generate();
    const schema = createRequestBodySchema('agentWalletCreation');
    const body = (over: Record<string, unknown>) => ({
      action: { type: 'agentWalletCreation', agent: Keypair.generate().publicKey, delete: false, nonce: 1n },
      account: good.publicKey,
      signer: good.publicKey,
      signature: bs58.encode(good.sign(new Uint8Array(1))),
      ...over,
    });
    expect(() => parse(schema, body({}))).not.toThrow();
    const identity = bs58.encode(IDENTITY);
    expect(() => parse(schema, body({ account: identity }))).toThrow(/^account: .*small order/);
    expect(() => parse(schema, body({ signer: identity }))).toThrow(/^signer: .*small order/);
    expect(() => parse(schema, body({ action: { type: 'agentWalletCreation', agent: identity, delete: false, nonce: 1n } }))).toThrow(
      /^action\.agent: .*small order/,
    );
    const faucet = { type: 'faucet', user: identity, nonce: 1n };
    expect(() => parse(createRequestBodySchema('faucet'), body({ action: faucet }))).toThrow(/^action\.user: .*small order/);
  });
});

describe('verifiers refuse the fixed signature of a small-order key', () => {
  let pool: AsyncVerifier | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });
  const messages = Array.from({ length: 16 }, () => new Uint8Array(randomBytes(40)));

  it('SignatureVerifier', () => {
    const v = new SignatureVerifier();
    for (const e of ENCODINGS) for (const m of messages) expect(v.verify(bs58.encode(e.bytes), m, bs58.encode(FIXED_SIGNATURE))).toBe(false);
    const key = Keypair.generate();
    expect(v.verify(key.publicKey, messages[0]!, key.signBase58(messages[0]!))).toBe(true);
  });

  it.each([
    ['worker', () => workerVerifier()],
    ['inline', () => inlineVerifier()],
  ])('%s pool, batched and alone', async (_name, make) => {
    pool = make();
    const key = Keypair.generate();
    const requests = ENCODINGS.flatMap((e) => messages.map((m) => [bs58.encode(e.bytes), m, bs58.encode(FIXED_SIGNATURE)] as const));
    requests.push([key.publicKey, messages[0]!, key.signBase58(messages[0]!)]);
    const results = await Promise.all(requests.map((r) => pool!.verify(...r)));
    expect(results.slice(0, -1).every((ok) => !ok)).toBe(true);
    expect(results.at(-1)).toBe(true);
  });
});

describe('key loading', () => {
  it('refuses a Solana-style key file whose public half is the identity point, naming the file', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'perpbot-strict-')), 'forged.json');
    writeFileSync(path, JSON.stringify([...new Uint8Array(32).fill(7), ...IDENTITY]), { mode: 0o600 });
    expect(() => Keypair.fromFile(path)).toThrow(new RegExp(`^key file ${path}: the public half of the 64-byte keypair is a point of small order`));
  });

  it('refuses a 64-byte keypair whose public half is a small-order point, saying so', () => {
    const seed = new Uint8Array(32).fill(7);
    for (const e of ENCODINGS) {
      expect(() => Keypair.fromBytes(Uint8Array.of(...seed, ...e.bytes), 'key file k.json')).toThrow(
        /^key file k\.json: .*public half .*(small order|non-canonical)/,
      );
    }
  });
});
