// The simulated exchange's selectable models: queue position (how much of a level's decrease happened ahead of an own
// order) and latency (feed, order entry, response). Invariants: every random draw comes from the seeded PRNG passed in,
// so a replay is deterministic; latencies are never negative; a queue ahead never grows and never exceeds the level.

import { basename } from 'node:path';
import { ConfigError } from '../core/errors.js';
import type { Prng } from '../venue-sim/engine/ids.js';

/** Queue models: `riskAverse` (only trades at the level move an order forward), `power` and `log` (probabilistic). */
export type QueueModelConfig = { readonly model: 'riskAverse' } | { readonly model: 'power'; readonly power: number } | { readonly model: 'log' };

/**
 * What is left ahead of an own order after its level went from `prevSize` to `nextSize` (base units) while `tradedSize`
 * traded there (already taken off `ahead` when it printed, so it is not counted again).
 */
export type QueueModel = (ahead: number, prevSize: number, nextSize: number, tradedSize: number) => number;

/** hftbacktest's ProbQueueModel: a decrease of the rest of the level happened behind with f(back) / (f(back) + f(front)). */
function probabilistic(f: (x: number) => number): QueueModel {
  return (ahead, prevSize, nextSize, tradedSize) => {
    const change = prevSize - nextSize - tradedSize;
    if (change <= 0) return Math.min(ahead, nextSize);
    const front = ahead;
    const back = Math.max(0, prevSize - front);
    const fb = f(back);
    const ff = f(front);
    const behind = fb + ff > 0 ? fb / (fb + ff) : 1;
    const estimate = front - (1 - behind) * change + Math.min(back - behind * change, 0);
    return Math.max(0, Math.min(estimate, nextSize));
  };
}

export function queueModel(c: QueueModelConfig): QueueModel {
  switch (c.model) {
    case 'riskAverse':
      return (ahead, _prev, nextSize) => Math.min(ahead, nextSize);
    case 'power':
      return probabilistic((x) => x ** c.power);
    case 'log':
      return probabilistic((x) => Math.log1p(x));
  }
}

export function queueModelName(c: QueueModelConfig): string {
  return c.model === 'power' ? `power(${c.power})` : c.model;
}

/**
 * A latency, ms: `constant`, `uniform` in [minMs, maxMs], `normal` (meanMs, stdMs; truncated at 0) or `lognormal`
 * (medianMs, sigma). The feed latency may also be `recorded`: each event's receive time minus the venue's time.
 */
export type LatencyConfig =
  | { readonly model: 'constant'; readonly ms: number }
  | { readonly model: 'uniform'; readonly minMs: number; readonly maxMs: number }
  | { readonly model: 'normal'; readonly meanMs: number; readonly stdMs: number }
  | { readonly model: 'lognormal'; readonly medianMs: number; readonly sigma: number }
  | { readonly model: 'journal'; readonly path: string; readonly share: number };
export type FeedLatencyConfig = Exclude<LatencyConfig, { model: 'journal' }> | { readonly model: 'recorded' };

/** Round trips a live session journaled, by request time: request epoch ms and round trip ms (request to answer). */
export interface RoundTrips {
  readonly atMs: Float64Array;
  readonly rttMs: Float64Array;
}

/**
 * The round trip at `nowMs`, ms: linear between the two journaled requests around it (hftbacktest's IntpOrderLatency,
 * with the round trip in place of its exchange time), the first's or last's outside them.
 */
export function interpolatedRoundTripMs(r: RoundTrips, nowMs: number): number {
  const { atMs, rttMs } = r;
  const n = atMs.length;
  if (nowMs <= atMs[0]!) return rttMs[0]!;
  if (nowMs >= atMs[n - 1]!) return rttMs[n - 1]!;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (atMs[mid]! <= nowMs) lo = mid;
    else hi = mid;
  }
  const span = atMs[hi]! - atMs[lo]!;
  return span > 0 ? rttMs[lo]! + ((rttMs[hi]! - rttMs[lo]!) * (nowMs - atMs[lo]!)) / span : rttMs[hi]!;
}

/** Draws latencies in ns. */
export type Latency = () => number;

/** Uniform in [0, 1) from the PRNG (53 bits). */
export function uniform(rng: Prng): number {
  return (rng.nextU32() * 2 ** 21 + (rng.nextU32() >>> 11)) / 2 ** 53;
}

function gaussian(rng: Prng): number {
  const u = 1 - uniform(rng);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform(rng));
}

/** What the `journal` model reads: the replay's time, and the round trips of a journal file (throws for a bad file). */
export interface JournalLatencySource {
  nowMs(): number;
  roundTrips(path: string): RoundTrips;
}

/**
 * Throws ConfigError (naming `key`) on a negative or non-finite parameter, and for a `journal` model without a source or
 * whose journal holds no answered batch.
 */
export function latency(c: LatencyConfig, rng: Prng, key: string, journal?: JournalLatencySource): Latency {
  const check = (name: string, v: number) => {
    if (!(Number.isFinite(v) && v >= 0)) throw new ConfigError(`${key}.${name}`, `must be a finite number ≥ 0, got ${v}`);
    return v;
  };
  switch (c.model) {
    case 'constant': {
      const ns = Math.round(check('ms', c.ms) * 1e6);
      return () => ns;
    }
    case 'uniform': {
      const lo = check('minMs', c.minMs);
      const hi = check('maxMs', c.maxMs);
      if (hi < lo) throw new ConfigError(`${key}.maxMs`, `must be ≥ minMs (${lo}), got ${hi}`);
      return () => Math.round((lo + (hi - lo) * uniform(rng)) * 1e6);
    }
    case 'normal': {
      const mean = check('meanMs', c.meanMs);
      const std = check('stdMs', c.stdMs);
      return () => Math.round(Math.max(0, mean + std * gaussian(rng)) * 1e6);
    }
    case 'lognormal': {
      const median = check('medianMs', c.medianMs);
      const sigma = check('sigma', c.sigma);
      return () => Math.round(median * Math.exp(sigma * gaussian(rng)) * 1e6);
    }
    case 'journal': {
      const share = c.share;
      if (!(share >= 0 && share <= 1)) throw new ConfigError(`${key}.share`, `must be from 0 to 1, got ${share}`);
      if (journal === undefined) throw new ConfigError(`${key}.model`, 'journal latency needs the replay time (backtest only)');
      const trips = journal.roundTrips(c.path);
      if (trips.atMs.length === 0)
        throw new ConfigError(`${key}.path`, `${c.path} holds no answered live batch (a daemon of this version journals answer times)`);
      return () => Math.round(share * interpolatedRoundTripMs(trips, journal.nowMs()) * 1e6);
    }
  }
}

export function latencyName(c: FeedLatencyConfig | LatencyConfig): string {
  switch (c.model) {
    case 'recorded':
      return 'recorded';
    case 'constant':
      return `constant(${c.ms}ms)`;
    case 'uniform':
      return `uniform(${c.minMs}..${c.maxMs}ms)`;
    case 'normal':
      return `normal(${c.meanMs}ms, sd ${c.stdMs}ms)`;
    case 'lognormal':
      return `lognormal(median ${c.medianMs}ms, sigma ${c.sigma})`;
    case 'journal':
      return `journal(${basename(c.path)}, share ${c.share})`;
  }
}
