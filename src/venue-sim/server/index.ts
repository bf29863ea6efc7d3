// The local venue as a library call: engine + HTTP API + WebSocket streams + market flow + schedules,
// on one loopback port. Invariant: every engine change is followed, before the next I/O callback,
// by publishing its events, so streams see changes in the order the engine applied them.

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { systemClock, type Clock } from '../../core/clock.js';
import { currentAccountQuerySchema } from '../../protocol/current/account-query.js';
import { accountQuerySchema } from '../../protocol/v1/account.js';
import { MAX_BATCH_ITEMS } from '../../protocol/v1/actions.js';
import { Engine, type EngineOptions, type MarketConfig } from '../engine/index.js';
import { MarketFlow, type FlowOptions } from '../flow.js';
import type { Dialect, Network } from '../../core/types.js';
import { oracleKeySet } from './auth.js';
import { ContingentBook } from './contingent.js';
import { CurrentOrderApi, type BlockRecord } from './current-api.js';
import { API_PREFIX, createApi } from './http-api.js';
import { answerClientError, endWithError, HttpError, RateLimiter, sendError, type RateLimitOptions } from './http-util.js';
import { NonceGuard } from './nonce-guard.js';
import { venueSchedule } from './schedule.js';
import { VenueStreams } from './streams.js';
import { inlineVerifier, workerVerifier } from './verify-pool.js';
import { WsHub, type HubOptions } from './ws-hub.js';

export type { BlockRecord } from './current-api.js';

export interface VenueOptions {
  /** Bind address. Default 127.0.0.1. */
  host?: string;
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /** Fixes every random choice of the engine and the market flow. Default 1. */
  seed?: number;
  /** Markets to list (default BTC-USD, ETH-USD, SOL-USD). */
  markets?: readonly MarketConfig[];
  /** Further engine settings (fees, faucet, history limits, ...). */
  engine?: Omit<EngineOptions, 'markets' | 'seed' | 'clock'>;
  /**
   * Serve this state of a venue that was closed (a restart that keeps the venue's state: its engine, the nonces it
   * accepted, so nothing applied before the restart can be replayed after it, and the parked baskets and held on-fill
   * actions of the current generation); `markets` and `engine` are then not used.
   */
  resume?: Pick<Venue, 'engine' | 'nonces' | 'held'>;
  /** Synthetic participants: false disables them. Default on. */
  flow?: boolean | Omit<FlowOptions, 'seed'>;
  /** Flow round interval, ms. Default 250. */
  flowIntervalMs?: number;
  /** Schedule interval (funding, triggers, liquidation), ms. Default 100. */
  tickIntervalMs?: number;
  /** Public keys allowed to send the signed oracle action. Default none. */
  oracleKeys?: readonly string[];
  /** Per-address HTTP rate limit; off when absent. */
  rateLimit?: RateLimitOptions;
  /** Largest request body, bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Items per order action. Default 100. */
  maxBatchItems?: number;
  /**
   * Account queries run one per event-loop turn so a burst of costly ones cannot stall other clients;
   * this many may wait for their turn, more get 429. Default 64.
   */
  maxWaitingQueries?: number;
  /** WebSocket keepalive and limits. */
  ws?: HubOptions;
  /** Verify signatures on a worker thread (default), or on the main thread. */
  verifyOnWorker?: boolean;
  clock?: Clock;
  /**
   * Wire dialect of the unsigned surfaces (POST /account rows, the account stream); POST /order takes either
   * generation's envelope whatever this is. Default v1.
   */
  dialect?: Dialect;
  /** Network whose domain byte current-generation signatures must carry. Default testnet. */
  network?: Network;
  /** Current-generation transactions arriving within this many ms run as one block (§14); 0 = one event-loop turn. Default 0. */
  blockMs?: number;
  /** Called after each current-generation block (its seed, transactions and execution order). */
  onBlock?: (block: BlockRecord) => void;
  /** Called with exceptions that are the venue's own bugs. Default: print to stderr. */
  onInternalError?: (e: unknown) => void;
}

export interface Venue {
  /** Base URL ending in /api/v1. */
  readonly url: string;
  /** WebSocket URL. */
  readonly wsUrl: string;
  readonly port: number;
  readonly engine: Engine;
  /** The nonces each signer had accepted (gaps-decided §3). */
  readonly nonces: NonceGuard;
  /** Parked trigger baskets and held on-fill actions (current generation). */
  readonly held: ContingentBook;
  readonly hub: WsHub;
  readonly flow: MarketFlow | undefined;
  /** Dialect of the unsigned surfaces (VenueOptions.dialect). */
  readonly dialect: Dialect;
  /** Network of current-generation signatures (VenueOptions.network). */
  readonly network: Network;
  /** Runs one flow round and one schedule tick now (tests use it instead of waiting). */
  step(): void;
  close(): Promise<void>;
}

export async function startVenue(opts: VenueOptions = {}): Promise<Venue> {
  const oracleKeys = oracleKeySet(opts.oracleKeys ?? []);
  const clock = opts.clock ?? systemClock();
  const seed = opts.seed ?? 1;
  const engine = opts.resume?.engine ?? new Engine({ ...opts.engine, ...(opts.markets ? { markets: opts.markets } : {}), seed, clock });
  const dialect = opts.dialect ?? 'v1';
  const network = opts.network ?? 'testnet';
  const held = opts.resume?.held ?? new ContingentBook();
  const streams = new VenueStreams(engine, dialect, held);
  const onInternalError = opts.onInternalError ?? ((e: unknown) => process.stderr.write(`venue internal error: ${(e as Error)?.stack ?? String(e)}\n`));

  const verifier = opts.verifyOnWorker === false ? inlineVerifier() : workerVerifier((e) => onInternalError(e));
  const nonces = opts.resume?.nonces ?? new NonceGuard();
  const current = new CurrentOrderApi({
    engine,
    verifier,
    nonces,
    oracleKeys,
    network,
    clock,
    blockMs: opts.blockMs ?? 0,
    afterChange: () => schedule.publish(),
    onCancelRejected: (account, symbol, orderId, reason) => streams.publishCancelRejected(account, symbol, orderId, reason),
    held,
    onBasketUpdate: (basket, status) => streams.publishBasket(basket, status),
    ...(opts.onBlock ? { onBlock: opts.onBlock } : {}),
  });
  const api = createApi({
    engine,
    verifier,
    nonces,
    oracleKeys,
    current,
    accountQuery: dialect === 'current' ? currentAccountQuerySchema : accountQuerySchema,
    accountRows: (query) => streams.accountRows(query),
    marketData: streams,
    maxBodyBytes: opts.maxBodyBytes ?? 1024 * 1024,
    maxBatchItems: opts.maxBatchItems ?? MAX_BATCH_ITEMS,
    maxWaitingQueries: opts.maxWaitingQueries ?? 64,
    rateLimiter: opts.rateLimit ? new RateLimiter(opts.rateLimit) : undefined,
    clock,
    afterChange: () => schedule.publish(),
    onInternalError,
  });
  const server: Server = createServer({ keepAliveTimeout: 30_000 }, api);
  server.on('clientError', answerClientError);
  server.on('connect', (_req, socket: Duplex) => endWithError(socket, '405 Method Not Allowed', 'METHOD_NOT_ALLOWED', 'CONNECT is not supported'));
  server.on('checkExpectation', (_req, res: ServerResponse) =>
    sendError(res, new HttpError(417, 'BAD_REQUEST', 'unsupported Expect header (only 100-continue)', { connection: 'close' })),
  );
  // One inbound frame per connection per event-loop turn: frames sent back to back (each may ask for a
  // snapshot) cannot hold the loop; the socket stops being read while frames wait.
  const wss = new WebSocketServer({ server, path: '/ws', maxPayload: 1024 * 1024, allowSynchronousEvents: false });
  const hub = new WsHub(wss, streams, opts.ws, onInternalError);
  streams.attach(hub);

  const flowOpts = opts.flow === false ? undefined : { ...(opts.flow === true || opts.flow === undefined ? {} : opts.flow), seed };
  const flow = flowOpts ? new MarketFlow(engine, flowOpts) : undefined;
  const schedule = venueSchedule(engine, streams, flow, {
    afterEvents: (events) => current.settle(events),
    ...(opts.tickIntervalMs !== undefined && { tickIntervalMs: opts.tickIntervalMs }),
    ...(opts.flowIntervalMs !== undefined && { flowIntervalMs: opts.flowIntervalMs }),
  });
  schedule.publish();

  const guarded = (fn: () => void) => () => {
    try {
      fn();
    } catch (e) {
      onInternalError(e);
    }
  };
  const timers = schedule.periodic.map((p) => setInterval(guarded(p.run), p.everyMs));
  for (const t of timers) t.unref();

  const stop = async () => {
    for (const t of timers) clearInterval(t);
    current.close();
    hub.close();
    wss.close();
    await verifier.close();
  };
  // The WebSocket server re-emits the HTTP server's errors: a listen failure rejects startVenue, a later
  // error (an accept failing) is reported by the server's own listener below.
  wss.on('error', () => undefined);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
    });
  } catch (e) {
    await stop();
    throw e;
  }
  server.on('error', onInternalError);
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}${API_PREFIX}`,
    wsUrl: `ws://${host}:${port}/ws`,
    port,
    engine,
    nonces,
    held,
    hub,
    flow,
    dialect,
    network,
    step: schedule.step,
    async close() {
      server.closeAllConnections();
      await Promise.all([stop(), new Promise<void>((resolve) => server.close(() => resolve()))]);
    },
  };
}
