// Connects the trading sessions to the Prometheus metrics: execution hooks on the hot path, stream counters by
// subscription, and gauges refreshed from state just before each scrape. Invariant: label values come from config.

import type { Subscription } from 'rxjs';
import type { Clock } from '../../core/clock.js';
import type { CommitmentPool } from '../../protocol/commitment-pool.js';
import { Presigner } from '../../protocol/presigner.js';
import { tradingState } from '../../risk/index.js';
import type { TradingState } from '../../risk/types.js';
import type { PerpbotMetrics } from '../../telemetry/index.js';
import type { SessionEntry } from './control.js';

const SEVERITY: Record<TradingState, number> = { ACTIVE: 0, REDUCING: 1, HALTED: 2 };

/** Adds `now - before` of a monotonically growing total to a counter. */
class Delta {
  private readonly seen = new Map<string, number>();

  add(key: string, total: number, inc: (n: number) => void): void {
    const n = total - (this.seen.get(key) ?? 0);
    if (n > 0) inc(n);
    this.seen.set(key, total);
  }
}

/**
 * Subscribes the stream counters and registers the scrape-time refresh of every gauge; `ready` answers the
 * daemon's readiness. Returns the function that detaches everything.
 */
export function wireMetrics(m: PerpbotMetrics, sessions: readonly SessionEntry[], clock: Clock, ready: () => boolean, commitments?: CommitmentPool): () => void {
  const subscriptions: Subscription[] = [];
  const lastDataMs = new Map<string, number>();
  const marks = new Map<string, number>();
  const symbols = new Set<string>();
  const seen = (topic: string) => lastDataMs.set(topic, clock.nowMs());
  for (const { account, session } of sessions) {
    for (const symbol of session.symbols) {
      symbols.add(symbol);
      subscriptions.push(
        session.market.bookChanges$(symbol).subscribe(() => {
          m.bookUpdates.inc({ symbol });
          seen(`l2book:${symbol}`);
        }),
        session.market.ticker$(symbol).subscribe((t) => {
          marks.set(symbol, t.markPrice);
          seen(`ticker:${symbol}`);
        }),
      );
    }
    subscriptions.push(
      session.accounts.state$(session.account).subscribe(() => seen(`account:${account.name}`)),
      session.accounts.fills$(session.account).subscribe((f) => m.fills.inc({ symbol: f.symbol, side: f.isBuy ? 'buy' : 'sell' })),
    );
  }

  const reconnects = new Delta();
  const frames = new Delta();
  const signatures = new Delta();
  let attached = true;
  m.up.set(1);
  m.onCollect(() => {
    if (!attached) return;
    const now = clock.nowMs();
    for (const [topic, at] of lastDataMs) m.streamDataAgeSeconds.set({ topic }, (now - at) / 1000);
    let open = 0;
    let worst: TradingState = 'ACTIVE';
    const position = new Map<string, { size: number; realized: number; unrealized: number }>();
    for (const { account, session } of sessions) {
      open += session.execution.openOrderCount();
      const state = tradingState(session.risk).state;
      if (SEVERITY[state] > SEVERITY[worst]) worst = state;
      for (const [i, c] of session.pool.connections.entries()) reconnects.add(`${account.name}/${i}`, Math.max(0, c.stats.opens - 1), (n) => m.wsReconnects.inc(n));
      for (const [kind, n] of Object.entries(session.pool.stats.invalidFrames)) frames.add(`${account.name}/${kind}`, n, (d) => m.framesInvalid.inc({ kind }, d));
      for (const p of session.accountState()?.positions.values() ?? []) {
        const sum = position.get(p.symbol) ?? { size: 0, realized: 0, unrealized: 0 };
        position.set(p.symbol, { size: sum.size + p.size, realized: sum.realized + p.realizedPnl, unrealized: sum.unrealized + (p.unrealizedPnl ?? 0) });
      }
      for (const s of session.host.snapshot()) m.strategyRunning.set({ strategy: s.name }, s.state === 'running' ? 1 : 0);
      if (session.signer instanceof Presigner) {
        signatures.add(`${account.name}/precomputed`, session.signer.precomputedCount, (n) => m.signatures.inc({ path: 'precomputed' }, n));
        signatures.add(`${account.name}/deterministic`, session.signer.deterministicCount, (n) => m.signatures.inc({ path: 'deterministic' }, n));
      }
    }
    if (commitments) m.signingCommitments.set(commitments.size);
    for (const symbol of symbols) {
      const p = position.get(symbol) ?? { size: 0, realized: 0, unrealized: 0 };
      m.positionBase.set({ symbol }, p.size);
      m.positionNotionalUsd.set({ symbol }, p.size * (marks.get(symbol) ?? 0));
      m.pnlUsd.set({ symbol, kind: 'realized' }, p.realized);
      m.pnlUsd.set({ symbol, kind: 'unrealized' }, p.unrealized);
    }
    m.openOrders.set(open);
    m.setTradingState(worst);
    m.ready.set(ready() ? 1 : 0);
  });
  return () => {
    attached = false;
    m.up.set(0);
    m.ready.set(0);
    for (const s of subscriptions) s.unsubscribe();
  };
}

