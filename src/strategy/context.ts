// Builds a StrategyContext from the market and account streams, plus the default logger and an in-memory metrics store.
// Invariants: a context only reads the strategy's markets and account; metric series per name stay bounded.

import { filter, type Observable, type SchedulerLike } from 'rxjs';
import type { AccountState } from '../account/state.js';
import type { MarketInfo } from '../client/exchange-info.js';
import type { Clock } from '../core/clock.js';
import { StrategyError } from '../core/errors.js';
import type { OrderEvent } from '../core/intent.js';
import type { FillUpdate } from '../protocol/v1/stream.js';
import {
  MAX_LABEL_NAMES,
  MAX_SERIES_PER_METRIC,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type HistogramOptions,
  type MarketRules,
  type MetricLabels,
  type MetricOptions,
  type StrategyContext,
  type StrategyLogger,
  type StrategyMarket,
  type StrategyMetrics,
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
  fills$(user: string): Observable<FillUpdate>;
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
  /** The venue's markets (exchangeInfo). */
  markets: Iterable<MarketInfo>;
  clock: Clock;
  scheduler: SchedulerLike;
  log?: StrategyLogger;
  metrics?: StrategyMetrics;
}

function rulesOf(m: MarketInfo): MarketRules {
  return Object.freeze({ symbol: m.symbol, tickSize: m.tickSize, lotSize: m.lotSize, minNotional: m.minNotional ?? 0, maxLeverage: m.maxLeverage });
}

/** The context of one strategy; its market and rule lookups throw StrategyError outside its markets. */
export function createStrategyContext(opts: StrategyContextOptions): StrategyContext {
  const symbols = Object.freeze([...(opts.symbols ?? [])]);
  const allowed = new Set(symbols);
  const check = (symbol: string): string => {
    if (allowed.size > 0 && !allowed.has(symbol)) throw new StrategyError(`strategy ${opts.name}: market ${symbol} is not one of its markets (${symbols.join(', ')})`);
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
  });
}

// ---------------------------------------------------------------------------------------------
// In-memory metrics

const METRIC_NAME = /^[a-z_][a-z0-9_]*$/;

export type MetricKind = 'counter' | 'gauge' | 'histogram';

/** One series' value: the current value (counter, gauge) or count and sum (histogram). */
export interface MetricSeries {
  readonly labels: MetricLabels;
  readonly value: number;
  readonly count: number;
}

interface Series {
  labels: MetricLabels;
  value: number;
  count: number;
}

class MemoryMetric {
  readonly series = new Map<string, Series>();
  private warned = false;

  constructor(
    readonly name: string,
    readonly kind: MetricKind,
    readonly labelNames: readonly string[],
    private readonly log: StrategyLogger,
  ) {}

  /** The series of `labels` (created on first use), or undefined when the metric already has too many. */
  at(labels: MetricLabels | undefined): Series | undefined {
    // An unlabelled metric's one series, once made (counters sit on the intent path).
    const plain = labels === undefined && this.labelNames.length === 0 ? this.series.get('') : undefined;
    if (plain) return plain;
    const given = labels ? Object.keys(labels) : [];
    if (given.length !== this.labelNames.length || given.some((k) => !this.labelNames.includes(k))) {
      throw new StrategyError(`metric ${this.name}: labels must be exactly [${this.labelNames.join(', ')}], got [${given.join(', ')}]`);
    }
    const key = this.labelNames.map((k) => labels![k]).join('\u0000');
    let s = this.series.get(key);
    if (!s) {
      if (this.series.size >= MAX_SERIES_PER_METRIC) {
        if (!this.warned) this.log.warn({ metric: this.name, limit: MAX_SERIES_PER_METRIC }, 'metric has too many label combinations; new ones are dropped');
        this.warned = true;
        return undefined;
      }
      this.series.set(key, (s = { labels: { ...labels }, value: 0, count: 0 }));
    }
    return s;
  }
}

/**
 * StrategyMetrics kept in memory (tests, and the default until prom-client is wired). Throws
 * StrategyError for a bad name, undeclared labels, or one name asked for as two kinds.
 */
export class MemoryMetrics implements StrategyMetrics {
  private readonly metrics = new Map<string, MemoryMetric>();

  constructor(private readonly log: StrategyLogger = silentStrategyLogger) {}

  counter(name: string, opts?: MetricOptions): CounterMetric {
    const m = this.metric(name, 'counter', opts);
    return {
      inc: (value = 1, labels) => {
        if (value < 0) throw new StrategyError(`counter ${name} cannot decrease (inc by ${value})`);
        const s = m.at(labels);
        if (s) s.value += value;
      },
    };
  }

  gauge(name: string, opts?: MetricOptions): GaugeMetric {
    const m = this.metric(name, 'gauge', opts);
    const add = (value: number, labels: MetricLabels | undefined) => {
      const s = m.at(labels);
      if (s) s.value += value;
    };
    return {
      set: (value, labels) => {
        const s = m.at(labels);
        if (s) s.value = value;
      },
      inc: (value = 1, labels) => add(value, labels),
      dec: (value = 1, labels) => add(-value, labels),
    };
  }

  histogram(name: string, opts?: HistogramOptions): HistogramMetric {
    const m = this.metric(name, 'histogram', opts);
    return {
      observe: (value, labels) => {
        const s = m.at(labels);
        if (!s) return;
        s.value += value;
        s.count++;
      },
    };
  }

  /** The series of `name` (empty when unknown); a histogram's `value` is the sum of its observations. */
  read(name: string): MetricSeries[] {
    return [...(this.metrics.get(name)?.series.values() ?? [])].map((s) => ({ labels: s.labels, value: s.value, count: s.count }));
  }

  /** The value of one series of `name` (undefined when it has none). */
  value(name: string, labels: MetricLabels = {}): number | undefined {
    const m = this.metrics.get(name);
    if (!m) return undefined;
    return m.series.get(m.labelNames.map((k) => labels[k]).join('\u0000'))?.value;
  }

  private metric(name: string, kind: MetricKind, opts: MetricOptions | undefined): MemoryMetric {
    if (!METRIC_NAME.test(name)) throw new StrategyError(`metric name must be snake_case, got ${JSON.stringify(name)}`);
    const labelNames = opts?.labelNames ?? [];
    if (labelNames.length > MAX_LABEL_NAMES) throw new StrategyError(`metric ${name}: at most ${MAX_LABEL_NAMES} label names`);
    for (const l of labelNames) if (!METRIC_NAME.test(l)) throw new StrategyError(`metric ${name}: label name must be snake_case, got ${JSON.stringify(l)}`);
    const existing = this.metrics.get(name);
    if (existing) {
      if (existing.kind !== kind) throw new StrategyError(`metric ${name} is a ${existing.kind}, not a ${kind}`);
      return existing;
    }
    const m = new MemoryMetric(name, kind, [...labelNames], this.log);
    this.metrics.set(name, m);
    return m;
  }
}
