// `perpbot record`: records a venue's market streams (book, trades, ticker) through the venue port to a recording file, or
// generates a synthetic recording from the local venue's market flow in virtual time.
// Invariants: the file is closed cleanly on --duration, Ctrl-C and SIGTERM; a killed recorder loses at most the last
// second (the writer closes a block every LIVE_FLUSH_INTERVAL_MS); an existing file is never overwritten.

import { connectVenue } from '../../client/venue.js';
import { systemClock } from '../../core/clock.js';
import { symbolSchema } from '../../core/types.js';
import { safeParse } from '../../core/schema.js';
import { RECORDING_FORMAT_VERSION, type RecordingHeader } from '../../backtest/recording/events.js';
import { recordMarketData } from '../../backtest/recording/recorder.js';
import { DENSE_FLOW, type SyntheticFlow, writeSyntheticRecording } from '../../backtest/recording/synthetic.js';
import { LIVE_FLUSH_INTERVAL_MS, RecordingWriter } from '../../backtest/recording/writer.js';
import { loadDaemonConfig } from '../config/index.js';
import { durationMs, parseCommand, required, UsageError } from '../args.js';
import { venueOf, type VenueTarget } from './connection.js';

export const recordHelp = `perpbot record --out FILE [--symbols SYM,...] [--duration D] [--config FILE | venue options]
perpbot record --synthetic --out FILE --duration D [--seed N] [--symbols SYM,...] [--start TIME] [--flow dense | MS,MAKERS,LEVELS]

Records a venue's market streams (book snapshots and deltas, trades, tickers with mark price and
funding rate), each with its local receive time in ns, to FILE (format: docs/recording.md), until
--duration has passed or Ctrl-C / SIGTERM; the file is closed cleanly either way, and a recorder
that is killed loses at most the last second. With --synthetic, runs the local venue's market flow
in virtual time instead (no network, no waiting): a seed and duration always give the same file.
  --out FILE       the recording to create (an existing file is never overwritten)
  --symbols LIST   comma-separated markets (default: every market the venue lists)
  --duration D     how long: 90s, 10m, 24h, 7d (default: until stopped; required with --synthetic)
  --config FILE    the venue of a daemon config (venue.mode remote: url, wsUrl, dialect, network)
  --url URL        REST base URL ending in /api/v1 (default $PERPBOT_URL, else http://127.0.0.1:8080/api/v1)
  --ws-url URL     WebSocket URL (default $PERPBOT_WS_URL, else ws://<host of --url>/ws)
  --dialect D      v1 or current (default v1)
  --network N      mainnet, testnet or devnet (default testnet)
  --seed N         synthetic: seed of the market flow (default 1)
  --start TIME     synthetic: virtual start, an ISO time (default 2026-01-01T00:00:00Z)
  --flow F         synthetic: how busy the market is: MS,MAKERS,LEVELS (a flow round every MS ms, MAKERS
                   liquidity providers a market quoting LEVELS levels a side; default 250,2,5: about 90 events
                   a second a market), or dense (25,4,10: about 3 300, a busy perpetual market's book feed)`;

const OPTIONS = {
  out: { type: 'string' },
  symbols: { type: 'string' },
  duration: { type: 'string' },
  config: { type: 'string' },
  url: { type: 'string' },
  'ws-url': { type: 'string' },
  dialect: { type: 'string' },
  network: { type: 'string' },
  synthetic: { type: 'boolean' },
  seed: { type: 'string' },
  start: { type: 'string' },
  flow: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function symbolsOf(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const symbols = text.split(',').map((s) => s.trim());
  for (const s of symbols) {
    const r = safeParse(symbolSchema, s);
    if (!r.ok) throw new UsageError(`--symbols: ${JSON.stringify(s)} is not a symbol (${r.error.message})`);
  }
  return [...new Set(symbols)];
}

function durationOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = durationMs(text);
  if (ms === undefined || ms <= 0) throw new UsageError(`--duration must be a positive duration (90s, 10m, 24h, 7d); got ${JSON.stringify(text)}`);
  return ms;
}

function flowOf(text: string | undefined): SyntheticFlow | undefined {
  if (text === undefined) return undefined;
  if (text === 'dense') return DENSE_FLOW;
  const parts = text.split(',').map(Number);
  if (parts.length !== 3 || !parts.every((n) => Number.isInteger(n) && n >= 1))
    throw new UsageError(`--flow must be dense or MS,MAKERS,LEVELS (three positive integers, e.g. 250,2,5); got ${JSON.stringify(text)}`);
  return { intervalMs: parts[0]!, makers: parts[1]!, levels: parts[2]! };
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

export async function record(argv: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseCommand(argv, OPTIONS);
  if (values.help) {
    out(recordHelp);
    return 0;
  }
  const file = required('out', values.out);
  const symbols = symbolsOf(values.symbols);
  const duration = durationOf(values.duration);
  if (values.synthetic) {
    for (const o of ['config', 'url', 'ws-url', 'dialect', 'network'] as const)
      if (values[o] !== undefined) throw new UsageError(`--${o} does not apply to --synthetic (it records no venue)`);
    if (duration === undefined) throw new UsageError('--synthetic needs --duration');
    return synthetic(file, { symbols, duration, seed: values.seed, start: values.start, flow: flowOf(values.flow) }, out);
  }
  for (const o of ['seed', 'start', 'flow'] as const) if (values[o] !== undefined) throw new UsageError(`--${o} applies only to --synthetic`);
  return live(file, targetOf(values), symbols, duration, out);
}

function targetOf(values: { config?: string; url?: string; 'ws-url'?: string; dialect?: string; network?: string }): VenueTarget {
  if (values.config === undefined) return venueOf(values);
  for (const o of ['url', 'ws-url', 'dialect', 'network'] as const)
    if (values[o] !== undefined) throw new UsageError(`--${o} and --config exclude each other (the config names the venue)`);
  const { venue } = loadDaemonConfig(values.config);
  if (venue.mode === 'local')
    throw new UsageError(
      `--config: venue.mode is local in ${values.config}; the embedded venue lives inside \`perpbot run\` (record it with the daemon's record: section, or point --url at a running venue)`,
    );
  return { url: venue.url!, wsUrl: venue.wsUrl!, dialect: venue.dialect, network: venue.network, json: false, keyFile: undefined };
}

async function synthetic(
  path: string,
  o: { symbols: string[] | undefined; duration: number; seed: string | undefined; start: string | undefined; flow: SyntheticFlow | undefined },
  out: (line: string) => void,
): Promise<number> {
  const seed = o.seed === undefined ? 1 : Number(o.seed);
  if (!(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32))
    throw new UsageError(`--seed must be an integer from 0 to 4294967295; got ${JSON.stringify(o.seed)}`);
  const startTimeMs = o.start === undefined ? undefined : Date.parse(o.start);
  if (startTimeMs !== undefined && !(Number.isFinite(startTimeMs) && startTimeMs >= 0 && /^\d{4}-\d{2}-\d{2}/.test(o.start!)))
    throw new UsageError(`--start must be an ISO time (2026-01-01T00:00:00Z); got ${JSON.stringify(o.start)}`);
  const started = performance.now();
  const { events, bytes } = await writeSyntheticRecording(path, {
    seed,
    durationMs: o.duration,
    ...(o.symbols && { symbols: o.symbols }),
    ...(startTimeMs !== undefined && { startTimeMs }),
    ...(o.flow && { flow: o.flow }),
  });
  const wallMs = performance.now() - started;
  out(
    `wrote ${events} events (${bytes} bytes, ${(bytes / Math.max(1, events)).toFixed(2)} bytes/event), ${seconds(o.duration)} s of synthetic market data (seed ${seed}), to ${path} in ${seconds(wallMs)} s`,
  );
  return 0;
}

async function live(
  path: string,
  target: VenueTarget,
  wanted: string[] | undefined,
  duration: number | undefined,
  out: (line: string) => void,
): Promise<number> {
  const clock = systemClock();
  const venue = connectVenue({ url: target.url, wsUrl: target.wsUrl, dialect: target.dialect, network: target.network, clock });
  try {
    const listed = await venue.markets();
    const bySymbol = new Map(listed.map((m) => [m.symbol, m]));
    const unknown = (wanted ?? []).filter((s) => !bySymbol.has(s));
    if (unknown.length > 0)
      throw new UsageError(`--symbols: ${target.url} lists no market ${unknown.join(', ')} (it lists ${[...bySymbol.keys()].join(', ')})`);
    const symbols = wanted ?? [...bySymbol.keys()];
    const header: RecordingHeader = {
      formatVersion: RECORDING_FORMAT_VERSION,
      venue: target.url,
      dialect: target.dialect,
      network: target.network,
      markets: symbols.map((s) => bySymbol.get(s)!),
      startTimeMs: clock.nowMs(),
    };
    let fail: (e: unknown) => void = () => undefined;
    const failed = new Promise<never>((_, reject) => {
      fail = reject;
    });
    const writer = RecordingWriter.create(path, header, { flushIntervalMs: LIVE_FLUSH_INTERVAL_MS, onError: (e) => fail(e) });
    const recording = recordMarketData({ market: venue.market, symbols, clock, append: (e) => writer.append(e), onError: (e) => fail(e) });
    out(`recording ${symbols.join(', ')} from ${target.url} to ${path}${duration === undefined ? '' : ` for ${seconds(duration)} s`} (Ctrl-C stops)`);
    let timer: NodeJS.Timeout | undefined;
    let onSignal: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      onSignal = resolve;
      if (duration !== undefined) timer = setTimeout(resolve, duration);
    });
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      await Promise.race([stopped, failed]);
    } finally {
      clearTimeout(timer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      recording.unsubscribe();
      await writer.close();
    }
    if (writer.error) throw writer.error;
    out(`recorded ${writer.events} events (${writer.bytes} bytes) to ${path}`);
    return 0;
  } finally {
    venue.close();
  }
}
