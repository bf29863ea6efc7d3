// What the daemon's control endpoints answer: readiness with reasons, the /status document, and kill/resume over
// every session's risk gate. Invariant: read-only views except kill/resume, which only move the trading state.

import type { LiveVenue } from '../../client/venue.js';
import { killSwitchHandlers, tradingState } from '../../risk/index.js';
import type { StrategyStatus } from '../../strategy/host.js';
import type { TradingSession } from '../trading.js';
import type { DaemonAccount } from './accounts.js';

/** A session of the daemon: over the live client (the local venue is reached through it too), or paper trading over it. */
export type LiveSession = TradingSession<LiveVenue>;

export interface SessionEntry {
  readonly account: DaemonAccount;
  readonly session: LiveSession;
}

/** What readiness compares with the denials: the time now and how long all-denied may last. */
export interface DenialReadiness {
  /** Epoch ms. */
  readonly nowMs: number;
  /** telemetry.deniedNotReadyMs; 0: denials never affect readiness. */
  readonly deniedNotReadyMs: number;
}

/** `LEVERAGE 152, ORDER_RATE 3`: counts by reason, largest first. */
export function reasonCounts(byReason: Readonly<Record<string, number | undefined>>): string {
  return Object.entries(byReason)
    .filter((e): e is [string, number] => (e[1] ?? 0) > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
}

/** Seconds every order of a running strategy has been denied, or undefined when one passed since (or none was denied). */
export function allDeniedSeconds(session: TradingSession, strategy: StrategyStatus, nowMs: number): number | undefined {
  const since = strategy.state === 'running' ? session.denials.of(strategy.name).allDeniedSinceMs : undefined;
  return since === undefined ? undefined : Math.max(0, nowMs - since) / 1000;
}

/**
 * Ready when running (not stopping), every stream connected and fresh (TradingSession.staleStreams), every execution
 * reconciled, no gate halted and
 * no running strategy had every order denied for `denials.deniedNotReadyMs` or longer.
 */
export function readiness(running: boolean, sessions: readonly SessionEntry[], denials: DenialReadiness): { ready: boolean; reasons: string[] } {
  const reasons: string[] = running ? [] : ['stopping'];
  for (const { account, session } of sessions) {
    const down = session.venue.pool.connections.filter((c) => c.state !== 'open').length;
    if (down > 0) reasons.push(`${account.name}: ${down} stream connection${down === 1 ? '' : 's'} not open`);
    if (session.execution.state !== 'running') reasons.push(`${account.name}: execution ${session.execution.state} (not reconciled)`);
    for (const [stream, why] of session.staleStreams()) reasons.push(`${account.name}: stale stream ${stream} (${why})`);
    const trading = tradingState(session.risk);
    if (trading.state === 'HALTED') reasons.push(`${account.name}: trading halted (${trading.reason})`);
    if (denials.deniedNotReadyMs === 0) continue;
    for (const s of session.host.snapshot()) {
      const seconds = allDeniedSeconds(session, s, denials.nowMs);
      if (seconds === undefined || seconds * 1000 < denials.deniedNotReadyMs) continue;
      reasons.push(
        `${account.name}: strategy ${s.name}: every order denied for ${Math.floor(seconds)} s (${reasonCounts(session.denials.of(s.name).byReason)})`,
      );
    }
  }
  return { ready: reasons.length === 0, reasons };
}

/** The /status document: the venue (mode `paper`: orders went to the simulated exchange); per account its trading state, strategies (state, failures, report, risk denials), open orders and positions. */
export function statusOf(sessions: readonly SessionEntry[], venueMode: 'local' | 'remote' | 'paper', venueUrl: string): unknown {
  return {
    venue: { mode: venueMode, url: venueUrl },
    accounts: sessions.map(({ account, session }) => {
      const state = session.accountState();
      return {
        name: account.name,
        account: account.account,
        signer: account.key.publicKey,
        trading: tradingState(session.risk),
        strategies: session.host.snapshot().map((s) => {
          const denials = session.denials.of(s.name);
          return {
            name: s.name,
            state: s.state,
            reason: s.reason ?? null,
            failures: s.failures,
            report: session.host.reportOf(s.name) ?? null,
            denials: { total: denials.total, byReason: denials.byReason, allDeniedSinceMs: denials.allDeniedSinceMs ?? null, lastDetail: denials.lastDetail },
          };
        }),
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
          entryPrice: p.entryPrice,
          realizedPnlUsd: p.realizedPnlUsd,
          unrealizedPnlUsd: p.unrealizedPnlUsd ?? null,
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
