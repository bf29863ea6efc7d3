// The secrets suite's scanner can fail (issue 20): a secret planted in a copy of real-looking output, in every encoding,
// whole or as a piece, and the raw seed in a binary file, are found; the public key in every encoding and another key's
// secret are not.
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { base58Encode } from '../../../src/protocol/base58.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { secretScanner } from './scanner.js';

const seed = new Uint8Array(randomBytes(32));
const key = Keypair.fromBytes(seed);
const scanner = secretScanner(seed, key.publicKeyBytes);
const logLine = (value: string) => `{"level":"info","time":"2026-11-25T18:00:00.000Z","component":"execution","msg":"submitted","value":"${value}"}\n`;
const metrics = '# HELP perpbot_open_orders Open orders\n# TYPE perpbot_open_orders gauge\nperpbot_open_orders{account="main"} 4\n';

describe('secret scanner', () => {
  it('lists every encoding the suite promises', () => {
    const names = scanner.encodings.map((e) => e.name);
    for (const n of [
      'seed base58',
      'keypair base58',
      'seed hex',
      'seed base64',
      'seed base64url',
      'seed JSON array',
      'keypair JSON array',
      'keypair base64',
      'keypair base64url',
    ]) {
      expect(names).toContain(n);
    }
    expect(scanner.encodings.find((e) => e.name === 'keypair base58')!.text).toBe(base58Encode(Uint8Array.of(...seed, ...key.publicKeyBytes)));
    expect(scanner.encodings.find((e) => e.name === 'keypair JSON array')!.text).toBe(key.keyFileText().trim());
  });

  it.each(scanner.encodings.map((e) => [e.name, e.text] as const))('finds %s planted whole in a log line and in metrics text', (_name, text) => {
    expect(scanner.scan('log', logLine(text)).length).toBeGreaterThan(0);
    expect(scanner.scan('metrics', `${metrics}perpbot_x{v="${text}"} 1\n`).length).toBeGreaterThan(0);
  });

  it.each(scanner.encodings.filter((e) => !e.name.endsWith('JSON array')).map((e) => [e.name, e.text] as const))(
    'finds a middle piece of %s (24 characters; 10 base58 or base64 characters alone)',
    (name, text) => {
      // A piece shared by two encodings (base64 and base64url without + or /) is reported under either name.
      const piece = text.slice(Math.floor(text.length / 2) - 12, Math.floor(text.length / 2) + 12);
      expect(scanner.scan('log', logLine(piece)).length).toBeGreaterThan(0);
      if (/base58|base64/.test(name)) expect(scanner.scan('log', logLine(text.slice(0, 10))).length).toBeGreaterThan(0);
    },
  );

  it('finds the seed as util.inspect prints a Buffer and a Uint8Array, and nine of its byte values in a row', () => {
    expect(scanner.scan('inspect', inspect(Buffer.from(seed))).length).toBeGreaterThan(0);
    expect(scanner.scan('inspect', inspect(seed)).length).toBeGreaterThan(0);
    expect(scanner.scan('values', `levels [${[...seed.slice(10, 19)].join(', ')}]`).map((f) => f.encoding)).toContain('seed byte values');
  });

  it('finds the raw seed and raw scalar bytes inside a binary file', () => {
    for (const r of scanner.raw) {
      const file = Buffer.concat([randomBytes(5000), Buffer.from(r.bytes), randomBytes(5000)]);
      expect(scanner.scan('journal', file).map((f) => f.encoding)).toContain(r.name);
      expect(scanner.scan('journal', Buffer.concat([randomBytes(100), Buffer.from(r.bytes.slice(3, 17)), randomBytes(100)])).map((f) => f.encoding)).toContain(
        r.name,
      );
    }
  });

  it('does not flag the public key in any encoding, another key, or random data', () => {
    const pub = key.publicKeyBytes;
    const publicForms = [
      key.publicKey,
      Buffer.from(pub).toString('hex'),
      Buffer.from(pub).toString('base64'),
      Buffer.from(pub).toString('base64url'),
      JSON.stringify([...pub]),
      inspect(Buffer.from(pub)),
      Buffer.from(pub).toString('latin1'),
    ];
    expect(scanner.scan('public', publicForms.join('\n'))).toEqual([]);
    const other = Keypair.generate();
    expect(scanner.scan('other', other.keyFileText())).toEqual([]);
    expect(scanner.scan('random', randomBytes(1 << 20))).toEqual([]);
  });
});
