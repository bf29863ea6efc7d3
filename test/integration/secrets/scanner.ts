// Finds a signing key's secret in output (issue 20, secrets suite): every encoding of the 32-byte seed, the 64-byte
// keypair and the derived secret scalar, whole or as any piece of one of 10 base58/base64 characters, 16 hex digits, 8
// byte values or 12 raw bytes.
// Invariant: only pieces that cover secret bytes are looked for, so the public key (the keypair's second half) never matches.
import { createHash } from 'node:crypto';
import { base58Encode } from '../../../src/protocol/base58.js';
import { secretScalar, writeLittleEndian32 } from '../../../src/protocol/ed25519-scalar.js';

/** Base58 and base64 pieces this long are looked for (10 characters: 58 to 60 bits, what V8 quotes of a bad JSON text). */
const TEXT_PIECE = 10;
/** Hex pieces (16 digits = 64 bits). */
const HEX_PIECE = 16;
/** Pieces of the spaced hex form (`9a 3f …`, as Buffer inspect prints): 8 bytes. */
const SPACED_PIECE = 23;
/** Decimal pieces (the scalar as a decimal integer), digits. */
const DECIMAL_PIECE = 24;
/** Raw byte pieces (binary files such as the SQLite journal), bytes. */
const RAW_PIECE = 12;
/** Consecutive byte values of a JSON array or inspect output (`[12, 250, ...]`). */
const VALUES_PIECE = 8;

export interface SecretEncoding {
  /** `seed base58`, `keypair hex`, `scalar decimal`, ... */
  readonly name: string;
  readonly text: string;
}

export interface Finding {
  /** Where the artifact came from (`stdout`, `GET /metrics`, `data/perpbot.sqlite`, ...). */
  readonly artifact: string;
  readonly encoding: string;
  /** The byte offset of the piece in the artifact. */
  readonly at: number;
}

export interface SecretScanner {
  /** Every whole encoding looked for (the tests plant these). */
  readonly encodings: readonly SecretEncoding[];
  /** The raw secret byte strings looked for in binary artifacts. */
  readonly raw: readonly { name: string; bytes: Uint8Array }[];
  /** Every place in `content` where a piece of a secret encoding appears. */
  scan(artifact: string, content: string | Uint8Array): Finding[];
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const b64url = (b: Uint8Array) => Buffer.from(b).toString('base64url');

/** Pieces of `text` of length `n` (the whole text when shorter), each mapped to `name`. */
function pieces(text: string, n: number, name: string, into: Map<string, string>): void {
  if (text.length <= n) into.set(text, name);
  else for (let i = 0; i + n <= text.length; i++) into.set(text.slice(i, i + n), name);
}

/** Slides a window of `n` characters over `haystack` and reports every window in `wanted`. */
function slide(artifact: string, haystack: string, n: number, wanted: Map<string, string>, out: Finding[]): void {
  for (let i = 0; i + n <= haystack.length; i++) {
    const name = wanted.get(haystack.slice(i, i + n));
    if (name !== undefined) out.push({ artifact, encoding: name, at: i });
  }
}

/** A scanner for the secret of `seed` (32 bytes) whose public key is `publicKey` (32 bytes). */
export function secretScanner(seed: Uint8Array, publicKey: Uint8Array): SecretScanner {
  const keypair = Uint8Array.of(...seed, ...publicKey);
  const digest = new Uint8Array(createHash('sha512').update(seed).digest());
  const scalarValue = secretScalar(digest);
  const scalar = new Uint8Array(32);
  writeLittleEndian32(scalarValue, scalar, 0);
  const prefix = digest.slice(32);

  // Position-preserving encodings are built from the secret halves only; mixing ones (base58, base64 of the
  // keypair) are taken whole: none of their pieces is a piece of the public key's own encoding.
  const encodings: SecretEncoding[] = [];
  const add = (name: string, text: string) => encodings.push({ name, text });
  for (const [what, bytes] of [
    ['seed', seed],
    ['scalar', scalar],
    ['nonce prefix', prefix],
  ] as const) {
    add(`${what} hex`, hex(bytes));
    add(`${what} HEX`, hex(bytes).toUpperCase());
    add(`${what} hex spaced`, [...bytes].map((x) => x.toString(16).padStart(2, '0')).join(' '));
    add(`${what} base58`, base58Encode(bytes));
    add(`${what} base64`, b64(bytes));
    add(`${what} base64url`, b64url(bytes));
  }
  for (const [what, bytes] of [
    ['keypair', keypair],
    ['digest', digest],
  ] as const) {
    add(`${what} base58`, base58Encode(bytes));
    add(`${what} base64`, b64(bytes));
    add(`${what} base64url`, b64url(bytes));
  }
  add('scalar decimal', scalarValue.toString());
  add('seed JSON array', JSON.stringify([...seed]));
  add('keypair JSON array', JSON.stringify([...keypair]));

  /** Wanted text pieces by piece length. */
  const textPieces = new Map<number, Map<string, string>>();
  for (const e of encodings) {
    if (e.name.endsWith('JSON array')) continue;
    const n = e.name.endsWith('decimal') ? DECIMAL_PIECE : e.name.endsWith('spaced') ? SPACED_PIECE : /hex|HEX/.test(e.name) ? HEX_PIECE : TEXT_PIECE;
    if (!textPieces.has(n)) textPieces.set(n, new Map());
    pieces(e.text, n, e.name, textPieces.get(n)!);
  }
  const raw = [
    { name: 'seed raw', bytes: seed },
    { name: 'scalar raw', bytes: scalar },
    { name: 'nonce prefix raw', bytes: prefix },
  ];
  const rawPieces = new Map<string, string>();
  for (const r of raw) pieces(Buffer.from(r.bytes).toString('latin1'), RAW_PIECE, r.name, rawPieces);
  const valuePieces = new Map<string, string>();
  for (const [name, bytes] of [
    ['seed byte values', seed],
    ['scalar byte values', scalar],
  ] as const) {
    for (let i = 0; i + VALUES_PIECE <= bytes.length; i++) valuePieces.set(bytes.slice(i, i + VALUES_PIECE).join(','), name);
  }

  return {
    encodings,
    raw,
    scan(artifact, content) {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
      const latin1 = bytes.toString('latin1');
      const found: Finding[] = [];
      for (const [n, wanted] of textPieces) slide(artifact, latin1, n, wanted, found);
      slide(artifact, latin1, RAW_PIECE, rawPieces, found);
      // Byte values written as decimal numbers with any separators (JSON, util.inspect, join(' ')).
      for (const run of latin1.matchAll(/\d{1,3}(?:[\s,;]+\d{1,3}){7,}/g)) {
        const values = run[0].split(/[\s,;]+/);
        for (let i = 0; i + VALUES_PIECE <= values.length; i++) {
          const name = valuePieces.get(values.slice(i, i + VALUES_PIECE).join(','));
          if (name !== undefined) found.push({ artifact, encoding: name, at: run.index });
        }
      }
      return found;
    },
  };
}

/** One line per finding, with the text around it, for a failure message. */
export function describeFindings(findings: readonly Finding[], contents: ReadonlyMap<string, string | Uint8Array>): string {
  const distinct = findings.filter((f, i) => !findings.slice(0, i).some((g) => g.artifact === f.artifact && Math.abs(g.at - f.at) < 64));
  return distinct
    .slice(0, 20)
    .map((f) => {
      const c = contents.get(f.artifact);
      const text = c === undefined ? '' : (typeof c === 'string' ? Buffer.from(c) : Buffer.from(c)).toString('latin1');
      return `${f.artifact} @${f.at} (${f.encoding}): …${JSON.stringify(text.slice(Math.max(0, f.at - 60), f.at + 60))}…`;
    })
    .join('\n');
}
