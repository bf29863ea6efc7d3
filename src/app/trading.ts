// A trading session, the composition of the framework over one venue (the port: live client, local venue, simulated
// exchange): market and account streams, strategy host, risk gate and execution for one account. Used by the daemon,
// the benchmarks and the tests.
// Invariants: intents reach the wire only through risk and execution; a market whose stream data is stale has its quotes
// pulled and nothing placed (StaleGuard, risk STREAM_STALE); stop() cancels and waits, within its deadlineMs in all.

import { distinctUntilChanged, filter, interval, map, type Subscription } from 'rxjs';
import { AccountStreams } from '../account/account.js';
import type { AccountState } from '../account/state.js';
import { ValidationError } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { MarketRules } from '../core/market-data.js';
import type { Dialect, Network } from '../core/types.js';
import { Execution, type ExecutionOptions, type StopReport } from '../execution/engine.js';
import type { ExecutionMetrics } from '../execution/metrics.js';
import { checkKeepWarmMs, keepWarm, type KeepWarm } from '../latency/keep-warm.js';
import type { BookView } from '../market/book.js';
import { MarketStreams } from '../market/market.js';
import { codecFor } from '../protocol/codecs.js';
import { CommitmentPool } from '../protocol/commitment-pool.js';
import type { Keypair } from '../protocol/keys.js';
import { NonceSource, NonceSources, type NonceStore } from '../protocol/nonce.js';
import type { MessageSigner } from '../protocol/presigner.js';
import { countingGate, createRiskGate, DenialCounter, riskConfig, type RiskConfigInput, type RiskEngine } from '../risk/index.js';
import { createStrategyContext, silentStrategyLogger } from '../strategy/context.js';
import { StrategyHost } from '../strategy/host.js';
import type { LoadedStrategy } from '../strategy/loader.js';
import type { StrategyLogger, StrategyMetrics } from '../strategy/api.js';
import type { Submitter, Venue } from '../venue/port.js';
import { closePositions } from './close-on-stop.js';
import { LiveRiskView } from './risk-view.js';
import { StaleGuard } from './stale-guard.js';

/** How long a closing order (closeOnStop) may take to be answered, ms. */
const CLOSE_ON_STOP_TIMEOUT_MS = 5000;
/** Longest wait for the venue to confirm the cancels of a strategy that stopped, ms (while the session stops: what is left of its deadline). */
const STRATEGY_CANCEL_WAIT_MS = 5000;

export interface TradingOptions<V extends Venue = Venue> {
  /** The venue to trade on; the session owns it from here (stop() closes it, and so does a failed start). */
  venue: V;
  /** How actions are signed for the venue: the wire dialect and the current dialect's network byte. */
  dialect: Dialect;
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
  execution?: Pick<ExecutionOptions, 'maxBatchItems' | 'flush' | 'reconcile' | 'resolveDelaysMs'>;
  /**
   * How execution signs its batches. `precomputed` (default): Ed25519 with commitments computed ahead of time on a
   * worker thread (random nonces; about 7 times the rate of node:crypto signing, bench `sign`). `deterministic`: RFC 8032
   * signatures from the node:crypto key. Both verify alike; one-off actions are always deterministic.
   */
  signing?: SigningMode;
  /**
   * Signs execution's batches instead of `key` (and `signing` is ignored): the backtest's signer, since the simulated
   * venue verifies nothing. Its public key must be the key's.
   */
  signer?: MessageSigner;
  /** With `precomputed`: the commitment pool to draw from (commitments are key-independent; the daemon shares one). Default: the session's own. */
  commitments?: CommitmentPool;
  metrics?: ExecutionMetrics;
  /** Default: the venue's logger. */
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
   * Keep-warm (src/latency): every this many ms the venue's and execution's Rehearsals run the hot path on their last
   * input, sending and changing nothing. Between bursts of market data the CPU caches otherwise lose that code and
   * data, and the first tick of the next burst is several times slower. 0 or absent: off (the daemon's default is 5).
   */
  keepWarmMs?: number;
  /** How often timed risk rules (loss, disconnection) are re-evaluated and held-back denial warnings logged, ms. Default 1000. */
  riskEvaluateMs?: number;
  /** Called once execution exists, before it starts (reconciles): subscribe here to see every order event. */
  beforeStart?: (parts: TradingParts<V>) => void;
}

export const SIGNING_MODES = ['precomputed', 'deterministic'] as const;
export type SigningMode = (typeof SIGNING_MODES)[number];

/** The parts of a session that exist before it starts. */
export type TradingParts<V extends Venue = Venue> = Pick<TradingSession<V>, 'execution' | 'accounts' | 'account' | 'venue'>;

export interface TradingSession<V extends Venue = Venue> {
  readonly account: string;
  /** What signs the execution's batches. */
  readonly signer: MessageSigner;
  readonly venue: V;
  readonly market: MarketStreams;
  readonly accounts: AccountStreams;
  readonly host: StrategyHost;
  readonly risk: RiskEngine;
  /** Risk decisions on each strategy's operations: denials by reason, since when all were denied. */
  readonly denials: DenialCounter;
  /** What risk reads: equity and today's PnL included. */
  readonly riskView: LiveRiskView;
  readonly execution: Execution;
  readonly markets: ReadonlyMap<string, MarketRules>;
  /** The markets the strategies declared. */
  readonly symbols: readonly string[];
  /** Latest account state, once the account stream delivered it. */
  accountState(): AccountState | undefined;
  /** Streams without fresh data now, with why (their markets' quotes are pulled; readiness is off). */
  staleStreams(): ReadonlyMap<string, string>;
  /**
   * Stops the strategies, cancels the bot's orders (unless told not to) and closes the connections; every wait for the
   * venue (the strategies' cancels, closeOnStop, the final cancels) ends within `deadlineMs` in all (default 5000).
   */
  stop(opts?: { cancelOrders?: boolean; deadlineMs?: number }): Promise<StopReport>;
}

/** A commitment pool whose worker failure is logged (signing then falls back to deterministic signatures). */
export function commitmentPool(logger: Logger): CommitmentPool {
  return new CommitmentPool({
    onError: (e) => logger.warn({ error: e instanceof Error ? e.message : String(e) }, 'signing commitments worker failed; signing deterministically'),
  });
}

/** What a session holds open: released by stop(), or at once when starting fails. */
class Held {
  readonly subscriptions: Subscription[] = [];
  guard: StaleGuard | undefined;
  view: LiveRiskView | undefined;
  ownCommitments: CommitmentPool | undefined;
  warm: KeepWarm | undefined;

  constructor(readonly venue: Venue) {}

  async release(): Promise<void> {
    this.warm?.stop();
    this.view?.close();
    this.guard?.close();
    for (const s of this.subscriptions) s.unsubscribe();
    this.venue.close();
    await this.ownCommitments?.close();
  }
}

/** Reconciles with the venue and starts the strategies; a failure on the way closes everything opened (the venue too) and rethrows. */
export async function startTrading<V extends Venue>(opts: TradingOptions<V>): Promise<TradingSession<V>> {
  const held = new Held(opts.venue);
  try {
    return await openSession(opts, held);
  } catch (e) {
    await held.release();
    throw e;
  }
}

async function openSession<V extends Venue>(opts: TradingOptions<V>, held: Held): Promise<TradingSession<V>> {
  const { venue } = opts;
  const { clock, scheduler } = venue;
  const logger = opts.logger ?? venue.logger ?? silentLogger;
  const keepWarmMs = opts.keepWarmMs ?? 0;
  if (keepWarmMs !== 0) checkKeepWarmMs(keepWarmMs);
  const { subscriptions } = held;
  const account = opts.account ?? opts.key.publicKey;
  const market = new MarketStreams({ source: venue.market, scheduler });
  const accounts = new AccountStreams({ source: venue.account, scheduler, logger });
  const markets = new Map((await venue.markets()).map((m) => [m.symbol, m]));
  const symbols = [...new Set(opts.strategies.flatMap((s) => s.symbols))];
  for (const s of symbols) if (!markets.has(s)) throw new ValidationError('strategies', `the venue lists no market ${s}`);

  let state: AccountState | undefined;
  subscriptions.push(accounts.state$(account).subscribe((s) => (state = s)));
  const books = new Map<string, BookView>();
  for (const s of symbols) subscriptions.push(market.bookChanges$(s).subscribe((b) => books.set(s, b)));

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
  const precomputed = opts.signer === undefined && opts.signing !== 'deterministic';
  const ownCommitments = (held.ownCommitments = precomputed && !opts.commitments ? commitmentPool(logger) : undefined);
  const commitments = precomputed ? (opts.commitments ?? ownCommitments) : undefined;
  await commitments?.whenFilled();
  const signer = opts.signer ?? (commitments ? opts.key.presigner(commitments) : opts.key);
  execution = new Execution({
    codec: codecFor(opts.dialect),
    key: signer,
    account,
    network: opts.network,
    nonces:
      opts.nonceStore instanceof NonceSources
        ? opts.nonceStore.of(opts.key.publicKey)
        : new NonceSource({ signer: opts.key.publicKey, clock, store: opts.nonceStore }),
    submitter: opts.wrapSubmitter ? opts.wrapSubmitter(venue.submitter) : venue.submitter,
    queries: venue.account,
    risk: countingGate(risk, denials),
    clock,
    orderUpdates$: accounts.orderUpdates$(account),
    resync$: accounts.snapshots$(account),
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
    const closing = {
      execution: exec,
      position: (sym: string) => state?.positions.get(sym)?.size ?? 0,
      book: (sym: string) => books.get(sym),
      rules: (sym: string) => markets.get(sym)!,
    };
    return { ...report, closeOnStop: await closePositions(name, s.symbols, close, closing, waitMs(CLOSE_ON_STOP_TIMEOUT_MS)) };
  };
  const host = new StrategyHost({ clock, onStopped: stopOrders, log: strategyLog(undefined) });
  const guard = new StaleGuard({
    health$: venue.health.health$,
    stale: venue.health.stale().values(),
    account,
    strategies: opts.strategies,
    submit: (strategy, intent, seq) => exec.submit(strategy, intent, seq),
    clock,
    logger,
  });
  held.guard = guard;
  subscriptions.push(host.intents$.subscribe((h) => guard.submit(h.strategy, h.intent, h.seq)));
  subscriptions.push(host.routeOrderEvents(exec.events$()));
  opts.beforeStart?.({ execution: exec, accounts, account, venue });
  await exec.start();
  subscriptions.push(venue.health.connected$.subscribe((up) => risk.onConnection(up, clock.nowMs())));
  // Entering HALTED (kill switch or a halting rule) pulls every resting order: a quote left resting could still fill.
  subscriptions.push(
    risk.state$
      .pipe(
        map((c) => (c.state === 'HALTED' ? c.reason : undefined)),
        distinctUntilChanged(),
        filter((reason) => reason !== undefined),
      )
      .subscribe((reason) => {
        const open = exec.openOrders().length;
        void exec.cancelAll(); // the cancels are on the wire before the log line is written
        logger.warn({ reason, open }, 'trading halted: cancelling every open order');
      }),
  );
  subscriptions.push(
    interval(opts.riskEvaluateMs ?? 1000, scheduler).subscribe(() => {
      const nowMs = clock.nowMs();
      risk.evaluate(nowMs);
      denials.flush(nowMs);
    }),
  );
  if (keepWarmMs > 0) held.warm = keepWarm([...(venue.rehearsal ? [venue.rehearsal] : []), exec], keepWarmMs);

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
      scheduler,
      log: strategyLog(s.name),
      report: (fields) => host.report(s.name, fields),
      ...(opts.strategyMetrics && { metrics: opts.strategyMetrics(s.name) }),
    });
    host.start({ name: s.name, definition: s.definition, params: s.params, context, symbols: s.symbols });
  }

  return {
    account,
    signer,
    venue,
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
    staleStreams: () => new Map([...venue.health.stale()].map(([name, h]) => [name, h.reason])),
    async stop(stopOpts = {}) {
      const deadlineMs = stopOpts.deadlineMs ?? 5000;
      stopEndMs = clock.nowMs() + deadlineMs;
      await host.stopAll('shutdown');
      const report = await exec.stop({ cancelOrders: stopOpts.cancelOrders ?? true, deadlineMs: waitMs(deadlineMs) });
      await held.release();
      return report;
    },
  };
}
