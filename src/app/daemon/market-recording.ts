// The daemon's market-data recording (config `record:`): the first session's venue-port streams of the recorded markets,
// written to a recording file while the daemon trades. Invariants: recording never holds up or stops trading (a write
// error is logged and counted once, then the recording is dropped); an existing file is never overwritten.

import { existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { Logger as PinoLogger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { RECORDING_FORMAT_VERSION } from '../../backtest/recording/events.js';
import { recordMarketData } from '../../backtest/recording/recorder.js';
import { LIVE_FLUSH_INTERVAL_MS, RecordingWriter } from '../../backtest/recording/writer.js';
import type { Clock } from '../../core/clock.js';
import { ConfigError, PerpbotError } from '../../core/errors.js';
import type { DaemonConfig } from '../config/index.js';
import type { LiveSession } from './control.js';

export interface MarketRecording {
  /** The file written. */
  readonly path: string;
  readonly symbols: readonly string[];
  /** Stops recording and closes the file. */
  close(): Promise<void>;
}

/** `path`, or when it exists the first free `<stem>-N<ext>` beside it. */
export function freePath(path: string): string {
  const ext = extname(path);
  const stem = join(dirname(path), basename(path, ext));
  let candidate = path;
  for (let n = 1; existsSync(candidate); n++) candidate = `${stem}-${n}${ext}`;
  return candidate;
}

/**
 * Starts recording `config`'s markets (default: the sessions' strategies' markets) from the first session's venue.
 * Throws ConfigError (record.symbols, record.out) for a market the venue does not list or a file that cannot be created.
 */
export function startMarketRecording(
  config: NonNullable<DaemonConfig['record']>,
  sessions: readonly LiveSession[],
  deps: { registry: Registry; log: PinoLogger; clock: Clock; venueUrl: string },
): MarketRecording {
  const { log, clock } = deps;
  const session = sessions[0]!;
  const symbols = config.symbols ?? [...new Set(sessions.flatMap((s) => s.symbols))];
  const markets = symbols.map((s) => {
    const m = session.markets.get(s);
    if (!m) throw new ConfigError('record.symbols', `the venue lists no market ${s}`);
    return m;
  });
  const errors = new Counter({
    name: 'perpbot_recording_write_errors_total',
    help: 'Write errors of the market-data recording (config record:); after the first, the recording stops and trading goes on',
    registers: [deps.registry],
  });
  const path = freePath(config.out);
  let writer: RecordingWriter;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writer = RecordingWriter.create(
      path,
      {
        formatVersion: RECORDING_FORMAT_VERSION,
        venue: deps.venueUrl,
        dialect: session.venue.dialect,
        network: session.venue.network,
        markets,
        startTimeMs: clock.nowMs(),
      },
      {
        flushIntervalMs: LIVE_FLUSH_INTERVAL_MS,
        onError: (e) => {
          errors.inc();
          log.error({ error: e.message, path }, 'market recording failed; trading goes on without it');
        },
      },
    );
  } catch (e) {
    if (e instanceof PerpbotError || (e as NodeJS.ErrnoException).code !== undefined)
      throw new ConfigError('record.out', (e as Error).message, undefined, { cause: e });
    throw e;
  }
  const recording = recordMarketData({
    market: session.venue.market,
    symbols,
    clock,
    append: (e) => writer.append(e),
    onError: (e) => log.warn({ error: (e as Error).message, path }, 'a market recording stream failed'),
  });
  log.info({ path, symbols }, 'recording market data');
  return {
    path,
    symbols,
    async close() {
      recording.unsubscribe();
      await writer.close();
      log.info({ path, events: writer.events, bytes: writer.bytes, droppedEvents: writer.droppedEvents }, 'market recording closed');
    },
  };
}
