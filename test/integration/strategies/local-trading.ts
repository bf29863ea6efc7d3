// A trading session running built-in strategies (loaded by name, as the daemon does) on the real local venue over
// loopback in either dialect, with what the tests read: every order event, the positions over time, the venue's own view of the account.
// Invariant: the venue and the session are closed by the caller's cleanups; the account is funded before trading.

import { expect } from 'vitest';
import type { TradingSession } from '../../../src/app/trading.js';
import type { LiveVenue } from '../../../src/client/venue.js';
import type { OrderEvent } from '../../../src/core/intent.js';
import type { Dialect } from '../../../src/core/types.js';
import { Keypair } from '../../../src/protocol/keys.js';
import type { RiskConfigInput } from '../../../src/risk/index.js';
import type { StrategyLogger } from '../../../src/strategy/api.js';
import { MemoryMetrics } from '../../../src/strategy/context.js';
import { loadStrategies } from '../../../src/strategy/loader.js';
import { startVenue, type Venue, type VenueOptions } from '../../../src/venue-sim/server/index.js';
import { localSession } from '../../support/local-session.js';

export interface LocalTrading {
  readonly venue: Venue;
  readonly key: Keypair;
  readonly session: TradingSession<LiveVenue>;
  /** Every order event of the session's strategies, in order. */
  readonly events: OrderEvent[];
  /** The largest |position| seen per symbol in the account state. */
  readonly maxAbsPosition: Map<string, number>;
  readonly metrics: MemoryMetrics;
  /** Log lines of the strategies. */
  readonly lines: Array<{ fields: object; message: string }>;
  /** The account's position in `symbol` as the venue holds it. */
  venuePosition(symbol: string): number;
  /** Stops the session (cancelling) and checks that the venue holds no order of the account. */
  stopLeavingNoOrders(): Promise<void>;
}

export async function tradeOnLocalVenue(
  closers: (() => unknown)[],
  /** `params` may be computed from the venue (e.g. from its mid once its market flow has started). */
  strategy: { module: string; params: Record<string, unknown> | ((venue: Venue) => Record<string, unknown>); name?: string },
  opts: { venue?: VenueOptions; risk?: RiskConfigInput; dialect?: Dialect } = {},
): Promise<LocalTrading> {
  const venue = await startVenue({ seed: 7, flowIntervalMs: 50, ...opts.venue, dialect: opts.dialect ?? 'v1' });
  closers.push(() => venue.close());
  for (let i = 0; i < 5; i++) venue.step();
  const key = Keypair.generate();
  venue.engine.faucet(key.publicKey, 100_000);
  const params = typeof strategy.params === 'function' ? strategy.params(venue) : strategy.params;
  const strategies = await loadStrategies([{ name: strategy.name ?? strategy.module, module: strategy.module, params }]);
  const events: OrderEvent[] = [];
  const lines: Array<{ fields: object; message: string }> = [];
  const record = (fields: object, message: string) => void lines.push({ fields, message });
  const log: StrategyLogger = { debug: record, info: record, warn: record, error: record };
  const metrics = new MemoryMetrics();
  const session = await localSession(venue, {
    key,
    strategies,
    strategyLogger: () => log,
    strategyMetrics: () => metrics,
    ...(opts.risk && { risk: opts.risk }),
    beforeStart: ({ execution }) => void execution.events$().subscribe((e) => events.push(e)),
  });
  let stopped = false;
  closers.push(() => (stopped ? undefined : session.stop()));
  const maxAbsPosition = new Map<string, number>();
  const sub = session.accounts.state$(session.account).subscribe((s) => {
    for (const p of s.positions.values()) maxAbsPosition.set(p.symbol, Math.max(maxAbsPosition.get(p.symbol) ?? 0, Math.abs(p.size)));
  });
  closers.push(() => sub.unsubscribe());
  return {
    venue,
    key,
    session,
    events,
    maxAbsPosition,
    metrics,
    lines,
    venuePosition: (symbol) => venue.engine.fullAccount(key.publicKey).positions.find((p) => p.coin === symbol)?.size ?? 0,
    async stopLeavingNoOrders() {
      stopped = true;
      const report = await session.stop({ deadlineMs: 5_000 });
      expect(report.timedOut).toBe(false);
      expect(venue.engine.openOrders(key.publicKey)).toEqual([]);
    },
  };
}

/** The venue's mid of `symbol`, USD (throws when a side is empty). */
export function venueMid(venue: Venue, symbol: string): number {
  const book = venue.engine.book(symbol, 1);
  const bid = book?.bids[0]?.px;
  const ask = book?.asks[0]?.px;
  if (bid === undefined || ask === undefined) throw new Error(`the local venue has no two-sided book in ${symbol}`);
  return (bid + ask) / 2;
}
