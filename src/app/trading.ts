// A trading session, the composition of the framework: venue client and streams, strategy host,
// risk gate and execution for one account. Used by the daemon, the benchmarks and the tests.
// Invariants: intents reach the wire only through risk and execution; a market whose stream data is stale has its quotes
// pulled and nothing placed (StaleGuard, risk STREAM_STALE); stop() cancels and waits, within its deadlineMs in all.

import { asyncScheduler, type Subscription } from 'rxjs';
import { AccountStreams } from '../account/account.js';
import type { AccountState } from '../account/state.js';
import type { MarketInfo } from '../client/exchange-info.js';
import { HttpClient, type HttpClientOptions } from '../client/http.js';
import { silentLogger, type Logger } from '../client/logger.js';
import { WsPool } from '../client/ws-pool.js';
import { systemClock, type Clock } from '../core/clock.js';
import { ValidationError } from '../core/errors.js';
import type { Intent } from '../core/intent.js';
import type { Dialect, Network } from '../core/types.js';
import { Execution, type ExecutionOptions, type StopReport } from '../execution/engine.js';
import { accountFeeds } from '../execution/feeds.js';
import type { ExecutionMetrics } from '../execution/metrics.js';
import { venueQueries, type Submitter } from '../execution/ports.js';
import type { BookView } from '../market/book.js';
import { MarketStreams } from '../market/market.js';
import { CommitmentPool } from '../protocol/commitment-pool.js';
import type { Keypair } from '../protocol/keys.js';
import { NonceSource, NonceSources, type NonceStore } from '../protocol/nonce.js';
import type { MessageSigner } from '../protocol/presigner.js';
import { countingGate, createRiskGate, DenialCounter, riskConfig, type RiskConfigInput, type RiskEngine } from '../risk/index.js';
import { createStrategyContext, silentStrategyLogger } from '../strategy/context.js';
import { StrategyHost } from '../strategy/host.js';
import type { LoadedStrategy } from '../strategy/loader.js';
import type { StrategyLogger, StrategyMetrics } from '../strategy/api.js';
import { closePositions } from './close-on-stop.js';
import { LiveRiskView } from './risk-view.js';
import { StaleGuard } from './stale-guard.js';

/** How long a closing order (closeOnStop) may take to be answered, ms. */
const CLOSE_ON_STOP_TIMEOUT_MS = 5000;
/** Longest wait for the venue to confirm the cancels of a strategy that stopped, ms (while the session stops: what is left of its deadline). */
const STRATEGY_CANCEL_WAIT_MS = 5000;

export interface TradingOptions {
  /** REST base URL ending in /api/v1. */
  url: string;
  wsUrl: string;
  dialect: Dialect;
  /** Network byte of the current dialect. */
  network: Network;
  /** The signer: the account's own key or one of its agents. */
  key: Keypair;
  /** The traded account (default: the key's public key). */
  account?: string;
  /**
   * Where the signer's nonces come from: the process's NonceSources (the daemon shares them with its start-up
   * actions: one source per signer), or a store over which the session makes its own source.
   */
  nonceStore: NonceStore | NonceSources;
  strategies: readonly LoadedStrategy[];
  risk?: RiskConfigInput;
  /** Client-side request budgets (HttpClient defaults: 20/s for orders and reads, 50/s for cancels). */
  http?: Pick<HttpClientOptions, 'rateLimit' | 'cancelRateLimit' | 'timeoutMs' | 'maxSockets' | 'spareSockets' | 'rateLimitMaxWaitMs'>;
  execution?: Pick<ExecutionOptions, 'maxBatchItems' | 'flush' | 'reconcile' | 'resolveDelaysMs'>;
  /**
   * How execution signs its batches. `precomputed` (default): Ed25519 with commitments computed ahead of time on a
   * worker thread (random nonces; about 7 times the rate of node:crypto signing, bench `sign`). `deterministic`: RFC 8032
   * signatures from the node:crypto key. Both verify alike; one-off actions are always deterministic.
   */
  signing?: SigningMode;
  /** With `precomputed`: the commitment pool to draw from (commitments are key-independent; the daemon shares one). Default: the session's own. */
  commitments?: CommitmentPool;
  metrics?: ExecutionMetrics;
  clock?: Clock;
  logger?: Logger;
  /** The logger of each strategy instance, and of the strategy host for `undefined` (default: silent). */
  strategyLogger?: (strategy: string | undefined) => StrategyLogger;
  /** The metrics of each strategy instance (ctx.metrics; default: kept in memory). */
  strategyMetrics?: (strategy: string) => StrategyMetrics;
  /** Least time between two warnings about risk denials of one strategy and reason, ms (DenialCounter). Default 30000. */
  denialLogIntervalMs?: number;
  /** Wraps the signed-action submitter (the daemon journals every batch before it is sent). */
  wrapSubmitter?: (inner: Submitter) => Submitter;
  /**
   * Keep-warm: every this many ms, a dry run of the hot path that sends and changes nothing (the last book frame of a
   * market decoded again, Execution.warm). Between bursts of market data the CPU caches otherwise lose that code and
   * data, and the first tick of the next burst is several times slower. 0 or absent: off (the daemon's default is 5).
   */
  keepWarmMs?: number;
  /**
   * Data-age bound of the streams, ms (WsConnectionOptions.silenceMs): a topic not heard from (data, or the pongs of its
   * connection) within it is stale; then the quotes of its market (every market for the account topic) are pulled and
   * held until data flows again. Default 3000.
   */
  staleAfterMs?: number;
  /** How often timed risk rules (loss, disconnection) are re-evaluated and held-back denial warnings logged, ms. Default 1000. */
  riskEvaluateMs?: number;
  /** Called once execution exists, before it starts (reconciles): subscribe here to see every order event. */
  beforeStart?: (parts: TradingParts) => void;
}

export const SIGNING_MODES = ['precomputed', 'deterministic'] as const;
export type SigningMode = (typeof SIGNING_MODES)[number];

/** The parts of a session that exist before it starts. */
export type TradingParts = Pick<TradingSession, 'execution' | 'accounts' | 'account' | 'http'>;

export interface TradingSession {
  readonly account: string;
  /** What signs the execution's batches. */
  readonly signer: MessageSigner;
  readonly http: HttpClient;
  readonly pool: WsPool;
  readonly market: MarketStreams;
  readonly accounts: AccountStreams;
  readonly host: StrategyHost;
  readonly risk: RiskEngine;
  /** Risk decisions on each strategy's operations: denials by reason, since when all were denied. */
  readonly denials: DenialCounter;
  /** What risk reads: equity and today's PnL included. */
  readonly riskView: LiveRiskView;
  readonly execution: Execution;
  readonly markets: ReadonlyMap<string, MarketInfo>;
  /** The markets the strategies declared. */
  readonly symbols: readonly string[];
  /** Latest account state, once the account stream delivered it. */
  accountState(): AccountState | undefined;
  /** Stream topics without fresh data now, with why (their markets' quotes are pulled; readiness is off). */
  staleTopics(): ReadonlyMap<string, string>;
  /**
   * Stops the strategies, cancels the bot's orders (unless told not to) and closes the connections; every wait for the
   * venue (the strategies' cancels, closeOnStop, the final cancels) ends within `deadlineMs` in all (default 5000).
   */
  stop(opts?: { cancelOrders?: boolean; deadlineMs?: number }): Promise<StopReport>;
}

/** When the frame behind each book version of a symbol arrived (ns), for tick-to-trade: the last 64 versions. */
class ArrivalLog {
  private readonly rings = new Map<string, { versions: number[]; times: bigint[]; next: number }>();

  record(symbol: string, version: number, ns: bigint): void {
    let ring = this.rings.get(symbol);
    if (!ring) this.rings.set(symbol, (ring = { versions: new Array(64).fill(-1), times: new Array(64).fill(0n), next: 0 }));
    ring.versions[ring.next] = version;
    ring.times[ring.next] = ns;
    ring.next = (ring.next + 1) & 63;
  }

  /** Arrival of the data an intent was computed from, when known. */
  of(intent: Intent): bigint | undefined {
    const symbol = intent.kind === 'place' || intent.kind === 'replace' ? intent.order.symbol : intent.kind === 'cancelAll' ? undefined : intent.symbol;
    const ring = symbol === undefined ? undefined : this.rings.get(symbol);
    if (!ring) return undefined;
    const i = ring.versions.indexOf(intent.dataVersion);
    return i < 0 ? undefined : ring.times[i];
  }
}

/** A commitment pool whose worker failure is logged (signing then falls back to deterministic signatures). */
export function commitmentPool(logger: Logger): CommitmentPool {
  return new CommitmentPool({ onError: (e) => logger.warn({ error: e instanceof Error ? e.message : String(e) }, 'signing commitments worker failed; signing deterministically') });
}

/** What a session holds open: released by stop(), or at once when starting fails. */
class Held {
  readonly subscriptions: Subscription[] = [];
  guard: StaleGuard | undefined;
  view: LiveRiskView | undefined;
  ownCommitments: CommitmentPool | undefined;
  evaluate: ReturnType<typeof setInterval> | undefined;
  warm: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly http: HttpClient,
    readonly pool: WsPool,
  ) {}

  async release(): Promise<void> {
    clearInterval(this.evaluate);
    clearInterval(this.warm);
    this.view?.close();
    this.guard?.close();
    for (const s of this.subscriptions) s.unsubscribe();
    this.pool.close();
    this.http.close();
    await this.ownCommitments?.close();
  }
}

/** Connects, reconciles and starts the strategies; a failure on the way closes everything opened and rethrows. */
export async function startTrading(opts: TradingOptions): Promise<TradingSession> {
  const clock = opts.clock ?? systemClock();
  const logger = opts.logger ?? silentLogger;
  const held = new Held(
    new HttpClient({ baseUrl: opts.url, dialect: opts.dialect, clock, ...opts.http }),
    new WsPool({ url: opts.wsUrl, dialect: opts.dialect, logger, clock, ...(opts.staleAfterMs !== undefined && { silenceMs: opts.staleAfterMs }) }),
  );
  try {
    return await openSession(opts, clock, logger, held);
  } catch (e) {
    await held.release();
    throw e;
  }
}

async function openSession(opts: TradingOptions, clock: Clock, logger: Logger, held: Held): Promise<TradingSession> {
  const keepWarmMs = opts.keepWarmMs ?? 0;
  if (keepWarmMs !== 0 && !(keepWarmMs >= 1 && Number.isFinite(keepWarmMs))) throw new RangeError(`keepWarmMs must be 0 (off) or a number >= 1, got ${keepWarmMs}`);
  const { http, pool, subscriptions } = held;
  const account = opts.account ?? opts.key.publicKey;
  const market = new MarketStreams({ source: pool, l2book: (symbol, nlevels) => http.l2book(symbol, nlevels) });
  const accounts = new AccountStreams({ source: pool, http, logger });
  const markets = new Map((await http.exchangeInfo()).map((m) => [m.symbol, m]));
  const symbols = [...new Set(opts.strategies.flatMap((s) => s.symbols))];
  for (const s of symbols) if (!markets.has(s)) throw new ValidationError('strategies', `the venue lists no market ${s}`);

  let state: AccountState | undefined;
  subscriptions.push(accounts.state$(account).subscribe((s) => (state = s)));
  const books = new Map<string, BookView>();
  const arrivals = new ArrivalLog();
  for (const s of symbols) {
    subscriptions.push(
      market.bookChanges$(s).subscribe((b) => {
        books.set(s, b);
        // The frame's arrival, before it was parsed and applied (a book rebuilt from an HTTP snapshot: now).
        arrivals.record(s, b.version, pool.frameArrivalNs ?? clock.nowNs());
      }),
    );
  }

  let execution: Execution | undefined;
  const view = (held.view = new LiveRiskView({
    symbols,
    markets,
    mark$: (s, onMark) => market.ticker$(s).subscribe((t) => onMark(t.markPrice)),
    book: (s) => books.get(s),
    account: () => state,
    openOrderSizes: (s) => execution?.openOrderSizes(s) ?? { buy: 0, sell: 0 },
    openOrderCount: () => execution?.openOrderCount() ?? 0,
    staleData: (s) => held.guard?.staleReason(s),
    clock,
  }));
  const risk = createRiskGate(riskConfig(opts.risk), view, clock);
  const denials = new DenialCounter({ log: logger, ...(opts.denialLogIntervalMs !== undefined && { logIntervalMs: opts.denialLogIntervalMs }) });
  const precomputed = opts.signing !== 'deterministic';
  const ownCommitments = (held.ownCommitments = precomputed && !opts.commitments ? commitmentPool(logger) : undefined);
  const commitments = precomputed ? (opts.commitments ?? ownCommitments) : undefined;
  await commitments?.whenFilled();
  const signer = commitments ? opts.key.presigner(commitments) : opts.key;
  execution = new Execution({
    dialect: opts.dialect,
    key: signer,
    account,
    network: opts.network,
    nonces: opts.nonceStore instanceof NonceSources ? opts.nonceStore.of(opts.key.publicKey) : new NonceSource({ signer: opts.key.publicKey, clock, store: opts.nonceStore }),
    submitter: opts.wrapSubmitter ? opts.wrapSubmitter(http) : http,
    queries: venueQueries(http),
    risk: countingGate(risk, denials),
    clock,
    ...accountFeeds(pool, accounts, account),
    ...opts.execution,
    ...(opts.metrics && { metrics: opts.metrics }),
    logger,
  });
  const exec = execution;
  const strategyLog = opts.strategyLogger ?? (() => silentStrategyLogger);
  /** While the session stops: the epoch ms by which stop() must be done; every wait of stopping ends by then. */
  let stopEndMs: number | undefined;
  const waitMs = (defaultMs: number) => (stopEndMs === undefined ? defaultMs : Math.min(defaultMs, Math.max(0, stopEndMs - clock.nowMs())));
  /** A stopped strategy's orders are cancelled, then, when it asked (closeOnStop), its markets' position is closed. */
  const stopOrders = async (name: string) => {
    const report = await exec.cancelStrategy(name, waitMs(STRATEGY_CANCEL_WAIT_MS));
    const s = opts.strategies.find((x) => x.name === name);
    const close = s?.definition.closeOnStop;
    if (!close) return report;
    const closing = { execution: exec, position: (sym: string) => state?.positions.get(sym)?.size ?? 0, book: (sym: string) => books.get(sym), rules: (sym: string) => markets.get(sym)! };
    return { ...report, closeOnStop: await closePositions(name, s.symbols, close, closing, waitMs(CLOSE_ON_STOP_TIMEOUT_MS)) };
  };
  const host = new StrategyHost({ clock, onStopped: stopOrders, log: strategyLog(undefined) });
  const guard = new StaleGuard({
    health$: pool.health$,
    staleTopics: pool.staleTopics(),
    account,
    strategies: opts.strategies,
    submit: (strategy, intent) => exec.submit(strategy, intent, { arrivalNs: arrivals.of(intent) }),
    clock,
    logger,
  });
  held.guard = guard;
  subscriptions.push(host.intents$.subscribe((h) => guard.submit(h.strategy, h.intent)));
  subscriptions.push(host.routeOrderEvents(exec.events$()));
  opts.beforeStart?.({ execution: exec, accounts, account, http });
  await exec.start();
  for (const conn of pool.connections) subscriptions.push(conn.state$.subscribe((s) => risk.onConnection(s === 'open', clock.nowMs())));
  const evaluate = (held.evaluate = setInterval(() => {
    const nowMs = clock.nowMs();
    risk.evaluate(nowMs);
    denials.flush(nowMs);
  }, opts.riskEvaluateMs ?? 1000));
  evaluate.unref();
  if (keepWarmMs > 0) {
    // One market per pass, in turn: the decoding code is the same for all of them.
    let next = 0;
    held.warm = setInterval(() => {
      if (symbols.length > 0) market.warm(symbols[next++ % symbols.length]!);
      exec.warm();
    }, keepWarmMs);
    held.warm.unref();
  }

  for (const s of opts.strategies) {
    const context = createStrategyContext({
      name: s.name,
      symbols: s.symbols,
      market,
      account: accounts,
      user: account,
      orders$: host.orders$(s.name),
      markets: markets.values(),
      clock,
      scheduler: asyncScheduler,
      log: strategyLog(s.name),
      ...(opts.strategyMetrics && { metrics: opts.strategyMetrics(s.name) }),
    });
    host.start({ name: s.name, definition: s.definition, params: s.params, context, symbols: s.symbols });
  }

  return {
    account,
    signer,
    http,
    pool,
    market,
    accounts,
    host,
    risk,
    denials,
    riskView: view,
    execution: exec,
    markets,
    symbols,
    accountState: () => state,
    staleTopics: () => pool.staleTopics(),
    async stop(stopOpts = {}) {
      clearInterval(evaluate);
      const deadlineMs = stopOpts.deadlineMs ?? 5000;
      stopEndMs = clock.nowMs() + deadlineMs;
      await host.stopAll('shutdown');
      const report = await exec.stop({ cancelOrders: stopOpts.cancelOrders ?? true, deadlineMs: waitMs(deadlineMs) });
      await held.release();
      return report;
    },
  };
}

