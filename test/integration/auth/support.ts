// The authentication suite's tools (issue 20): v1 requests signed over one set of bytes and sent with another, and a
// snapshot of everything a refused request could change on the local venue (slot, ledger, accounts, agents, oracle, books).
import { connect, type Socket } from 'node:net';
import { expect } from 'vitest';
import { parseJson } from '../../../src/core/json.js';
import { stringifyJson } from '../../../src/core/json.js';
import { base58Encode } from '../../../src/protocol/base58.js';
import { ACTION_PATHS, type Action, type ActionType } from '../../../src/protocol/v1/actions.js';
import { serializeAction } from '../../../src/protocol/v1/serialize.js';
import type { Venue, VenueOptions } from '../../../src/venue-sim/server/index.js';
import { post, quietVenue, type Reply } from '../venue/harness.js';
import { reportSuite, Tally } from './report.js';

/** Anything that signs bytes under a claimed public key (a Keypair, or an attacker's stand-in). */
export interface Signs {
  readonly publicKey: string;
  sign(message: Uint8Array): Uint8Array;
}

/** A request's fields, each settable on its own so a test can sign one thing and send another. */
export interface RawRequest {
  action: Action;
  nonce: bigint;
  account: string;
  signer: string;
  /** Base58 signature text. */
  signature: string;
}

/** The v1 signed message of `action` (gaps-decided §1). */
export function messageOf(action: Action, nonce: bigint, account: string, signer: string): Uint8Array {
  return serializeAction(action, nonce, account, signer);
}

/** `action` signed honestly by `key` for `account` (default the key's own). */
export function signed(key: Signs, action: Action, nonce: bigint, account = key.publicKey): RawRequest {
  return { action, nonce, account, signer: key.publicKey, signature: base58Encode(key.sign(messageOf(action, nonce, account, key.publicKey))) };
}

/** The JSON body of `r` (nonce a bare integer, as the client sends it). */
export function bodyOf(r: RawRequest): string {
  return stringifyJson({ action: { ...r.action, nonce: r.nonce }, account: r.account, signer: r.signer, signature: r.signature });
}

/** Every request a test crafted, by test and outcome (the suite's table). */
const tally = new Tally(['requests', 'applied', 'bad signature', 'unauthorized signer', 'nonce reused', 'nonce stale', '400', 'other']);

function outcomeOf(r: Reply): string {
  if (applied(r)) return 'applied';
  if (r.status === 400) return '400';
  const message = r.status === 200 ? r.body?.response?.data?.statuses?.[0]?.error?.message : undefined;
  if (message === 'nonce already used') return 'nonce reused';
  if (typeof message === 'string' && message.startsWith('stale nonce')) return 'nonce stale';
  return message === 'bad signature' || message === 'unauthorized signer' ? message : 'other';
}

/** POSTs `r` to its action's endpoint (or `path`), counting it under the running test. */
export async function send(venue: Venue, r: RawRequest, path: string = ACTION_PATHS[r.action.type]): Promise<Reply> {
  const reply = await post(venue, path, bodyOf(r));
  const test = expect.getState().currentTestName?.split(' > ').at(-1) ?? 'set-up';
  tally.add(test, 'requests');
  tally.add(test, outcomeOf(reply));
  return reply;
}

/**
 * POSTs every request at the same instant: each on its own connection with all but the last body byte written first,
 * then every last byte in one synchronous loop, so the venue reads them all in the same few event-loop turns.
 */
export async function sendAtOnce(venue: Venue, requests: readonly RawRequest[]): Promise<Reply[]> {
  const { hostname, port, pathname } = new URL(venue.url);
  const sockets = await Promise.all(
    requests.map(
      (r) =>
        new Promise<{ socket: Socket; last: string; answer: Promise<Reply> }>((resolve, reject) => {
          const body = bodyOf(r);
          const head = `POST ${pathname}${ACTION_PATHS[r.action.type]} HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
          const socket = connect(Number(port), hostname);
          const chunks: Buffer[] = [];
          socket.on('data', (c) => chunks.push(c));
          const answer = new Promise<Reply>((done, fail) => {
            socket.on('error', fail);
            socket.on('close', () => done(parseResponse(Buffer.concat(chunks).toString('utf8'))));
          });
          socket.once('error', reject);
          socket.write(head + body.slice(0, -1), () => resolve({ socket, last: body.slice(-1), answer }));
        }),
    ),
  );
  for (const s of sockets) s.socket.write(s.last);
  const replies = await Promise.all(sockets.map((s) => s.answer));
  const test = expect.getState().currentTestName?.split(' > ').at(-1) ?? 'set-up';
  for (const reply of replies) {
    tally.add(test, 'requests');
    tally.add(test, outcomeOf(reply));
  }
  return replies;
}

function parseResponse(raw: string): Reply {
  const split = raw.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = raw.slice(0, split).split('\r\n');
  const headers = new Headers(headerLines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()] as [string, string]));
  const text = raw.slice(split + 4);
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text ? parseJson(text) : undefined, text };
}

/** Prints this file's table and stores it in reports/auth-<profile>.json (call in afterAll). */
export function reportAuth(file: string): void {
  reportSuite('auth', file, tally.table('case'));
}

/** A quiet local venue whose schedule never runs during a test (so the slot moves only with actions). */
export function authVenue(opts: VenueOptions = {}): Promise<Venue> {
  return quietVenue({ tickIntervalMs: 3_600_000, ...opts });
}

/** The refusal of an authentic-looking request: HTTP 200, JSON, status error, one status naming why (gaps-decided §4). */
export function refusal(r: Reply, type: ActionType): string {
  if (r.status !== 200 || !/application\/json/.test(r.headers.get('content-type') ?? ''))
    throw new Error(`expected a 200 JSON refusal, got ${r.status} ${r.text}`);
  const statuses = r.body?.response?.data?.statuses;
  if (r.body?.status !== 'error' || r.body.response.type !== type || !Array.isArray(statuses) || statuses.length !== 1) {
    throw new Error(`expected {status: error} with one status for ${type}, got ${r.text}`);
  }
  const message = statuses[0]?.error?.message;
  if (typeof message !== 'string' || Object.keys(r.body).length !== 2 || Object.keys(statuses[0]).length !== 1) throw new Error(`not a refusal: ${r.text}`);
  return message;
}

/** The message of a 400 JSON error (`{status: error, error: {code: BAD_REQUEST, message}}`). */
export function badRequest(r: Reply): string {
  if (r.status !== 400 || !/application\/json/.test(r.headers.get('content-type') ?? ''))
    throw new Error(`expected a 400 JSON error, got ${r.status} ${r.text}`);
  if (r.body?.status !== 'error' || r.body.error?.code !== 'BAD_REQUEST' || typeof r.body.error.message !== 'string')
    throw new Error(`not a 400 error: ${r.text}`);
  return r.body.error.message;
}

/** True when `r` was applied: status ok. */
export function applied(r: Reply): boolean {
  return r.status === 200 && r.body?.status === 'ok';
}

/**
 * Everything on the venue a request could change, as one string: the state-change counter (slot), the ledger, each
 * given account's balances, positions, open orders, order history, fills and agents, and every market's oracle, mark
 * and book.
 */
export function venueState(venue: Venue, accounts: readonly string[]): string {
  const e = venue.engine;
  return stringifyJson({
    slot: e.slot,
    audit: e.audit(),
    accounts: accounts.map((a) => ({
      account: a,
      full: e.fullAccount(a),
      open: e.openOrders(a),
      history: e.orderHistory(a),
      fills: e.fills(a),
      agents: e.agents(a).sort(),
    })),
    markets: e.markets().map((m) => ({ state: e.marketState(m.symbol), book: e.book(m.symbol) })),
  });
}
