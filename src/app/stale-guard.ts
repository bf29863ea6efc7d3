// Pulls the quotes of a market whose stream data went stale (every market on a stale account topic) and holds its new
// orders until fresh data flows again; then the strategy's latest quote set is submitted again.
// Invariants: cancels always pass; nothing places in a blind market; the hot path (fresh markets) allocates nothing.

import type { Observable, Subscription } from 'rxjs';
import type { Logger } from '../client/logger.js';
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

  /** Markets without fresh data now. */
  get blindSymbols(): string[] {
    return [...this.blind].filter(([, topics]) => topics.size > 0).map(([symbol]) => symbol);
  }

  /** Passes `intent` on, unless it would place in a blind market (a quote set is then kept for the recovery). */
  submit(strategy: string, intent: Intent): void {
    let symbol: string | undefined;
    if (intent.kind === 'quoteSet') {
      symbol = intent.symbol;
      this.latest.get(strategy)?.set(symbol, intent);
    } else if (intent.kind === 'place' || intent.kind === 'replace') symbol = intent.order.symbol;
    if (symbol !== undefined && this.blindMarkets > 0 && (this.blind.get(symbol)?.size ?? 0) > 0) {
      if (intent.kind !== 'quoteSet') this.opts.logger.warn({ strategy, symbol, kind: intent.kind }, 'intent dropped: the market data is stale');
      return;
    }
    this.opts.submit(strategy, intent);
  }

  close(): void {
    this.subscription.unsubscribe();
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
