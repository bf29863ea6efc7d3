// Builds a StrategyContext from the market and account streams, plus the default logger and the metrics (in memory, or a backend such as the daemon's registry).
// Invariants: a context only reads the strategy's markets and account; metric series per name stay bounded.

import { filter, type Observable, type SchedulerLike } from 'rxjs';
import type { AccountState } from '../account/state.js';
import type { Fill } from '../core/account-data.js';
import type { Clock } from '../core/clock.js';
import { StrategyError } from '../core/errors.js';
import type { OrderEvent } from '../core/intent.js';
import type { MarketRules } from '../core/market-data.js';
import {
  MAX_LABEL_NAMES,
  MAX_SERIES_PER_METRIC,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type HistogramOptions,
  type MetricLabels,
  type MetricOptions,
  type StrategyContext,
  type StrategyLogger,
  type StrategyMarket,
  type StrategyMetrics,
  type StrategyReport,
} from './api.js';

/** Discards everything (until the daemon wires pino). */
export const silentStrategyLogger: StrategyLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A clock reading the scheduler's time (a TestScheduler's virtual frames are milliseconds). */
export function schedulerClock(scheduler: SchedulerLike): Clock {
  return { nowMs: () => scheduler.now(), nowNs: () => BigInt(Math.round(scheduler.now() * 1e6)) };
}

/** The account reads a context needs (AccountStreams has them). */
export interface AccountSource {
  state$(user: string): Observable<AccountState>;
  fills$(user: string): Observable<Fill>;
}

export interface StrategyContextOptions {
  /** The strategy instance's name. */
  name: string;
  /** Markets the strategy may read; empty or absent: any. */
  symbols?: readonly string[];
  /** MarketStreams, or a fake in tests. */
  market: StrategyMarket;
  /** AccountStreams, or a fake in tests. */
  account: AccountSource;
  /** The account (public key, base58) the strategy trades. */
  user: string;
  /** The strategy's own order events (StrategyHost.orders$(name)). */
  orders$: Observable<OrderEvent>;
  /** The venue's markets (Venue.markets()). */
  markets: Iterable<MarketRules>;
  clock: Clock;
  scheduler: SchedulerLike;
  log?: StrategyLogger;
  metrics?: StrategyMetrics;
  /** Receives each checked, frozen copy of what the strategy reports (StrategyHost.report); default: discarded. */
  report?: (fields: StrategyReport) => void;
}

/** A frozen copy of `fields`; throws StrategyError naming a value that is not a finite number, a string, a boolean or null. */
export function checkedReport(fields: StrategyReport): StrategyReport {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw new StrategyError('report: expected an object of figures');
  const copy: Record<string, number | string | boolean | null> = {};
  for (const [key, value] of Object.entries(fields)) {
    const ok = value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
    if (!ok) throw new StrategyError(`report.${key}: expected a finite number, a string, a boolean or null, got ${String(value)}`);
    copy[key] = value;
  }
  return Object.freeze(copy);
}

/** A frozen copy holding exactly the rules (what a plugin may read of a market). */
function rulesOf(m: MarketRules): MarketRules {
  return Object.freeze({
    symbol: m.symbol,
    tickSizeUsd: m.tickSizeUsd,
    lotSizeBase: m.lotSizeBase,
    minNotionalUsd: m.minNotionalUsd,
    maxLeverage: m.maxLeverage,
  });
}

/** The context of one strategy; its market and rule lookups throw StrategyError outside its markets. */
export function createStrategyContext(opts: StrategyContextOptions): StrategyContext {
  const symbols = Object.freeze([...(opts.symbols ?? [])]);
  const allowed = new Set(symbols);
  const check = (symbol: string): string => {
    if (allowed.size > 0 && !allowed.has(symbol))
      throw new StrategyError(`strategy ${opts.name}: market ${symbol} is not one of its markets (${symbols.join(', ')})`);
    return symbol;
  };
  const rules = new Map<string, MarketRules>();
  for (const m of opts.markets) rules.set(m.symbol, rulesOf(m));
  const market = opts.market;
  const fills$ = opts.account.fills$(opts.user);
  return Object.freeze({
    name: opts.name,
    symbols,
    market: Object.freeze({
      book$: (symbol: string) => market.book$(check(symbol)),
      trades$: (symbol: string) => market.trades$(check(symbol)),
      ticker$: (symbol: string) => market.ticker$(check(symbol)),
    }),
    account: Object.freeze({
      state$: opts.account.state$(opts.user),
      fills$: allowed.size > 0 ? fills$.pipe(filter((f) => allowed.has(f.symbol))) : fills$,
      orders$: opts.orders$,
    }),
    clock: opts.clock,
    scheduler: opts.scheduler,
    rules: (symbol: string) => {
      const r = rules.get(symbol);
      if (!r) throw new StrategyError(`strategy ${opts.name}: no market rules for ${symbol} (not listed by the venue)`);
      return r;
    },
    log: opts.log ?? silentStrategyLogger,
    metrics: opts.metrics ?? new MemoryMetrics(opts.log),
    report: (fields: StrategyReport) => {
      const checked = checkedReport(fields);
      opts.report?.(checked);
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Metrics: declarations checked here, series kept by a backend (in memory, or the daemon's registry)

const METRIC_NAME = /^[a-z_][a-z0-9_]*$/;

export type MetricKind = 'counter' | 'gauge' | 'histogram';

/** A metric as a strategy declared it (name and label names already checked). */
export interface MetricDeclaration {
  readonly name: string;
  readonly kind: MetricKind;
  readonly labelNames: readonly string[];
  readonly help: string | undefined;
  /** Histograms only. */
  readonly buckets: readonly number[] | undefined;
}

/** One label combination of a metric. */
export interface SeriesSink {
  add(value: number): void;
  set(value: number): void;
  observe(value: number): void;
}

/** Where the series of a strategy's metrics live. */
export interface MetricBackend {
  /**
   * Called once per declared name; the returned function once per new label combination (at most
   * MAX_SERIES_PER_METRIC). Throws StrategyError when the name cannot be used.
   */
  metric(decl: MetricDeclaration): (labels: MetricLabels) => SeriesSink;
}

class BoundedMetric {
  private readonly series = new Map<string, SeriesSink>();
  private warned = false;

  constructor(
    readonly decl: MetricDeclaration,
    private readonly make: (labels: MetricLabels) => SeriesSink,
    private readonly log: StrategyLogger,
  ) {}

  /** The series of `labels` (created on first use), or undefined when the metric already has too many. */
  at(labels: MetricLabels | undefined): SeriesSink | undefined {
    const { name, labelNames } = this.decl;
    // An unlabelled metric's one series, once made (counters sit on the intent path).
    const plain = labels === undefined && labelNames.length === 0 ? this.series.get('') : undefined;
    if (plain) return plain;
    const given = labels ? Object.keys(labels) : [];
    if (given.length !== labelNames.length || given.some((k) => !labelNames.includes(k))) {
      throw new StrategyError(`metric ${name}: labels must be exactly [${labelNames.join(', ')}], got [${given.join(', ')}]`);
    }
    const key = seriesKey(labelNames, labels ?? {});
    let s = this.series.get(key);
    if (!s) {
      if (this.series.size >= MAX_SERIES_PER_METRIC) {
        if (!this.warned) this.log.warn({ metric: name, limit: MAX_SERIES_PER_METRIC }, 'metric has too many label combinations; new ones are dropped');
        this.warned = true;
        return undefined;
      }
      this.series.set(key, (s = this.make({ ...labels })));
    }
    return s;
  }
}

function seriesKey(labelNames: readonly string[], labels: MetricLabels): string {
  return labelNames.map((k) => labels[k]).join('\u0000');
}

/**
 * StrategyMetrics over a backend. Throws StrategyError for a bad name, undeclared labels, a counter
 * decreased, or one name asked for as two kinds.
 */
export class BoundedMetrics implements StrategyMetrics {
  private readonly metrics = new Map<string, BoundedMetric>();

  constructor(
    private readonly backend: MetricBackend,
    private readonly log: StrategyLogger = silentStrategyLogger,
  ) {}

  counter(name: string, opts?: MetricOptions): CounterMetric {
    const m = this.metric(name, 'counter', opts);
    return {
      inc: (value = 1, labels) => {
        if (value < 0) throw new StrategyError(`counter ${name} cannot decrease (inc by ${value})`);
        m.at(labels)?.add(value);
      },
    };
  }

  gauge(name: string, opts?: MetricOptions): GaugeMetric {
    const m = this.metric(name, 'gauge', opts);
    return {
      set: (value, labels) => m.at(labels)?.set(value),
      inc: (value = 1, labels) => m.at(labels)?.add(value),
      dec: (value = 1, labels) => m.at(labels)?.add(-value),
    };
  }

  histogram(name: string, opts?: HistogramOptions): HistogramMetric {
    const m = this.metric(name, 'histogram', opts);
    return { observe: (value, labels) => m.at(labels)?.observe(value) };
  }

  private metric(name: string, kind: MetricKind, opts: HistogramOptions | undefined): BoundedMetric {
    if (!METRIC_NAME.test(name)) throw new StrategyError(`metric name must be snake_case, got ${JSON.stringify(name)}`);
    const labelNames = opts?.labelNames ?? [];
    if (labelNames.length > MAX_LABEL_NAMES) throw new StrategyError(`metric ${name}: at most ${MAX_LABEL_NAMES} label names`);
    for (const l of labelNames) if (!METRIC_NAME.test(l)) throw new StrategyError(`metric ${name}: label name must be snake_case, got ${JSON.stringify(l)}`);
    const existing = this.metrics.get(name);
    if (existing) {
      if (existing.decl.kind !== kind) throw new StrategyError(`metric ${name} is a ${existing.decl.kind}, not a ${kind}`);
      return existing;
    }
    const decl: MetricDeclaration = {
      name,
      kind,
      labelNames: [...labelNames],
      help: opts?.help,
      buckets: kind === 'histogram' && opts?.buckets ? [...opts.buckets] : undefined,
    };
    const m = new BoundedMetric(decl, this.backend.metric(decl), this.log);
    this.metrics.set(name, m);
    return m;
  }
}

/** One series' value: the current value (counter, gauge) or count and sum (histogram). */
export interface MetricSeries {
  readonly labels: MetricLabels;
  readonly value: number;
  readonly count: number;
}

class MemorySeries implements SeriesSink, MetricSeries {
  value = 0;
  count = 0;

  constructor(readonly labels: MetricLabels) {}

  add(value: number): void {
    this.value += value;
  }

  set(value: number): void {
    this.value = value;
  }

  observe(value: number): void {
    this.value += value;
    this.count++;
  }
}

/** The series of each metric, in memory. */
class MemoryBackend implements MetricBackend {
  readonly metrics = new Map<string, { readonly labelNames: readonly string[]; readonly series: Map<string, MemorySeries> }>();

  metric(decl: MetricDeclaration): (labels: MetricLabels) => SeriesSink {
    const series = new Map<string, MemorySeries>();
    this.metrics.set(decl.name, { labelNames: decl.labelNames, series });
    return (labels) => {
      const s = new MemorySeries(labels);
      series.set(seriesKey(decl.labelNames, labels), s);
      return s;
    };
  }
}

/** StrategyMetrics kept in memory (tests, backtests, and the default of a context). */
export class MemoryMetrics extends BoundedMetrics {
  private readonly store: MemoryBackend;

  constructor(log: StrategyLogger = silentStrategyLogger) {
    const store = new MemoryBackend();
    super(store, log);
    this.store = store;
  }

  /** The series of `name` (empty when unknown); a histogram's `value` is the sum of its observations. */
  read(name: string): MetricSeries[] {
    return [...(this.store.metrics.get(name)?.series.values() ?? [])].map((s) => ({ labels: s.labels, value: s.value, count: s.count }));
  }

  /** The value of one series of `name` (undefined when it has none). */
  value(name: string, labels: MetricLabels = {}): number | undefined {
    const m = this.store.metrics.get(name);
    return m?.series.get(seriesKey(m.labelNames, labels))?.value;
  }
}
