// Pulls the quotes of a market whose stream data went stale (every market on a stale account topic) and holds its quote
// sets until fresh data flows again; then the strategy's latest quote set is submitted again. Places and replaces pass
// on: risk denies their places STREAM_STALE (staleReason), so the strategy gets a rejection event like any denial.
// Invariants: cancels always pass; nothing places in a blind market; the hot path (fresh markets) allocates nothing.

import type { Observable, Subscription } from 'rxjs';
import type { Logger } from '../core/logger.js';
import type { TopicHealth } from '../client/ws-pool.js';
import type { Clock } from '../core/clock.js';
import type { Intent } from '../core/intent.js';

export interface StaleGuardOptions {
  health$: Observable<TopicHealth>;
  /** Topics stale now (the pool's), seeding the guard. */
  staleTopics: ReadonlyMap<string, string>;
  /** The traded account: its topic going stale blinds every market. */
  account: string;
  strategies: readonly { readonly name: string; readonly symbols: readonly string[] }[];
  /** Where intents go (execution). */
  submit(strategy: string, intent: Intent): void;
  clock: Clock;
  logger: Logger;
}

type QuoteSet = Extract<Intent, { kind: 'quoteSet' }>;

export class StaleGuard {
  /** Per market: the stale topics that blind it (absent or empty: fresh). */
  private readonly blind = new Map<string, Set<string>>();
  private blindMarkets = 0;
  /** Per strategy and market: its latest quote set (submitted again when the market recovers). */
  private readonly latest = new Map<string, Map<string, QuoteSet>>();
  private readonly symbols: ReadonlySet<string>;
  private readonly subscription: Subscription;

  constructor(private readonly opts: StaleGuardOptions) {
    this.symbols = new Set(opts.strategies.flatMap((s) => s.symbols));
    for (const s of opts.strategies) this.latest.set(s.name, new Map());
    for (const topic of opts.staleTopics.keys()) for (const symbol of this.marketsOf(topic)) this.mark(symbol, topic, false);
    this.subscription = opts.health$.subscribe((h) => this.onHealth(h));
  }

  /**
   * Passes `intent` on, except a quote set for a blind market: it is held (the latest per strategy and market) and
   * submitted when the market recovers. A place or replace passes, and risk denies its place (see staleReason).
   */
  submit(strategy: string, intent: Intent): void {
    if (intent.kind === 'quoteSet') {
      this.latest.get(strategy)?.set(intent.symbol, intent);
      if (this.isBlind(intent.symbol)) return;
    }
    this.opts.submit(strategy, intent);
  }

  /** Why `symbol`'s data is stale now (its stale topics), or undefined while it is fresh (the risk view's staleData). */
  staleReason(symbol: string): string | undefined {
    return this.isBlind(symbol) ? `stale topics: ${[...this.blind.get(symbol)!].join(', ')}` : undefined;
  }

  close(): void {
    this.subscription.unsubscribe();
  }

  private isBlind(symbol: string): boolean {
    return this.blindMarkets > 0 && (this.blind.get(symbol)?.size ?? 0) > 0;
  }

  private onHealth(h: TopicHealth): void {
    for (const symbol of this.marketsOf(h.topic)) this.mark(symbol, h.topic, true, h);
  }

  /** The session's markets a topic's data stands for. */
  private marketsOf(topic: string): Iterable<string> {
    if (topic === `account.${this.opts.account}`) return this.symbols;
    const symbol = topic.slice(topic.indexOf('.') + 1);
    return topic.includes('.') && this.symbols.has(symbol) ? [symbol] : [];
  }

  private mark(symbol: string, topic: string, act: boolean, h?: TopicHealth): void {
    let topics = this.blind.get(symbol);
    if (!topics) this.blind.set(symbol, (topics = new Set()));
    const wasBlind = topics.size > 0;
    if (h?.fresh ?? false) topics.delete(topic);
    else topics.add(topic);
    const isBlind = topics.size > 0;
    if (wasBlind === isBlind) return;
    this.blindMarkets += isBlind ? 1 : -1;
    if (!act) return;
    if (isBlind) this.pull(symbol, topic, h!.reason);
    else this.recover(symbol);
  }

  private pull(symbol: string, topic: string, reason: string): void {
    this.opts.logger.warn({ symbol, topic, reason }, 'stale market data: pulling the quotes of the market until data flows again');
    const nowMs = this.opts.clock.nowMs();
    for (const s of this.opts.strategies) {
      if (s.symbols.includes(symbol)) this.opts.submit(s.name, { kind: 'cancelAll', symbols: [symbol], dataTimeMs: nowMs, dataVersion: 0 });
    }
  }

  /** Fresh data again: each strategy's latest quote set is submitted again, stamped now (it stands until the strategy sends another). */
  private recover(symbol: string): void {
    this.opts.logger.info({ symbol }, 'market data fresh again: quoting resumes');
    const nowMs = this.opts.clock.nowMs();
    for (const [strategy, sets] of this.latest) {
      const set = sets.get(symbol);
      if (set) this.opts.submit(strategy, { ...set, dataTimeMs: nowMs });
    }
  }
}
