// A synthetic recording: the local venue's engine, market flow and stream publishing (src/venue-sim) run in virtual
// time, their book, trade and ticker messages translated to the vocabulary as the live client translates them.
// Invariants: the same options give the same events (all randomness comes from the seed; no wall clock is read);
// each event's receive time is the virtual time it was published at.

import { ManualClock } from '../../core/clock.js';
import { ConfigError } from '../../core/errors.js';
import { bookUpdateOf, tickerOf, tradeOf } from '../../protocol/vocabulary.js';
import type { Book, Ticker as WireTicker, Trade as WireTrade } from '../../protocol/v1/stream.js';
import { parseStreamMessage } from '../../protocol/v1/stream.js';
import { DEFAULT_MARKETS, Engine } from '../../venue-sim/engine/index.js';
import { MarketFlow } from '../../venue-sim/flow.js';
import { venueSchedule } from '../../venue-sim/server/schedule.js';
import { type StreamSink, VenueStreams } from '../../venue-sim/server/streams.js';
import { RECORDING_FORMAT_VERSION, type RecordedEvent, type RecordingHeader } from './events.js';
import { RecordingWriter } from './writer.js';

const NS_PER_MS = 1_000_000n;
/** Blocks a synthetic run lets wait for compression and writing before it pauses. */
const MAX_PENDING_BLOCKS = 4;
/** 2026-01-01T00:00:00Z: the virtual start when none is given (a recording must not depend on the day it was made). */
export const SYNTHETIC_START_MS = Date.UTC(2026, 0, 1);

export interface SyntheticOptions {
  /** Seed of the engine and the market flow. */
  readonly seed: number;
  /** Virtual time to cover, ms. */
  readonly durationMs: number;
  /** Virtual start, epoch ms. Default SYNTHETIC_START_MS. */
  readonly startTimeMs?: number;
  /** Markets to list and record (the local venue's defaults). Default all of them. */
  readonly symbols?: readonly string[];
  /** The market flow's density (default: the local venue's, about 90 events a second a market). */
  readonly flow?: SyntheticFlow;
}

/**
 * How busy the synthetic market is: a flow round (each liquidity provider requotes with probability 1/2, a taker may
 * trade) every `intervalMs`, `makers` providers a market quoting `levels` price levels a side.
 */
export interface SyntheticFlow {
  readonly intervalMs: number;
  readonly makers: number;
  readonly levels: number;
}

/** The local venue's flow: a round every 250 ms, 2 providers of 5 levels (about 90 events a second a market). */
export const DEFAULT_FLOW: SyntheticFlow = { intervalMs: 250, makers: 2, levels: 5 };
/**
 * A flow as dense as a busy perpetual market's book feed: a round every 25 ms, 4 providers of 10 levels (about 3 300
 * book level changes a second a market).
 */
export const DENSE_FLOW: SyntheticFlow = { intervalMs: 25, makers: 4, levels: 10 };

export interface SyntheticRecording {
  readonly header: RecordingHeader;
  /** The events in publishing order; each call runs the venue afresh. */
  events(): IterableIterator<RecordedEvent>;
}

/** A synthetic recording's header and events. Throws ConfigError for an unknown symbol or a bad duration or seed. */
export function syntheticRecording(opts: SyntheticOptions): SyntheticRecording {
  if (!(Number.isSafeInteger(opts.durationMs) && opts.durationMs > 0))
    throw new ConfigError('duration', `must be a positive number of ms, got ${opts.durationMs}`);
  if (!(Number.isInteger(opts.seed) && opts.seed >= 0 && opts.seed < 2 ** 32))
    throw new ConfigError('seed', `must be an integer from 0 to 2^32 - 1, got ${opts.seed}`);
  const symbols = opts.symbols ?? DEFAULT_MARKETS.map((m) => m.symbol);
  const markets = symbols.map((s) => {
    const m = DEFAULT_MARKETS.find((d) => d.symbol === s);
    if (!m) throw new ConfigError('symbols', `${s} is not a market of the local venue (${DEFAULT_MARKETS.map((d) => d.symbol).join(', ')})`);
    return m;
  });
  const startTimeMs = opts.startTimeMs ?? SYNTHETIC_START_MS;
  const flow = opts.flow ?? DEFAULT_FLOW;
  if (!(Number.isInteger(flow.intervalMs) && flow.intervalMs >= 1 && flow.intervalMs <= 60_000))
    throw new ConfigError('flow.intervalMs', `must be an integer from 1 to 60000 ms, got ${flow.intervalMs}`);
  for (const key of ['makers', 'levels'] as const)
    if (!(Number.isInteger(flow[key]) && flow[key] >= 1 && flow[key] <= 100))
      throw new ConfigError(`flow.${key}`, `must be an integer from 1 to 100, got ${flow[key]}`);
  const header: RecordingHeader = {
    formatVersion: RECORDING_FORMAT_VERSION,
    venue: 'synthetic',
    dialect: 'v1',
    network: 'testnet',
    markets: markets.map((m) => ({
      symbol: m.symbol,
      tickSizeUsd: m.tickSize,
      lotSizeBase: m.lotSize,
      minNotionalUsd: m.minNotionalUsd,
      maxLeverage: m.maxLeverage,
      makerFeeRate: m.makerFeeRate,
      takerFeeRate: m.takerFeeRate,
      fundingIntervalMs: Number(m.fundingIntervalNs / NS_PER_MS),
    })),
    startTimeMs,
    seed: opts.seed,
    ...(opts.flow !== undefined && { flow: { intervalMs: flow.intervalMs, makers: flow.makers, levels: flow.levels } }),
  };
  return {
    header,
    events: () =>
      run(
        markets.map((m) => m.symbol),
        opts.seed,
        startTimeMs,
        opts.durationMs,
        flow,
      ),
  };
}

/**
 * Writes the synthetic recording of `opts` to `path` (a new file). Throws ConfigError for bad options, RecordingError when
 * the file exists or cannot be written.
 */
export async function writeSyntheticRecording(path: string, opts: SyntheticOptions): Promise<{ readonly events: number; readonly bytes: number }> {
  const source = syntheticRecording(opts);
  const writer = RecordingWriter.create(path, source.header);
  for (const e of source.events()) {
    writer.append(e);
    if (writer.pendingBlocks > MAX_PENDING_BLOCKS) await writer.drained();
  }
  await writer.close();
  if (writer.error) throw writer.error;
  return { events: writer.events, bytes: writer.bytes };
}

function* run(symbols: readonly string[], seed: number, startTimeMs: number, durationMs: number, flow: SyntheticFlow): IterableIterator<RecordedEvent> {
  const startNs = BigInt(startTimeMs) * NS_PER_MS;
  const clock = new ManualClock(startNs);
  const engine = new Engine({ markets: symbols.map((s) => DEFAULT_MARKETS.find((m) => m.symbol === s)!), seed, clock });
  const streams = new VenueStreams(engine);
  const out: RecordedEvent[] = [];
  const take = (type: string, data: unknown) => {
    const recvNs = clock.nowNs();
    if (type === 'l2Delta') out.push({ kind: 'book', recvNs, book: bookUpdateOf((data as { book: Book }).book, recvNs) });
    else if (type === 'trades') for (const t of (data as { trades: WireTrade[] }).trades) out.push({ kind: 'trade', recvNs, trade: tradeOf(t) });
    else if (type === 'ticker') out.push({ kind: 'ticker', recvNs, ticker: tickerOf((data as { ticker: WireTicker }).ticker) });
  };
  // What a client holding the port's book$, trades$ and ticker$ of every market subscribes to.
  const keys = new Set(symbols.flatMap((s) => [`l2delta.${s}`, `trades.${s}`, `ticker.${s}`]));
  const sink: StreamSink = {
    hasSubscribers: (key) => keys.has(key),
    activeTopics: () => keys.values(),
    publish: (key, type, data) => {
      if (keys.has(key)) take(type, data);
    },
  };
  streams.attach(sink);
  const schedule = venueSchedule(engine, streams, new MarketFlow(engine, { seed, makers: flow.makers, levels: flow.levels }), {
    flowIntervalMs: flow.intervalMs,
  });
  schedule.publish();
  for (const key of keys) {
    for (const text of streams.initial(key)) {
      const m = parseStreamMessage(text);
      if ('data' in m) take(m.type, m.data);
    }
  }
  yield* drain(out);
  const { periodic } = schedule;
  const due = periodic.map((p) => p.everyMs);
  for (;;) {
    let i = 0;
    for (let j = 1; j < due.length; j++) if (due[j]! < due[i]!) i = j;
    const atMs = due[i]!;
    if (atMs > durationMs) return;
    clock.set(startNs + BigInt(atMs) * NS_PER_MS);
    periodic[i]!.run();
    due[i] = atMs + periodic[i]!.everyMs;
    yield* drain(out);
  }
}

function* drain(out: RecordedEvent[]): IterableIterator<RecordedEvent> {
  for (let i = 0; i < out.length; i++) yield out[i]!;
  out.length = 0;
}
