// Bench `sign`: serialize-only rate of a one-order action, and the full sign path (validate +
// serialize + order id + Ed25519 + base58 + JSON body) against raw node:crypto signing, same run; and execution's
// presigned Ed25519 (precomputed commitments) against raw node:crypto signing.

import { createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { parseActions } from '../src/protocol/current/actions.js';
import { currentCodec } from '../src/protocol/current/codec.js';
import { signableBytes } from '../src/protocol/current/serialize.js';
import type { DialectCodec, EncodeInput } from '../src/protocol/dialect.js';
import { Keypair } from '../src/protocol/keys.js';
import { signRequest } from '../src/protocol/sign.js';
import { actionSchema } from '../src/protocol/v1/actions.js';
import { serializeAction } from '../src/protocol/v1/serialize.js';
import { v1Codec } from '../src/protocol/v1/codec.js';
import { parse } from '../src/core/schema.js';
import { base58Decode } from '../src/protocol/base58.js';
import { CommitmentPool } from '../src/protocol/commitment-pool.js';
import { compareRates, median, report } from './lib.js';

const seed = new Uint8Array(32).fill(7);
const key = Keypair.fromBytes(seed);
const rawKey = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
const account = key.publicKey;
const accountBytes = base58Decode(account);
let nonce = 1_763_770_000_000_000_000n;

const currentActions = [{ l: { c: 'BTC-USD', b: true, px: 97_123.5, sz: 0.015, tif: 'GTC', r: false, i: false } }];
const v1Action = { type: 'order', orders: [{ order: { c: 'BTC-USD', b: true, px: 97_123.5, sz: 0.015, r: false, t: { limit: { tif: 'GTC' } } } }] };
const parsedCurrent = parseActions(currentActions);
const parsedV1 = parse(actionSchema, v1Action);

function input(actions: unknown): EncodeInput {
  return { actions, account, signer: account, nonce: nonce++, network: 'mainnet', mode: 'raw' };
}

const sampleMessage = currentCodec.encode(input(currentActions)).message;
let sink = 0;

const serialize = compareRates({
  current: () => {
    sink += signableBytes(parsedCurrent, nonce++, accountBytes, 1, 3).length;
  },
  v1: () => {
    sink += serializeAction(parsedV1, nonce++, accountBytes, accountBytes).length;
  },
});
report('sign', 'serialize_per_s', serialize.current!, 'ops/s');
report('sign', 'serialize_v1_per_s', serialize.v1!, 'ops/s');

const signPath = (codec: DialectCodec, actions: unknown) => () => {
  sink += signRequest(codec, key, input(actions)).bodyText.length;
};
const signPathWithIds = (codec: DialectCodec, actions: unknown) => () => {
  const signed = signRequest(codec, key, input(actions));
  sink += signed.bodyText.length + signed.encoded.orderIds.length;
};
const rates = compareRates(
  {
    native: () => {
      sink += cryptoSign(null, sampleMessage, rawKey).length;
    },
    current: signPath(currentCodec, currentActions),
    v1: signPath(v1Codec, v1Action),
    currentWithIds: signPathWithIds(currentCodec, currentActions),
  },
  9,
  250,
);
report('sign', 'native_sign_per_s', rates.native!, 'ops/s');
report('sign', 'sign_path_per_s', rates.current!, 'ops/s');
report('sign', 'sign_path_v1_per_s', rates.v1!, 'ops/s');
report('sign', 'sign_path_with_order_ids_per_s', rates.currentWithIds!, 'ops/s');
report('sign', 'sign_path_ratio', rates.current! / rates.native!, 'ratio');
report('sign', 'sign_path_v1_ratio', rates.v1! / rates.native!, 'ratio');
report('sign', 'sign_path_with_order_ids_ratio', rates.currentWithIds! / rates.native!, 'ratio');

// Presigned: each signature uses up a commitment (the worker makes ≈7k a second), so a filled pool is timed in
// rounds of PRESIGN_ROUND signatures, interleaved with as many native ones.
const PRESIGN_ROUND = 2000;
const pool = new CommitmentPool({ capacity: 9 * PRESIGN_ROUND, chunk: 500 });
while (pool.size < 9 * PRESIGN_ROUND) await new Promise((r) => setTimeout(r, 100));
const presigner = key.presigner(pool);
const perSecond = (fn: () => void) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < PRESIGN_ROUND; i++) fn();
  return PRESIGN_ROUND / (Number(process.hrtime.bigint() - start) / 1e9);
};
const presigned: number[] = [];
const native: number[] = [];
for (let round = 0; round < 8; round++) {
  native.push(perSecond(() => (sink += cryptoSign(null, sampleMessage, rawKey).length)));
  presigned.push(perSecond(() => (sink += presigner.sign(sampleMessage).length)));
}
await pool.close();
report('sign', 'presign_per_s', median(presigned), 'ops/s');
report('sign', 'presign_ratio', median(presigned) / median(native), 'ratio');
report('sign', 'presign_fallbacks', presigner.deterministicCount, 'count');
if (sink === 0) process.stderr.write('unreachable\n');
