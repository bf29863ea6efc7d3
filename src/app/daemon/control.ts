// What the daemon's control endpoints answer: readiness with reasons, the /status document, and kill/resume over
// every session's risk gate. Invariant: read-only views except kill/resume, which only move the trading state.

import { killSwitchHandlers, tradingState } from '../../risk/index.js';
import type { TradingSession } from '../trading.js';
import type { DaemonAccount } from './accounts.js';

export interface SessionEntry {
  readonly account: DaemonAccount;
  readonly session: TradingSession;
}

/** Ready when running (not stopping), every stream connected, every execution reconciled and no gate halted. */
export function readiness(running: boolean, sessions: readonly SessionEntry[]): { ready: boolean; reasons: string[] } {
  const reasons: string[] = running ? [] : ['stopping'];
  for (const { account, session } of sessions) {
    const down = session.pool.connections.filter((c) => c.state !== 'open').length;
    if (down > 0) reasons.push(`${account.name}: ${down} stream connection${down === 1 ? '' : 's'} not open`);
    if (session.execution.state !== 'running') reasons.push(`${account.name}: execution ${session.execution.state} (not reconciled)`);
    const trading = tradingState(session.risk);
    if (trading.state === 'HALTED') reasons.push(`${account.name}: trading halted (${trading.reason})`);
  }
  return { ready: reasons.length === 0, reasons };
}

/** The /status document: per account its trading state, strategies, open orders and positions. */
export function statusOf(sessions: readonly SessionEntry[], venueMode: 'local' | 'remote', venueUrl: string): unknown {
  return {
    venue: { mode: venueMode, url: venueUrl },
    accounts: sessions.map(({ account, session }) => {
      const state = session.accountState();
      return {
        name: account.name,
        account: account.account,
        signer: account.key.publicKey,
        trading: tradingState(session.risk),
        strategies: session.host.snapshot().map((s) => ({ name: s.name, state: s.state, reason: s.reason })),
        openOrders: session.execution.openOrders().map((o) => ({
          strategy: o.strategy,
          orderId: o.orderId ?? null,
          symbol: o.spec.symbol,
          side: o.spec.side,
          price: o.spec.price ?? null,
          size: o.spec.size,
          filledSize: o.filledSize,
          status: o.status,
        })),
        positions: [...(state?.positions.values() ?? [])].map((p) => ({
          symbol: p.symbol,
          size: p.size,
          entryPrice: p.price,
          realizedPnlUsd: p.realizedPnl,
          unrealizedPnlUsd: p.unrealizedPnl ?? null,
          liquidationPrice: p.liquidationPrice ?? null,
        })),
        margin: state?.margin ?? null,
      };
    }),
  };
}

/** POST /kill and /resume: applied to every session; answers each account's state after it. */
export function control(sessions: readonly SessionEntry[]): { kill(reason: string): unknown; resume(reason: string): unknown } {
  const each = (verb: 'kill' | 'resume', reason: string) => ({
    accounts: sessions.map(({ account, session }) => ({ name: account.name, ...killSwitchHandlers(session.risk)[verb](reason) })),
  });
  return { kill: (reason) => each('kill', reason), resume: (reason) => each('resume', reason) };
}
