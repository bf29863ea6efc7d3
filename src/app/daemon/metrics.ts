// Connects the trading sessions to the Prometheus metrics: execution hooks on the hot path, stream counters by
// subscription, gauges refreshed from state just before each scrape, and the metrics strategies create (ctx.metrics).
// Invariant: label values come from config (account, symbol, strategy names) or a strategy's bounded label sets.

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Subscription } from 'rxjs';
import type { Clock } from '../../core/clock.js';
import { StrategyError } from '../../core/errors.js';
import type { CommitmentPool } from '../../protocol/commitment-pool.js';
import { Presigner } from '../../protocol/presigner.js';
import { tradingState } from '../../risk/index.js';
import type { MetricLabels, StrategyLogger, StrategyMetrics } from '../../strategy/api.js';
import { BoundedMetrics, type MetricBackend, type MetricDeclaration, type SeriesSink } from '../../strategy/context.js';
import type { PerpbotMetrics } from '../../telemetry/index.js';
import { allDeniedSeconds, type SessionEntry } from './control.js';

/** Prefix of every metric a strategy creates: `quote_sets_total` is exported as `perpbot_strategy_quote_sets_total`. */
const STRATEGY_METRIC_PREFIX = 'perpbot_strategy_';

/** Labels the daemon adds to every strategy metric (a strategy cannot declare them). */
const DAEMON_LABELS = ['account', 'strategy'] as const;

/** Adds `now - before` of a monotonically growing total to a counter. */
class Delta {
  private readonly seen = new Map<string, number>();

  add(key: string, total: number, inc: (n: number) => void): void {
    const n = total - (this.seen.get(key) ?? 0);
    if (n > 0) inc(n);
    this.seen.set(key, total);
  }
}

type PromMetric = Counter<string> | Gauge<string> | Histogram<string>;

/**
 * The registry side of strategy metrics, shared by every strategy of the daemon: one prom-client metric per
 * name (instances of one strategy module share it, told apart by `account` and `strategy`).
 */
export class RegistryMetricBackends {
  private readonly metrics = new Map<string, { readonly decl: MetricDeclaration; readonly metric: PromMetric }>();

  constructor(private readonly registry: Registry) {}

  /** StrategyMetrics of one strategy instance, exported with `account` and `strategy` labels. */
  forStrategy(account: string, strategy: string, log: StrategyLogger): StrategyMetrics {
    const backend: MetricBackend = { metric: (decl) => this.series(decl, { account, strategy }) };
    return new BoundedMetrics(backend, log);
  }

  private series(decl: MetricDeclaration, own: Record<(typeof DAEMON_LABELS)[number], string>): (labels: MetricLabels) => SeriesSink {
    const reserved = decl.labelNames.find((l) => (DAEMON_LABELS as readonly string[]).includes(l));
    if (reserved !== undefined) throw new StrategyError(`metric ${decl.name}: label ${reserved} is added by the daemon; choose another name`);
    const metric = this.promMetric(decl);
    const ignore = () => undefined;
    return (labels) => {
      const values = { ...labels, ...own };
      if (metric instanceof Histogram) {
        const h = metric.labels(values);
        return { add: ignore, set: ignore, observe: (v) => h.observe(v) };
      }
      if (metric instanceof Gauge) {
        const g = metric.labels(values);
        return { add: (v) => g.inc(v), set: (v) => g.set(v), observe: ignore };
      }
      const c = metric.labels(values);
      return { add: (v) => c.inc(v), set: ignore, observe: ignore };
    };
  }

  private promMetric(decl: MetricDeclaration): PromMetric {
    const name = STRATEGY_METRIC_PREFIX + decl.name;
    const known = this.metrics.get(name);
    if (known) {
      const same = known.decl.kind === decl.kind && known.decl.labelNames.join() === decl.labelNames.join();
      if (!same) {
        throw new StrategyError(
          `metric ${decl.name}: already a ${known.decl.kind} with labels [${known.decl.labelNames.join(', ')}] (another strategy declared it); declare it the same way or choose another name`,
        );
      }
      return known.metric;
    }
    if (this.registry.getSingleMetric(name)) throw new StrategyError(`metric ${decl.name}: ${name} is one of the daemon's own metrics; choose another name`);
    const config = {
      name,
      help: decl.help ?? `${decl.name} (strategy metric)`,
      labelNames: [...decl.labelNames, ...DAEMON_LABELS],
      registers: [this.registry],
    };
    const metric: PromMetric =
      decl.kind === 'counter'
        ? new Counter(config)
        : decl.kind === 'gauge'
          ? new Gauge(config)
          : new Histogram({ ...config, ...(decl.buckets && { buckets: [...decl.buckets] }) });
    this.metrics.set(name, { decl, metric });
    return metric;
  }
}

/**
 * Subscribes the stream counters and registers the scrape-time refresh of every gauge; `ready` answers the
 * daemon's readiness. Returns the function that detaches everything.
 */
export function wireMetrics(
  m: PerpbotMetrics,
  sessions: readonly SessionEntry[],
  clock: Clock,
  ready: () => boolean,
  commitments?: CommitmentPool,
): () => void {
  const subscriptions: Subscription[] = [];
  const lastDataMs = new Map<string, number>();
  const marks = new Map<string, number>();
  const seen = (topic: string) => lastDataMs.set(topic, clock.nowMs());
  const symbols = new Set(sessions.flatMap(({ session }) => session.symbols));
  for (const symbol of symbols) {
    const { session } = sessions.find((e) => e.session.symbols.includes(symbol))!;
    subscriptions.push(
      session.market.bookChanges$(symbol).subscribe(() => {
        m.bookUpdates.inc({ symbol });
        seen(`l2book:${symbol}`);
      }),
      session.market.ticker$(symbol).subscribe((t) => {
        marks.set(symbol, t.markPrice);
        seen(`ticker:${symbol}`);
      }),
    );
  }
  for (const { account, session } of sessions) {
    subscriptions.push(
      session.accounts.state$(session.account).subscribe(() => seen(`account:${account.name}`)),
      session.accounts.fills$(session.account).subscribe((f) => m.fills.inc({ account: account.name, symbol: f.symbol, side: f.side })),
    );
  }

  const reconnects = new Delta();
  const frames = new Delta();
  const signatures = new Delta();
  const failures = new Delta();
  let attached = true;
  m.up.set(1);
  m.onCollect(() => {
    if (!attached) return;
    const now = clock.nowMs();
    for (const [topic, at] of lastDataMs) m.streamDataAgeSeconds.set({ topic }, (now - at) / 1000);
    let stale = 0;
    for (const { account, session } of sessions) {
      const labels = { account: account.name };
      m.openOrders.set(labels, session.execution.openOrderCount());
      m.setTradingState(account.name, tradingState(session.risk).state);
      for (const [i, c] of session.venue.pool.connections.entries())
        reconnects.add(`${account.name}/${i}`, Math.max(0, c.stats.opens - 1), (n) => m.wsReconnects.inc(n));
      for (const [kind, n] of Object.entries(session.venue.pool.stats.invalidFrames))
        frames.add(`${account.name}/${kind}`, n, (d) => m.framesInvalid.inc({ kind }, d));
      frames.add(`${account.name}/refused`, session.venue.pool.stats.refusedTopics, (d) => m.topicsRefused.inc(d));
      frames.add(`${account.name}/429`, session.venue.http.stats.rateLimited, (d) => m.httpRateLimited.inc(d));
      frames.add(`${account.name}/httpInvalid`, session.venue.http.stats.invalidAnswers, (d) => m.httpAnswersInvalid.inc(d));
      stale += session.staleStreams().size;
      const state = session.accountState();
      for (const symbol of session.symbols) {
        const p = state?.positions.get(symbol);
        const at = { account: account.name, symbol };
        m.positionBase.set(at, p?.size ?? 0);
        m.positionNotionalUsd.set(at, (p?.size ?? 0) * (marks.get(symbol) ?? 0));
        m.pnlUsd.set({ ...at, kind: 'realized' }, p?.realizedPnlUsd ?? 0);
        m.pnlUsd.set({ ...at, kind: 'unrealized' }, p?.unrealizedPnlUsd ?? 0);
      }
      const equity = session.riskView.equityUsd();
      if (equity !== undefined) m.equityUsd.set(labels, equity);
      if (state?.margin) {
        m.marginUsedUsd.set(labels, state.margin.marginUsedUsd);
        m.marginAvailableUsd.set(labels, state.margin.availableBalanceUsd);
      }
      m.dailyPnlUsd.set(labels, session.riskView.pnlTodayUsd());
      m.dailyLossLimitUsd.set(labels, session.risk.config.dailyLossLimitUsd);
      for (const s of session.host.snapshot()) {
        const at = { account: account.name, strategy: s.name };
        m.strategyRunning.set(at, s.state === 'running' ? 1 : 0);
        m.strategyFailures.inc(at, 0);
        failures.add(s.name, s.failures, (n) => m.strategyFailures.inc(at, n));
        m.strategyAllDeniedSeconds.set(at, allDeniedSeconds(session, s, now) ?? 0);
      }
      if (session.signer instanceof Presigner) {
        signatures.add(`${account.name}/precomputed`, session.signer.precomputedCount, (n) => m.signatures.inc({ path: 'precomputed' }, n));
        signatures.add(`${account.name}/deterministic`, session.signer.deterministicCount, (n) => m.signatures.inc({ path: 'deterministic' }, n));
      }
    }
    if (commitments) m.signingCommitments.set(commitments.size);
    m.staleTopics.set(stale);
    m.ready.set(ready() ? 1 : 0);
  });
  return () => {
    attached = false;
    m.up.set(0);
    m.ready.set(0);
    for (const s of subscriptions) s.unsubscribe();
  };
}
