// `perpbot sign`: encode and optionally sign one request in either dialect; prints one JSON object.
// Invariant: all input is validated (errors name the field) before anything is signed.

import { readFileSync } from 'node:fs';
import { systemClock } from '../../core/clock.js';
import { ValidationError } from '../../core/errors.js';
import { parseJson } from '../../core/json.js';
import { parse, u64 } from '../../core/schema.js';
import { DIALECTS, NETWORKS } from '../../core/types.js';
import { toHex } from '../../protocol/bytes.js';
import { codecFor } from '../../protocol/codecs.js';
import { SIGN_MODES } from '../../protocol/dialect.js';
import { Keypair } from '../../protocol/keys.js';
import { oneOf, parseCommand, UsageError } from '../args.js';

export const signHelp = `perpbot sign --dialect v1|current --actions FILE|- [--account PK] [--signer PK]
             [--nonce N] [--network mainnet|testnet|devnet] [--key FILE]
             [--mode raw|base58|offchain]

Encodes a request and prints {"signable", "message", "signature", "orderIds", "body"}; with a trig or an of,
also "childOrderIds" (per top-level action, the ids of its nested orders: docs/protocol.md).
  --actions   v1: the specification's action object; current: the actions array ("-" = stdin)
  --account   traded account (default: the key's public key)
  --signer    signing key's public key (default: the key's public key, else the account)
  --nonce     u64 nonce (default: now, in nanoseconds)
  --network   network byte of the current dialect (default: testnet, as the daemon; mainnet only when named)
  --key       key file (Solana JSON array or base58); without it nothing is signed
  --mode      wallet mode of the current dialect (default: raw)`;

export function sign(argv: string[], out: (line: string) => void): number {
  const { values } = parseCommand(argv, {
    dialect: { type: 'string' },
    actions: { type: 'string' },
    account: { type: 'string' },
    signer: { type: 'string' },
    nonce: { type: 'string' },
    network: { type: 'string' },
    key: { type: 'string' },
    mode: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    out(signHelp);
    return 0;
  }
  if (!values.dialect) throw new UsageError('--dialect is required (v1 or current)');
  if (!values.actions) throw new UsageError('--actions is required (a file, or - for standard input)');
  const dialect = oneOf('dialect', values.dialect, DIALECTS, 'v1');
  const network = oneOf('network', values.network, NETWORKS, 'testnet');
  const mode = oneOf('mode', values.mode, SIGN_MODES, 'raw');
  const key = values.key === undefined ? undefined : Keypair.fromFile(values.key, (m) => process.stderr.write(`warning: ${m}\n`));
  const account = values.account ?? key?.publicKey;
  if (!account) throw new UsageError('--account is required when no --key is given');
  const signer = values.signer ?? key?.publicKey ?? account;
  if (key && signer !== key.publicKey) throw new UsageError(`--signer ${signer} is not the public key of --key (${key.publicKey})`);
  const nonce = values.nonce === undefined ? systemClock().nowNs() : parse(u64(), values.nonce, 'nonce');
  const actions = readActions(values.actions);
  const encoded = codecFor(dialect).encode({ actions, account, signer, nonce, network, mode });
  const signature = key?.signBase58(encoded.message);
  const head = JSON.stringify({
    signable: toHex(encoded.signable),
    message: toHex(encoded.message),
    ...(signature === undefined ? {} : { signature }),
    orderIds: encoded.orderIds,
    ...(encoded.childOrderIds.some((ids) => ids.length > 0) && { childOrderIds: encoded.childOrderIds }),
  });
  out(`${head.slice(0, -1)},"body":${unsigned(encoded.bodyText(signature ?? ''), signature)}}`);
  return 0;
}

/** Without a key, the body is shown without its `signature` member. */
function unsigned(bodyText: string, signature: string | undefined): string {
  return signature === undefined ? bodyText.replace(/,"signature":""}$/, '}') : bodyText;
}

function readActions(source: string): unknown {
  let text: string;
  try {
    text = readFileSync(source === '-' ? 0 : source, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read --actions ${source}: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
  try {
    return parseJson(text);
  } catch {
    // Not the parser's message: V8 quotes the text in it, and a key file given by mistake would be shown.
    throw new ValidationError('actions', 'not valid JSON');
  }
}
