// The venue side of the fuzz suite: malformed HTTP requests and WebSocket frames over raw sockets against the local
// venue (startVenue in this process, flow and schedules stopped), with the engine's state hashed before and after.
// Invariants: no 5xx, no internal error, no uncaught exception, the state hash unchanged, the venue still answering.

import { createHash } from 'node:crypto';
import { stringifyJson } from '../../../src/core/json.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { signRequest } from '../../../src/protocol/sign.js';
import { v1Codec } from '../../../src/protocol/v1/codec.js';
import { flowAccount } from '../../../src/venue-sim/flow.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { post, Trader } from '../../integration/venue/harness.js';
import { Prng } from './prng.js';
import { exchange, type RawExchange } from './raw-socket.js';
import { HTTP_CLASSES, httpCase, type HttpBases } from './venue-http-cases.js';
import { validSubscribes, WS_CLASSES, wsCase } from './venue-ws-cases.js';

/** Longest setInterval delay: the venue's flow and schedules never fire on their own during the run. */
const NEVER_MS = 2 ** 31 - 1;
const CONCURRENCY = 32;
const ANSWER_WAIT_MS = 1500;

export interface ClassRow {
  cls: string;
  cases: number;
  /** Frames (WebSocket) or requests (HTTP) sent. */
  inputs: number;
  status2xx: number;
  status4xx: number;
  status5xx: number;
  /** Connections the venue closed (after its answer, or with none: a refused frame, a request cut short). */
  closed: number;
  /** Connections our wait ended (an incomplete request the venue keeps waiting for). */
  timeouts: number;
}

export interface VenueFuzzResult {
  seed: number;
  http: ClassRow[];
  ws: ClassRow[];
  httpRequests: number;
  wsFrames: number;
  internalErrors: string[];
  uncaught: string[];
  hashBefore: string;
  hashAfter: string;
  selfCheck: string[];
  /** A plain query answered after the run (the venue still serves). */
  aliveAfter: boolean;
  seconds: number;
}

/** Every account the run knows: the flow's participants and ours. */
function knownAccounts(venue: Venue, own: readonly string[]): string[] {
  const markets = venue.engine.markets().length;
  const flow: string[] = [];
  for (let i = 0; i < markets; i++) {
    flow.push(flowAccount('taker', i));
    for (let k = 0; k < 2; k++) flow.push(flowAccount('maker', i * 100 + k));
  }
  return [...flow, ...own];
}

/**
 * Hash of the engine's state as its public queries show it: the slot (any state change moves it), the exact ledger,
 * every market (rules, state, full book, predicted funding) and every known account (all six queries, margin, agents).
 */
export function stateHash(venue: Venue, accounts: readonly string[]): string {
  const e = venue.engine;
  const state = {
    slot: e.slot,
    nowNs: e.nowNs,
    audit: e.audit(),
    markets: e.markets().map((m) => ({
      info: m,
      state: e.marketState(m.symbol),
      book: e.book(m.symbol),
      funding: e.predictedFundingRate(m.symbol),
    })),
    accounts: accounts.map((a) => ({
      a,
      full: e.fullAccount(a),
      open: e.openOrders(a),
      fills: e.fills(a),
      history: e.orderHistory(a),
      positions: e.closedPositions(a),
      funding: e.fundingHistory(a),
      margin: e.marginSummary(a),
      agents: e.agents(a),
    })),
  };
  return createHash('sha256').update(stringifyJson(state)).digest('hex');
}

/** A live market with resting orders, fills and positions, and our accounts: one funded with orders, leverage and an agent. */
async function prepare(venue: Venue): Promise<{ bases: HttpBases; own: string[] }> {
  for (let i = 0; i < 20; i++) venue.step();
  const trader = new Trader(venue);
  const agent = Keypair.generate();
  const applied: { path: string; body: string }[] = [];
  const apply = async (action: Record<string, unknown>) => {
    const s = trader.sign(action);
    const r = await post(venue, s.path, s.bodyText);
    if (r.status !== 200 || r.body.status !== 'ok') throw new Error(`setup action refused: ${r.text}`);
    applied.push({ path: `/api/v1${s.path}`, body: s.bodyText });
  };
  await apply({ type: 'faucet', user: trader.account, amount: 50_000 });
  await apply({ type: 'updateUserSettings', settings: { m: [['BTC-USD', 5]] } });
  await apply({ type: 'agentWalletCreation', agent: agent.publicKey, delete: false });
  await apply({ type: 'order', orders: [trader.limit('BTC-USD', true, 50_000, 0.01), trader.limit('ETH-USD', false, 9_000, 0.1)] });
  const open = venue.engine.openOrders(trader.account);
  await apply({ type: 'order', orders: [{ cancel: { c: 'BTC-USD', oid: open[0]!.orderId } }] });
  // Signed by a key without authority over the account: refused whatever the mutation keeps.
  const stranger = Keypair.generate();
  const foreign = (action: Record<string, unknown>) => {
    const s = signRequest(v1Codec, stranger, {
      actions: action,
      account: trader.account,
      signer: stranger.publicKey,
      nonce: trader.nonces.next(),
      network: 'mainnet',
      mode: 'raw',
    });
    return { path: `/api/v1${s.encoded.path}`, body: s.bodyText };
  };
  const unauthorized = [
    foreign({ type: 'order', orders: [trader.limit('BTC-USD', true, 60_000, 0.01)] }),
    foreign({ type: 'faucet', user: trader.account, amount: 1_000 }),
    foreign({ type: 'oracle', prices: [{ timestamp: BigInt(Date.now()) * 1_000_000n, symbol: 'BTC-USD', price: 1 }] }),
  ];
  const queries = ['fullAccount', 'openOrders', 'fills', 'positions', 'fundingHistory', 'orderHistory'].map((type) =>
    JSON.stringify({ type, user: trader.account }),
  );
  return { bases: { accountQueries: queries, signedActions: [...applied, ...unauthorized] }, own: [trader.account, agent.publicKey, stranger.publicKey] };
}

function emptyRow(cls: string): ClassRow {
  return { cls, cases: 0, inputs: 0, status2xx: 0, status4xx: 0, status5xx: 0, closed: 0, timeouts: 0 };
}

function tally(row: ClassRow, r: RawExchange, inputs: number): void {
  row.cases++;
  row.inputs += inputs;
  const answers = r.statuses.filter((s) => s !== 101);
  for (const s of answers) {
    // -1: bytes after an answer that do not start one (a HEAD answer has a content-length and no body); not a status.
    if (s >= 500) row.status5xx++;
    else if (s >= 400) row.status4xx++;
    else if (s >= 100) row.status2xx++;
  }
  if (r.end === 'closed') row.closed++;
  if (r.end === 'timeout') row.timeouts++;
}

/** Runs `jobs` with at most CONCURRENCY at once. */
async function pool(count: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

export async function fuzzVenue(seed: number, targets: { httpRequests: number; wsFrames: number }): Promise<VenueFuzzResult> {
  const started = Date.now();
  const internalErrors: string[] = [];
  const uncaught: string[] = [];
  const onUncaught = (e: unknown) => uncaught.push(String((e as Error)?.stack ?? e));
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  const venue = await startVenue({
    seed: 11,
    flowIntervalMs: NEVER_MS,
    tickIntervalMs: NEVER_MS,
    onInternalError: (e) => internalErrors.push(String((e as Error)?.stack ?? e)),
  });
  try {
    const { bases, own } = await prepare(venue);
    const accounts = knownAccounts(venue, own);
    const hashBefore = stateHash(venue, accounts);
    const prng = new Prng(seed);

    const httpRows = new Map(HTTP_CLASSES.map((c) => [c as string, emptyRow(c)]));
    const httpCases = Array.from({ length: targets.httpRequests }, (_, i) => httpCase(prng, i, bases));
    await pool(httpCases.length, async (i) => {
      const c = httpCases[i]!;
      tally(httpRows.get(c.cls)!, await exchange(venue.port, c.chunks, { timeoutMs: ANSWER_WAIT_MS }), 1);
    });

    const subs = validSubscribes(
      venue.engine.markets().map((m) => m.symbol),
      accounts.slice(0, 4),
    );
    const wsRows = new Map(WS_CLASSES.map((c) => [c as string, emptyRow(c)]));
    const wsCases: ReturnType<typeof wsCase>[] = [];
    for (let i = 0, frames = 0; frames < targets.wsFrames; i++) {
      const c = wsCase(prng, i, subs);
      frames += c.frames;
      wsCases.push(c);
    }
    await pool(wsCases.length, async (i) => {
      const c = wsCases[i]!;
      tally(wsRows.get(c.cls)!, await exchange(venue.port, c.chunks, { timeoutMs: ANSWER_WAIT_MS, keepOpen: true }), c.cls === 'handshake' ? 1 : c.frames);
    });

    const alive = await post(venue, '/account', { type: 'fullAccount', user: own[0] });
    const hashAfter = stateHash(venue, accounts);
    const http = [...httpRows.values()];
    const ws = [...wsRows.values()];
    return {
      seed,
      http,
      ws,
      httpRequests: http.reduce((n, r) => n + r.inputs, 0),
      wsFrames: ws.filter((r) => r.cls !== 'handshake').reduce((n, r) => n + r.inputs, 0),
      internalErrors,
      uncaught,
      hashBefore,
      hashAfter,
      selfCheck: venue.engine.selfCheck(),
      aliveAfter: alive.status === 200,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    await venue.close();
  }
}
