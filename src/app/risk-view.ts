// What the risk engine reads, assembled from live state: marks from tickers (book mid as a
// fallback), positions and margin from the account stream, open orders from execution, stale stream data from the
// session's StaleGuard; today's PnL from the first positive equity reading of the UTC day.
// Invariant: every getter is a cheap read of the latest value; nothing here does I/O.

import type { Subscription } from 'rxjs';
import type { AccountState } from '../account/state.js';
import type { Clock } from '../core/clock.js';
import type { MarketRules } from '../core/market-data.js';
import type { BookView } from '../market/book.js';
import type { RiskViewWithSymbols } from '../risk/index.js';

export interface RiskViewSources {
  symbols: readonly string[];
  markets: ReadonlyMap<string, MarketRules>;
  /** Mark prices by symbol (ticker markPrice) and books (mid as a fallback). */
  mark$: (symbol: string, onMark: (markPrice: number) => void) => Subscription;
  book: (symbol: string) => BookView | undefined;
  /** Latest account state, once known. */
  account: () => AccountState | undefined;
  openOrderSizes: (symbol: string) => { buy: number; sell: number };
  openOrderCount: () => number;
  /** Why the stream data of a market is stale now (the session's StaleGuard), or undefined while fresh. */
  staleData?: (symbol: string) => string | undefined;
  clock: Clock;
}

const DAY_MS = 86_400_000;

export class LiveRiskView implements RiskViewWithSymbols {
  private readonly marks = new Map<string, number>();
  private readonly subscriptions: Subscription[];
  private day = -1;
  private dayStartEquity: number | undefined;

  constructor(private readonly s: RiskViewSources) {
    this.subscriptions = s.symbols.map((sym) => s.mark$(sym, (px) => px > 0 && this.marks.set(sym, px)));
  }

  symbols(): readonly string[] {
    return this.s.symbols;
  }

  markPrice(symbol: string): number | undefined {
    const mark = this.marks.get(symbol);
    if (mark !== undefined) return mark;
    const book = this.s.book(symbol);
    const bid = book?.bestBid()?.price;
    const ask = book?.bestAsk()?.price;
    return bid !== undefined && ask !== undefined ? (bid + ask) / 2 : undefined;
  }

  position(symbol: string): number {
    return this.s.account()?.positions.get(symbol)?.size ?? 0;
  }

  openOrderSizes(symbol: string): { buy: number; sell: number } {
    return this.s.openOrderSizes(symbol);
  }

  openOrderCount(): number {
    return this.s.openOrderCount();
  }

  equityUsd(): number | undefined {
    const account = this.s.account();
    if (!account) return undefined;
    if (account.margin) return account.margin.totalBalanceUsd + account.margin.unrealizedPnlUsd;
    let equity = account.collateral.get('USDC') ?? 0;
    for (const p of account.positions.values()) {
      const mark = this.markPrice(p.symbol);
      if (mark !== undefined) equity += p.size * (mark - p.entryPrice);
    }
    return equity;
  }

  /**
   * Equity now minus the baseline: the first positive equity reading of the current UTC day (deposits count as PnL).
   * An equity of 0 or below is an account without funds (not yet credited, or emptied by a venue restart), not a PnL
   * reading: it reports 0 and drops the baseline, so the next positive reading (the new credit) starts it again.
   * Such an account opens nothing anyway (risk's LEVERAGE rule), and a loss risk already confirmed stays latched.
   */
  pnlTodayUsd(): number {
    const equity = this.equityUsd();
    if (equity === undefined) return 0;
    if (!(equity > 0)) {
      this.dayStartEquity = undefined;
      return 0;
    }
    const day = Math.floor(this.s.clock.nowMs() / DAY_MS);
    if (day !== this.day || this.dayStartEquity === undefined) {
      this.day = day;
      this.dayStartEquity = equity;
    }
    return equity - this.dayStartEquity;
  }

  staleData(symbol: string): string | undefined {
    return this.s.staleData?.(symbol);
  }

  market(symbol: string): { maxLeverage: number } | undefined {
    return this.s.markets.get(symbol);
  }

  close(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }
}
