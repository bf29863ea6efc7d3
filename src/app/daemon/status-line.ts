// The daemon's compact periodic status line: per account position, PnL, open orders, fills, each strategy's state
// and risk denials, and the trading state. Invariant: reads state only; one line per account and call, numbers with fixed precision.

import type { Subscription } from 'rxjs';
import type { Clock } from '../../core/clock.js';
import { tradingState } from '../../risk/index.js';
import type { StrategyStatus } from '../../strategy/host.js';
import type { TradingSession } from '../trading.js';
import { allDeniedSeconds, reasonCounts, type SessionEntry } from './control.js';

function signed(n: number, digits: number): string {
  return `${n >= 0 ? '+' : ''}${n.toFixed(digits)}`;
}

export class StatusLine {
  private readonly fills = new Map<string, { total: number; printed: number }>();
  /** Denials by reason of each strategy at the last line. */
  private readonly denialsPrinted = new Map<string, Readonly<Record<string, number | undefined>>>();
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly sessions: readonly SessionEntry[],
    private readonly out: (line: string) => void,
    private readonly clock: Clock,
    /** Paper trading: each line says so. */
    private readonly paper = false,
    /** Why the journal cannot be written, once it cannot: each line says so. */
    private readonly journalFailure: () => string | undefined = () => undefined,
  ) {
    for (const { account, session } of sessions) {
      const count = { total: 0, printed: 0 };
      this.fills.set(account.name, count);
      this.subscriptions.push(session.accounts.fills$(session.account).subscribe(() => count.total++));
    }
  }

  /** Prints one line per account (nothing when no session runs). */
  print(): void {
    const failure = this.journalFailure();
    const journal = failure === undefined ? '' : ` | journal FAILED (${failure})`;
    for (const { account, session } of this.sessions) {
      const state = session.accountState();
      const positions = [...(state?.positions.values() ?? [])];
      const pos = positions.length === 0 ? 'flat' : positions.map((p) => `${p.symbol} ${signed(p.size, 4)}@${p.entryPrice.toFixed(2)}`).join(' ');
      const realized = state?.margin?.realizedPnlUsd ?? positions.reduce((s, p) => s + p.realizedPnlUsd, 0);
      const unrealized = state?.margin?.unrealizedPnlUsd ?? positions.reduce((s, p) => s + (p.unrealizedPnlUsd ?? 0), 0);
      const fills = this.fills.get(account.name)!;
      const line =
        `status ${account.name}${this.paper ? ' (paper)' : ''}: pos ${pos} | pnl ${signed(realized + unrealized, 2)} USD (realized ${signed(realized, 2)}, unrealized ${signed(unrealized, 2)})` +
        ` | orders ${session.execution.openOrderCount()} open | fills ${fills.total} (+${fills.total - fills.printed})` +
        session.host
          .snapshot()
          .map((s) => ` | ${this.strategy(session, s)}`)
          .join('') +
        ` | ${tradingState(session.risk).state}` +
        journal;
      fills.printed = fills.total;
      this.out(line);
    }
  }

  /** `mm running, every order denied for 12 s, denied +152 (LEVERAGE 152)` or `mm FAILED (reason)`. */
  private strategy(session: TradingSession, s: StrategyStatus): string {
    const parts = [s.state === 'failed' ? `${s.name} FAILED (${s.reason})` : `${s.name} ${s.state}`];
    const seconds = allDeniedSeconds(session, s, this.clock.nowMs());
    if (seconds !== undefined) parts.push(`every order denied for ${Math.floor(seconds)} s`);
    const byReason = session.denials.of(s.name).byReason;
    const before = this.denialsPrinted.get(s.name) ?? {};
    const delta: Record<string, number> = {};
    let total = 0;
    for (const [reason, n] of Object.entries(byReason)) {
      delta[reason] = n - (before[reason] ?? 0);
      total += delta[reason];
    }
    this.denialsPrinted.set(s.name, byReason);
    if (total > 0) parts.push(`denied +${total} (${reasonCounts(delta)})`);
    return parts.join(', ');
  }

  close(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }
}
