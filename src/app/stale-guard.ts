// Pulls the quotes of a market whose stream data went stale (every market on a stale account topic) and holds its quote
// sets until fresh data flows again; then the strategy's latest quote set is submitted again. Places and replaces pass
// on: risk denies their places STREAM_STALE (staleReason), so the strategy gets a rejection event like any denial.
// Invariants: cancels always pass; nothing places in a blind market; the hot path (fresh markets) allocates nothing.

import type { Observable, Subscription } from 'rxjs';
import type { Clock } from '../core/clock.js';
import type { Intent } from '../core/intent.js';
import type { Logger } from '../core/logger.js';
import type { StreamHealth } from '../venue/port.js';

export interface StaleGuardOptions {
  health$: Observable<StreamHealth>;
  /** Streams stale now (the venue's), seeding the guard. */
  stale: Iterable<StreamHealth>;
  /** The traded account: its stream going stale blinds every market. */
  account: string;
  strategies: readonly { readonly name: string; readonly symbols: readonly string[] }[];
  /** Where intents go (execution), with the strategy's intent number when a strategy emitted it. */
  submit(strategy: string, intent: Intent, seq?: number): void;
  clock: Clock;
  logger: Logger;
}

type QuoteSet = Extract<Intent, { kind: 'quoteSet' }>;

export class StaleGuard {
  /** Per market: the stale streams that blind it (absent or empty: fresh). */
  private readonly blind = new Map<string, Set<string>>();
  private blindMarkets = 0;
  /** Per strategy and market: its latest quote set (submitted again when the market recovers). */
  private readonly latest = new Map<string, Map<string, QuoteSet>>();
  private readonly symbols: ReadonlySet<string>;
  private readonly subscription: Subscription;

  constructor(private readonly opts: StaleGuardOptions) {
    this.symbols = new Set(opts.strategies.flatMap((s) => s.symbols));
    for (const s of opts.strategies) this.latest.set(s.name, new Map());
    for (const h of opts.stale) for (const symbol of this.marketsOf(h)) this.mark(symbol, h.stream, false);
    this.subscription = opts.health$.subscribe((h) => this.onHealth(h));
  }

  /**
   * Passes `intent` on, except a quote set for a blind market: it is held (the latest per strategy and market) and
   * submitted when the market recovers. A place or replace passes, and risk denies its place (see staleReason).
   */
  submit(strategy: string, intent: Intent, seq?: number): void {
    if (intent.kind === 'quoteSet') {
      this.latest.get(strategy)?.set(intent.symbol, intent);
      if (this.isBlind(intent.symbol)) return;
    }
    this.opts.submit(strategy, intent, seq);
  }

  /** Why `symbol`'s data is stale now (its stale topics), or undefined while it is fresh (the risk view's staleData). */
  staleReason(symbol: string): string | undefined {
    return this.isBlind(symbol) ? `stale streams: ${[...this.blind.get(symbol)!].join(', ')}` : undefined;
  }

  close(): void {
    this.subscription.unsubscribe();
  }

  private isBlind(symbol: string): boolean {
    return this.blindMarkets > 0 && (this.blind.get(symbol)?.size ?? 0) > 0;
  }

  private onHealth(h: StreamHealth): void {
    for (const symbol of this.marketsOf(h)) this.mark(symbol, h.stream, true, h);
  }

  /** The session's markets a stream's data stands for. */
  private marketsOf(h: StreamHealth): Iterable<string> {
    if ('account' in h.feeds) return h.feeds.account === this.opts.account ? this.symbols : [];
    return this.symbols.has(h.feeds.symbol) ? [h.feeds.symbol] : [];
  }

  private mark(symbol: string, stream: string, act: boolean, h?: StreamHealth): void {
    let streams = this.blind.get(symbol);
    if (!streams) this.blind.set(symbol, (streams = new Set()));
    const wasBlind = streams.size > 0;
    if (h?.fresh ?? false) streams.delete(stream);
    else streams.add(stream);
    const isBlind = streams.size > 0;
    if (wasBlind === isBlind) return;
    this.blindMarkets += isBlind ? 1 : -1;
    if (!act) return;
    if (isBlind) this.pull(symbol, stream, h!.reason);
    else this.recover(symbol);
  }

  private pull(symbol: string, stream: string, reason: string): void {
    this.opts.logger.warn({ symbol, stream, reason }, 'stale market data: pulling the quotes of the market until data flows again');
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
