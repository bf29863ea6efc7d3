// The daemon's composition root: telemetry and control, local venue (optional), journal, accounts, one trading session
// per account (paper trading: over the paper venue). Invariants: every port is bound and the journal locked before
// anything is funded or started; nothing trades before unresolved batches are resolved; stop() leaves no order; in paper
// mode nothing signed is sent to the venue (no start-up action, no order).

import type { Logger as PinoLogger } from 'pino';
import type { Subscription } from 'rxjs';
import { HttpClient } from '../../client/http.js';
import { connectVenue, type LiveVenue } from '../../client/venue.js';
import { systemClock } from '../../core/clock.js';
import { ConfigError, ConfigErrors } from '../../core/errors.js';
import { Journal, startRetention } from '../../store/index.js';
import type { LoadedStrategy } from '../../strategy/loader.js';
import { onSignal } from '../../risk/index.js';
import { createMetrics, startControlServer, componentLogger, strategyLogger, type ControlServer } from '../../telemetry/index.js';
import { startVenue, type BlockRecord, type Venue } from '../../venue-sim/server/index.js';
import type { DaemonConfig } from '../config/index.js';
import { paperVenue, type PaperVenue } from '../paper-venue.js';
import { marketRuleFindings } from '../config/checks.js';
import type { CommitmentPool } from '../../protocol/commitment-pool.js';
import { NonceSources } from '../../protocol/nonce.js';
import { marketRulesOf } from '../../protocol/vocabulary.js';
import { dedicateCpu } from '../../latency/dedicated-cpu.js';
import { setEventLoopNice } from '../../latency/priority.js';
import { commitmentPool, startTrading } from '../trading.js';
import { blockLine, venueOptions } from '../venue-config.js';
import { loadAccounts, prepareAccounts, reportNonceLead, type DaemonAccount } from './accounts.js';
import { adoptOwnerOf } from './adopt.js';
import { control, readiness, statusOf, type LiveSession, type SessionEntry } from './control.js';
import { RegistryMetricBackends, wireMetrics } from './metrics.js';
import { startMarketRecording } from './market-recording.js';
import { journalingSubmitter, journalSizeGauge, recordSnapshots, recordTrading, snapshotAccount } from './recording.js';
import { resolveUnresolvedBatches } from './resolve.js';
import { JournalFault } from './journal-fault.js';
import { lockJournal } from './journal-lock.js';
import { StatusLine } from './status-line.js';
import { waitForVenue } from './venue-wait.js';
import { bound } from '../ports.js';

export interface DaemonOptions {
  config: DaemonConfig;
  /** The configured strategies, loaded and validated (checkDaemonConfig). */
  strategies: readonly LoadedStrategy[];
  logger: PinoLogger;
  /** Human output: the banner and the status lines. */
  out: (line: string) => void;
}

export interface StopSummary {
  /** Orders the venue still showed open after the cancel deadline, all sessions. */
  readonly leftOpen: number;
  readonly timedOut: boolean;
}

export interface Daemon {
  readonly venueUrl: string;
  readonly metricsUrl: string;
  readiness(): { ready: boolean; reasons: string[] };
  /** Readiness off, strategies stopped, orders cancelled (shutdown.cancelOrders), journal flushed, all closed. */
  stop(reason: string): Promise<StopSummary>;
}

/** Starts everything the config describes; on a start-up failure closes what it opened and rethrows. */
export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const { config, logger } = opts;
  const log = componentLogger(logger, 'daemon');
  const clock = systemClock();
  const closers: (() => Promise<void> | void)[] = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close();
  };
  const accounts = loadAccounts(config.accounts, (message) => log.warn({}, message));
  try {
    // Every port is bound before anything acts: a taken port funds no account and starts no strategy.
    const metrics = createMetrics();
    const sessions: SessionEntry[] = [];
    let ready = false;
    let venue: Venue | undefined;
    const fault = new JournalFault(metrics.registry, componentLogger(logger, 'journal'), sessions);
    const isReady = () => {
      const r = readiness(ready, sessions, { nowMs: clock.nowMs(), deniedNotReadyMs: config.telemetry.deniedNotReadyMs });
      return fault.reason === undefined ? r : { ready: false, reasons: [fault.reason, ...r.reasons] };
    };
    const server: ControlServer = await bound(
      'telemetry.port',
      config.telemetry.host,
      config.telemetry.port,
      startControlServer({
        host: config.telemetry.host,
        port: config.telemetry.port,
        token: config.telemetry.token,
        metrics,
        ready: isReady,
        status: () => ({
          ...(statusOf(sessions, venue ? 'local' : config.venue.mode, venue?.url ?? config.venue.url ?? '') as object),
          journal: fault.status(),
        }),
        ...control(sessions),
        logger: componentLogger(logger, 'control'),
      }),
      'PERPBOT_METRICS_PORT with config/default.yaml',
    );
    closers.push(() => server.close());
    if (config.venue.mode === 'local') {
      const venueLog = componentLogger(logger, 'venue');
      const options = {
        port: 0,
        ...venueOptions(config.venue.local),
        dialect: config.venue.dialect,
        network: config.venue.network,
        onBlock: (b: BlockRecord) => venueLog.debug(blockLine(b)),
        onInternalError: (e: unknown) => venueLog.error({ err: e }, 'local venue internal error'),
      };
      venue = await bound('venue.local.port', options.host ?? '127.0.0.1', options.port, startVenue(options));
      closers.push(() => venue!.close());
    }
    // One daemon per journal: a second one on the same data/ stops here, before it acts.
    closers.push(lockJournal(config.journal.path));
    const url = venue?.url ?? config.venue.url!;
    const wsUrl = venue?.wsUrl ?? config.venue.wsUrl!;
    const { dialect, network } = config.venue;
    // A remote venue may still be starting: waited for (bounded) before the journal is opened or anything acts.
    if (!venue) await waitForVenue(url, { dialect, clock, timeoutMs: config.venue.startTimeoutMs, log });

    const paper = config.venue.mode === 'paper';
    const journal = Journal.open(config.journal.path, { paper, onWriteError: fault.onWriteError, onRowsDropped: fault.onRowsDropped });
    closers.push(() => journal.close());
    const setupHttp = new HttpClient({ baseUrl: url, dialect, clock, rateLimitMaxWaitMs: config.http.rateLimitMaxWaitMs });
    closers.push(() => setupHttp.close());
    // An order size below the lot would trade nothing, silently: refused before any account is funded.
    const sizeProblems = marketRuleFindings(opts.strategies, new Map((await setupHttp.exchangeInfo()).map((m) => [m.symbol, marketRulesOf(m)]))).errors;
    if (sizeProblems.length > 0)
      throw new ConfigErrors(
        `the config against the markets of ${url}`,
        sizeProblems.map((i) => new ConfigError(i.field, i.message)),
      );
    const resolved = await resolveUnresolvedBatches(journal, setupHttp, componentLogger(logger, 'journal'));
    // One nonce source per signer for the whole process: start-up actions and trading draw from the same one.
    const nonces = new NonceSources({ clock, store: journal.nonces });
    if (paper) log.info({}, 'paper trading: the start-up actions are not sent (faucetUsd, agentOf; leverage goes to the simulated account)');
    else await prepareAccounts(accounts, { http: setupHttp, dialect, network, nonces, log });

    journalSizeGauge(journal, metrics.registry);
    const journalLog = componentLogger(logger, 'journal');
    closers.push(
      startRetention(journal, {
        ...config.journal.retention,
        clock,
        onPruned: (rows) => journalLog.debug({ rows }, 'journal pruned'),
        onError: (e) => fault.onWriteError('prune', e),
      }),
    );
    const strategyMetrics = new RegistryMetricBackends(metrics.registry);
    const commitments = config.execution.signing === 'precomputed' ? commitmentPool(componentLogger(logger, 'execution')) : undefined;
    if (commitments) closers.push(() => commitments.close());
    const recordings: Subscription[] = [];
    closers.push(() => {
      for (const r of recordings) r.unsubscribe();
    });
    closers.push(async () => {
      await Promise.all(sessions.map((s) => s.session.stop({ cancelOrders: config.shutdown.cancelOrders, deadlineMs: config.shutdown.deadlineMs })));
    });
    for (const account of accounts) {
      const mine = config.strategies.flatMap((c, i) => (c.account === account.name ? [opts.strategies[i]!] : []));
      if (mine.length === 0) continue;
      sessions.push({
        account,
        session: await startSession(opts, account, mine, { url, wsUrl, journal, fault, nonces, metrics, strategyMetrics, commitments, recordings }),
      });
    }
    fault.haltAll();
    if (config.record && sessions.length > 0) {
      const recording = startMarketRecording(
        config.record,
        sessions.map((s) => s.session),
        { registry: metrics.registry, log: componentLogger(logger, 'recording'), clock, venueUrl: url },
      );
      closers.push(() => recording.close());
    }
    reportNonceLead(accounts, nonces, { registry: metrics.registry, log });
    // An idle trading signer keeps nonces reserved: were the journal to fail, a halt's cancels can still be signed.
    const keepReserved = setInterval(() => {
      for (const { account } of sessions) {
        try {
          nonces.of(account.key.publicKey).keepReserved();
        } catch {
          // Reported by the journal (onWriteError): trading halts.
        }
      }
    }, NONCE_RESERVE_CHECK_MS);
    closers.push(() => clearInterval(keepReserved));
    for (const { session } of sessions)
      recordings.push(recordSnapshots(journal, session, { snapshotEveryMs: 60_000, log: componentLogger(logger, 'journal'), clock }));
    ready = true;
    const unwire = wireMetrics(metrics, sessions, clock, () => isReady().ready, commitments);
    const disposers = sessions.map(({ session }) => onSignal(session.risk, 'SIGUSR2'));

    const { eventLoopNice } = config.latency;
    if (eventLoopNice !== undefined) {
      // After the worker threads start: only the event loop (and threads it starts later) runs at this priority.
      let before: number;
      try {
        before = setEventLoopNice(eventLoopNice);
      } catch (e) {
        const why = `${(e as Error).message}; a value below the process's needs CAP_SYS_NICE (root, or docker run --cap-add SYS_NICE)`;
        throw new ConfigError('latency.eventLoopNice', why, undefined, { cause: e });
      }
      closers.push(() => {
        try {
          setEventLoopNice(before);
        } catch (e) {
          log.warn({ nice: before, error: (e as Error).message }, 'the event loop keeps its priority: the one it had is not allowed back');
        }
      });
      log.info({ nice: eventLoopNice, before }, 'event loop priority set');
    }
    if (config.latency.dedicatedCpu !== undefined) {
      // Last: every worker thread exists now, so all of them move off the CPU.
      const onSpinnerError = (e: Error) => log.warn({ error: e.message }, 'the dedicated CPU lost its spinner: it may go idle between ticks');
      const dedicated = await dedicateCpu(config.latency.dedicatedCpu, { onSpinnerError }).catch((e: Error) => {
        throw new ConfigError('latency.dedicatedCpu', e.message, undefined, { cause: e });
      });
      closers.push(() => dedicated.close());
      log.info({ cpu: dedicated.cpu }, 'event loop on a dedicated CPU');
    }
    const metricsUrl = `${server.url}/metrics`;
    const status = new StatusLine(sessions, opts.out, clock, paper, () => fault.message);
    const statusTimer = config.telemetry.statusIntervalMs > 0 ? setInterval(() => status.print(), config.telemetry.statusIntervalMs) : undefined;

    banner(opts.out, {
      venue: venue
        ? `local venue ${url} (WebSocket ${wsUrl})`
        : paper
          ? `PAPER TRADING on the market data of ${url} (WebSocket ${wsUrl}): orders go to the simulated exchange only`
          : `${url} (WebSocket ${wsUrl})`,
      dialect,
      network,
      accounts,
      sessions,
      metricsUrl,
      journal: config.journal.path,
    });
    log.info({ venueUrl: url, metricsUrl, sessions: sessions.length, resolvedBatches: resolved, keepWarmMs: config.latency.keepWarmMs }, 'daemon ready');

    let stopping: Promise<StopSummary> | undefined;
    return {
      venueUrl: url,
      metricsUrl,
      readiness: isReady,
      stop(reason) {
        stopping ??= (async () => {
          ready = false;
          log.info({ reason }, 'daemon stopping');
          if (statusTimer) clearInterval(statusTimer);
          for (const d of disposers) d();
          // Every session stops at once within the one deadline: the whole stop fits the process's exit timer.
          const endMs = clock.nowMs() + config.shutdown.deadlineMs;
          const reports = await Promise.all(
            sessions.map(async ({ account, session }) => {
              const report = await session.stop({ cancelOrders: config.shutdown.cancelOrders, deadlineMs: config.shutdown.deadlineMs });
              // The session's own client is closed now; the daemon's set-up client still runs.
              const snapshot = snapshotAccount(journal, session, clock, setupHttp);
              const waitMs = Math.max(FINAL_SNAPSHOT_MIN_MS, endMs - clock.nowMs());
              const outcome = await within(snapshot, waitMs).then(
                () => undefined,
                (e: Error) => e.message,
              );
              if (outcome !== undefined) log.warn({ account: account.name, error: outcome }, 'final journal snapshot failed');
              return report;
            }),
          );
          const leftOpen = reports.reduce((n, r) => n + r.open.length, 0);
          const timedOut = reports.some((r) => r.timedOut);
          status.print();
          status.close();
          for (const r of recordings) r.unsubscribe();
          unwire();
          sessions.length = 0;
          await closeAll();
          log.info({ leftOpen, timedOut }, 'daemon stopped');
          return { leftOpen, timedOut };
        })();
        return stopping;
      },
    };
  } catch (e) {
    await closeAll().catch((closeError: Error) => log.warn({ error: closeError.message }, 'cleanup after a failed start failed'));
    throw e;
  }
}

/** How often the daemon renews its signers' nonce reservations when less than half is left, ms. */
const NONCE_RESERVE_CHECK_MS = 1_000;

/** Least time the final journal snapshot of an account gets, even past the shutdown deadline, ms (CLOSE_MARGIN_MS covers it). */
const FINAL_SNAPSHOT_MIN_MS = 1_000;

/** Resolves when `p` does; rejects with its error, or when `ms` pass first. */
function within(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${ms} ms (shutdown.deadlineMs)`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

interface SessionDeps {
  url: string;
  wsUrl: string;
  journal: Journal;
  fault: JournalFault;
  nonces: NonceSources;
  metrics: ReturnType<typeof createMetrics>;
  strategyMetrics: RegistryMetricBackends;
  commitments: CommitmentPool | undefined;
  /** Where the session's order and fill recorder goes (started before the session, so start-up events are kept). */
  recordings: Subscription[];
}

async function startSession(opts: DaemonOptions, account: DaemonAccount, strategies: LoadedStrategy[], deps: SessionDeps): Promise<LiveSession> {
  const { config, logger } = opts;
  const clock = systemClock();
  const sessionLog = logger.child({ account: account.name });
  const { dialect, network } = config.venue;
  const paper = config.venue.mode === 'paper';
  const live = connectVenue({
    url: deps.url,
    wsUrl: deps.wsUrl,
    dialect,
    network,
    clock,
    logger: componentLogger(sessionLog, 'execution'),
    http: {
      rateLimit: { perSecond: config.http.ordersPerSecond, burst: config.http.ordersBurst },
      cancelRateLimit: { perSecond: config.http.cancelsPerSecond, burst: config.http.cancelsBurst },
      timeoutMs: config.http.timeoutMs,
      maxSockets: config.http.maxSockets,
      spareSockets: config.http.spareSockets,
      rateLimitMaxWaitMs: config.http.rateLimitMaxWaitMs,
    },
    staleAfterMs: config.venue.staleAfterMs,
  });
  const venue = paper ? await paperVenueOf(config, account, strategies, live) : live;
  return startTrading({
    venue,
    // The simulated exchange reads v1 actions (as in a backtest): paper orders are signed in v1 whatever the data's dialect.
    dialect: paper ? 'v1' : dialect,
    network,
    key: account.key,
    account: account.account,
    nonceStore: deps.nonces,
    strategies,
    risk: config.risk,
    execution: {
      maxBatchItems: config.execution.maxBatchItems,
      flush: config.execution.flushDelayMs === 0 ? 'microtask' : { delayMs: config.execution.flushDelayMs },
      reconcile: {
        unknownOrders: config.execution.unknownOrders,
        adoptOwner: adoptOwnerOf(deps.journal, account.account, strategies, componentLogger(sessionLog, 'execution')),
      },
    },
    signing: config.execution.signing,
    keepWarmMs: config.latency.keepWarmMs,
    commitments: deps.commitments,
    metrics: deps.metrics,
    logger: componentLogger(sessionLog, 'execution'),
    strategyLogger: (name) => (name === undefined ? componentLogger(sessionLog, 'strategy-host') : strategyLogger(sessionLog, name)),
    strategyMetrics: (name) => deps.strategyMetrics.forStrategy(account.name, name, strategyLogger(sessionLog, name)),
    denialLogIntervalMs: config.telemetry.denialLogIntervalMs,
    wrapSubmitter: (inner) => journalingSubmitter(deps.journal, account.account, clock, inner),
    beforeStart: (parts) =>
      deps.recordings.push(
        recordTrading(deps.journal, parts, {
          venue: paper ? `paper ${deps.url}` : deps.url,
          clock,
          log: componentLogger(sessionLog, 'journal'),
          onWriteError: deps.fault.onWriteError,
        }),
      ),
  });
}

/** The paper venue of one account over `live` (closed when this fails): its collateral, the backtest's models and market terms. */
async function paperVenueOf(config: DaemonConfig, account: DaemonAccount, strategies: readonly LoadedStrategy[], live: LiveVenue): Promise<PaperVenue> {
  const bt = config.backtest;
  try {
    return await paperVenue(live, {
      account: account.account,
      symbols: [...new Set(strategies.flatMap((s) => s.symbols))],
      collateralUsd: account.config.paper?.collateralUsd ?? bt.collateralUsd,
      leverage: account.config.leverage,
      models: { queue: bt.queue, entry: bt.latency.entry, response: bt.latency.response },
      defaults: { makerFeeRate: bt.makerFeeRate, takerFeeRate: bt.takerFeeRate, fundingIntervalMs: bt.fundingIntervalMs },
      seed: Number(systemClock().nowMs() % 2 ** 32),
    });
  } catch (e) {
    live.close();
    throw e;
  }
}

interface BannerFacts {
  venue: string;
  dialect: string;
  network: string;
  accounts: readonly DaemonAccount[];
  sessions: readonly SessionEntry[];
  metricsUrl: string;
  journal: string;
}

function banner(out: (line: string) => void, f: BannerFacts): void {
  out('perpbot daemon running');
  out(`  venue     ${f.venue}, dialect ${f.dialect}, network ${f.network}`);
  for (const a of f.accounts) out(`  account   ${a.name} ${a.account}${a.agentOf === undefined ? '' : ` (agent key ${a.key.publicKey} of ${a.agentOf})`}`);
  for (const { account, session } of f.sessions) {
    for (const s of session.host.snapshot()) out(`  strategy  ${s.name} on ${account.name} (${s.state})`);
  }
  out(`  metrics   ${f.metricsUrl}`);
  out(`  journal   ${f.journal}`);
  out('  stop with Ctrl-C (SIGINT) or SIGTERM: orders are cancelled first');
}
