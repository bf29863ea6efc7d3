// Shared by venue commands: --url/--ws-url/--dialect/--network/--key/--json, durable nonces, sign + submit + print.
// Invariant: a signed action is sent once; an unknown outcome is reported (exit 1), never re-signed.

import { homedir } from 'node:os';
import { join } from 'node:path';
import { HttpClient } from '../../client/http.js';
import type { SubmitOutcome } from '../../client/submit.js';
import { systemClock } from '../../core/clock.js';
import { stringifyJson } from '../../core/json.js';
import { DIALECTS, NETWORKS, type Dialect, type Network } from '../../core/types.js';
import { Keypair, SECRET_KEY_ENV } from '../../protocol/keys.js';
import { FileNonceStore, NonceSource } from '../../protocol/nonce.js';
import { oneOf, UsageError } from '../args.js';
import { formatTable } from './table.js';
import { failedItems, signAction, type FailedItem } from './actions.js';

/** Options every venue command accepts (merge into its parseCommand options). */
export const VENUE_OPTIONS = {
  url: { type: 'string' },
  'ws-url': { type: 'string' },
  dialect: { type: 'string' },
  network: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const VENUE_HELP = `Venue options:
  --url URL        REST base URL ending in /api/v1 (default $PERPBOT_URL, else http://127.0.0.1:8080/api/v1)
  --ws-url URL     WebSocket URL (default $PERPBOT_WS_URL, else ws://<host of --url>/ws)
  --dialect D      v1 or current (default v1)
  --network N      mainnet, testnet or devnet: the current dialect's network byte (default testnet,
                   as the daemon; mainnet only when named)
  --key FILE       signing key file (default: the base58 secret in $${SECRET_KEY_ENV})
  --json           print JSON instead of tables`;

export interface VenueValues {
  url?: string;
  'ws-url'?: string;
  dialect?: string;
  network?: string;
  key?: string;
  json?: boolean;
}

/** Where and how a command talks to the venue. */
export interface VenueTarget {
  url: string;
  wsUrl: string;
  dialect: Dialect;
  network: Network;
  json: boolean;
  keyFile: string | undefined;
}

export function venueOf(values: VenueValues, env: NodeJS.ProcessEnv = process.env): VenueTarget {
  const url = values.url ?? env.PERPBOT_URL ?? 'http://127.0.0.1:8080/api/v1';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url is not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`--url must be an http(s) URL; got ${JSON.stringify(url)}`);
  const wsUrl = values['ws-url'] ?? env.PERPBOT_WS_URL ?? `${parsed.protocol === 'https:' ? 'wss' : 'ws'}://${parsed.host}/ws`;
  if (!['ws:', 'wss:'].includes(schemeOf(wsUrl) ?? '')) throw new UsageError(`--ws-url must be a ws(s) URL; got ${JSON.stringify(wsUrl)}`);
  return {
    url,
    wsUrl,
    dialect: oneOf('dialect', values.dialect, DIALECTS, 'v1'),
    network: oneOf('network', values.network, NETWORKS, 'testnet'),
    json: values.json ?? false,
    keyFile: values.key,
  };
}

/** The scheme of `text` (`wss:`), or undefined when it is not a URL. */
function schemeOf(text: string): string | undefined {
  try {
    return new URL(text).protocol;
  } catch {
    return undefined;
  }
}

export function httpClient(venue: VenueTarget): HttpClient {
  return new HttpClient({ baseUrl: venue.url, dialect: venue.dialect });
}

/** The signing key: --key FILE, else the environment variable. */
export function loadKey(venue: VenueTarget, env: NodeJS.ProcessEnv = process.env): Keypair {
  if (venue.keyFile !== undefined) return Keypair.fromFile(venue.keyFile, (m) => process.stderr.write(`warning: ${m}\n`));
  if (!env[SECRET_KEY_ENV]) throw new UsageError(`--key is required (or set ${SECRET_KEY_ENV})`);
  return Keypair.fromEnv(SECRET_KEY_ENV, env);
}

/** Where per-signer nonce high-water marks persist: $PERPBOT_HOME/nonces, else ~/.perpbot/nonces. */
export function nonceDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.PERPBOT_HOME ?? join(homedir(), '.perpbot'), 'nonces');
}

export interface ActionRequest {
  /** Dialect JSON of the action(s). */
  actions: unknown;
  /** The traded account when the key is one of its agents (default: the key's own). */
  account?: string | undefined;
}

/**
 * Signs `request` with a fresh durable nonce, submits it once and prints the outcome; exit 0 only when the action was
 * accepted and the venue refused none of its items (`rejected…`, `error`, `…Failed`, `…Rejected`).
 */
export async function submitAction(venue: VenueTarget, request: ActionRequest, out: (line: string) => void): Promise<number> {
  const key = loadKey(venue);
  const nonce = new NonceSource({ signer: key.publicKey, clock: systemClock(), store: new FileNonceStore(nonceDir()) }).next();
  const signed = signAction(venue.dialect, venue.network, key, nonce, request.actions, request.account);
  const http = httpClient(venue);
  try {
    const outcome = await http.submit(signed);
    const failed = outcome.outcome === 'accepted' ? failedItems(outcome.response.response.data.statuses) : [];
    printOutcome(venue, outcome, failed, signed.encoded.orderIds, out);
    return outcome.outcome === 'accepted' && failed.length === 0 ? 0 : 1;
  } finally {
    http.close();
  }
}

function printOutcome(
  venue: VenueTarget,
  outcome: SubmitOutcome,
  failed: readonly FailedItem[],
  orderIds: (string | null)[],
  out: (line: string) => void,
): void {
  const ids = orderIds.filter((id): id is string => id !== null);
  if (venue.json) {
    const { request: _request, ...rest } = outcome as SubmitOutcome & { request?: unknown };
    out(stringifyJson({ ...rest, orderIds: ids }));
    return;
  }
  if (outcome.outcome !== 'accepted') {
    out(`${outcome.outcome}: ${outcome.reason}`);
    if (outcome.outcome === 'unknown') out('the venue may have acted: check with `perpbot account openOrders` before sending again');
  } else {
    const { type, data } = outcome.response.response;
    out(failed.length === 0 ? `accepted (${type})` : `refused by the venue: ${failed.length} of ${data.statuses.length} items (${type})`);
    for (const f of failed) out(`  item ${f.index + 1}: ${f.status}: ${f.reason}`);
    const rows = data.statuses.map((s) => {
      const [status, detail] = Object.entries(s as Record<string, unknown>)[0] ?? ['', undefined];
      return { status, ...(typeof detail === 'object' && detail !== null ? detail : { detail }) };
    });
    out(formatTable(rows));
  }
  if (ids.length) out(`order ids: ${ids.join(', ')}`);
}

/** Parses a positive finite number argument; UsageError naming `what` otherwise. */
export function positiveNumber(what: string, text: string | undefined): number {
  const n = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new UsageError(`${what} must be a positive number; got ${JSON.stringify(text ?? null)}`);
  return n;
}
