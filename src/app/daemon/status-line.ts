// The daemon's compact periodic status line: per account position, PnL, open orders, fills and trading state.
// Invariant: reads state only; one line per account and call, numbers with fixed precision.

import type { Subscription } from 'rxjs';
import { tradingState } from '../../risk/index.js';
import type { SessionEntry } from './control.js';

function signed(n: number, digits: number): string {
  return `${n >= 0 ? '+' : ''}${n.toFixed(digits)}`;
}

export class StatusLine {
  private readonly fills = new Map<string, { total: number; printed: number }>();
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly sessions: readonly SessionEntry[],
    private readonly out: (line: string) => void,
  ) {
    for (const { account, session } of sessions) {
      const count = { total: 0, printed: 0 };
      this.fills.set(account.name, count);
      this.subscriptions.push(session.accounts.fills$(session.account).subscribe(() => count.total++));
    }
  }

  /** Prints one line per account (nothing when no session runs). */
  print(): void {
    for (const { account, session } of this.sessions) {
      const state = session.accountState();
      const positions = [...(state?.positions.values() ?? [])];
      const pos = positions.length === 0 ? 'flat' : positions.map((p) => `${p.symbol} ${signed(p.size, 4)}@${p.price.toFixed(2)}`).join(' ');
      const realized = state?.margin?.realizedPnl ?? positions.reduce((s, p) => s + p.realizedPnl, 0);
      const unrealized = state?.margin?.unrealizedPnl ?? positions.reduce((s, p) => s + (p.unrealizedPnl ?? 0), 0);
      const fills = this.fills.get(account.name)!;
      const line =
        `status ${account.name}: pos ${pos} | pnl ${signed(realized + unrealized, 2)} USD (realized ${signed(realized, 2)}, unrealized ${signed(unrealized, 2)})` +
        ` | orders ${session.execution.openOrderCount()} open | fills ${fills.total} (+${fills.total - fills.printed}) | ${tradingState(session.risk).state}`;
      fills.printed = fills.total;
      this.out(line);
    }
  }

  close(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }
}
