// The local venue's periodic work: engine ticks, fast and slow stream publishing and market-flow rounds, with their
// intervals; the server runs it on timers, a synthetic recording in virtual time. Invariant: every engine change is
// followed by publishing the events it made, before the next item runs.

import type { Engine, EngineEvent } from '../engine/index.js';
import type { MarketFlow } from '../flow.js';
import type { VenueStreams } from './streams.js';

/** One periodic item: run `run` every `everyMs` ms. */
export interface Periodic {
  readonly everyMs: number;
  readonly run: () => void;
}

export interface ScheduleOptions {
  /** Schedule interval (funding, triggers, liquidation), ms. Default 100. */
  tickIntervalMs?: number;
  /** Flow round interval, ms. Default 250. */
  flowIntervalMs?: number;
  /** Runs after each publish what the published events made due (contingent orders); its engine changes are published in turn. */
  afterEvents?: (events: readonly EngineEvent[]) => void;
}

/** Tickers and depth snapshots every 200 ms, summaries every 2 s: the real venue's cadence. */
const FAST_MS = 200;
const SLOW_MS = 2000;

export interface VenueSchedule {
  /** Publishes the events the engine made since the last call. */
  readonly publish: () => void;
  /** Runs one flow round and one engine tick now. */
  readonly step: () => void;
  /** Items due at one instant run in this order. */
  readonly periodic: readonly Periodic[];
}

export function venueSchedule(engine: Engine, streams: VenueStreams, flow: MarketFlow | undefined, opts: ScheduleOptions = {}): VenueSchedule {
  const afterEvents = opts.afterEvents;
  const publish = afterEvents
    ? () => {
        let events = engine.drainEvents();
        do {
          streams.publishEvents(events);
          afterEvents(events);
          events = engine.drainEvents();
        } while (events.length > 0);
      }
    : () => streams.publishEvents(engine.drainEvents());
  const tick = () => {
    engine.tick();
    publish();
  };
  const flowStep = () => {
    flow?.step();
    publish();
  };
  return {
    publish,
    step() {
      flowStep();
      tick();
    },
    periodic: [
      { everyMs: opts.tickIntervalMs ?? 100, run: tick },
      { everyMs: FAST_MS, run: () => streams.publishFast() },
      { everyMs: SLOW_MS, run: () => streams.publishSlow() },
      ...(flow ? [{ everyMs: opts.flowIntervalMs ?? 250, run: flowStep }] : []),
    ],
  };
}
