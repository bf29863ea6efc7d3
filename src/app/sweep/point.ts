// One point of a sweep: the daemon config with the point's values, backtested over the recordings, summary only.
// Invariants: the summary depends only on the config text, the point's values, the data and the seed (as a backtest's
// files do), so a point gives the same summary in any thread, process or machine.

import { createHash } from 'node:crypto';
import { openRecordings } from '../../backtest/data.js';
import { readRecording } from '../../backtest/recording/reader.js';
import { runBacktest } from '../../backtest/replay.js';
import { SummaryMeter, type Summary } from '../../backtest/results.js';
import { ConfigErrors } from '../../core/errors.js';
import type { LoadedStrategy } from '../../strategy/loader.js';
import { backtestOptions, backtestSetup } from '../commands/backtest.js';
import { checkDaemonConfig, type DaemonConfig } from '../config/index.js';
import { type Grid, type GridPoint, pointConfigText, pointLabel } from './grid.js';

/** What every point of a sweep shares. */
export interface SweepInput {
  readonly configPath: string;
  /** The config file's text (read once, so every point starts from the same bytes). */
  readonly configText: string;
  readonly grid: Grid;
  readonly dataFiles: readonly string[];
  readonly seed: number;
}

interface CheckedPoint {
  readonly text: string;
  readonly config: DaemonConfig;
  readonly strategies: LoadedStrategy[];
  readonly collateralUsd: number;
  readonly models: Record<string, string>;
}

/** The point's config, checked as `perpbot backtest` checks one; throws ConfigErrors headed by the point's id and values. */
export async function checkPoint(input: SweepInput, point: GridPoint): Promise<CheckedPoint> {
  const text = pointConfigText(input.configText, input.configPath, point.params);
  try {
    const { config, strategies } = await checkDaemonConfig(input.configPath, process.env, text);
    return { text, config, strategies, ...backtestSetup(config) };
  } catch (e) {
    if (e instanceof ConfigErrors) throw new ConfigErrors(`${input.configPath} at grid point ${point.index} (${pointLabel(input.grid, point)})`, e.problems);
    throw e;
  }
}

/** Backtests one point; `signal` stops it early (the summary then says partial: true). */
export async function runPoint(input: SweepInput, point: GridPoint, signal?: AbortSignal): Promise<Summary> {
  const { text, config, strategies, collateralUsd, models } = await checkPoint(input, point);
  const data = openRecordings(input.dataFiles, readRecording);
  const meter = new SummaryMeter();
  const result = await runBacktest({
    ...backtestOptions(config, strategies),
    events: data.events,
    markets: data.markets,
    collateralUsd,
    seed: input.seed,
    sink: meter,
    ...(signal && { signal }),
  });
  return meter.summary(result, {
    configHash: createHash('sha256').update(text).digest('hex'),
    seed: input.seed,
    models,
    dataFiles: input.dataFiles,
    equityIntervalMs: config.backtest.equityIntervalMs,
  });
}
