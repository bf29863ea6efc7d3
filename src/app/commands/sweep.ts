// `perpbot sweep`: backtests every point of a parameter grid on worker threads and ranks them (docs/backtest.md,
// "Parameter sweeps"); `perpbot sweep merge` joins the shards of one sweep.
// Invariants: a point's result is appended to results.jsonl the moment it finishes, and a rerun of the same command
// skips the points found there (Ctrl-C loses only the points running); the tables hold no wall time, so merged shards
// give the files of a single-process sweep.

import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { openRecordings } from '../../backtest/data.js';
import { readRecording } from '../../backtest/recording/reader.js';
import type { ValidationError } from '../../core/errors.js';
import { oneOf, parseCommand, required, seedOf, UsageError } from '../args.js';
import { readConfigFile } from '../yaml-config.js';
import { type GridPoint, gridPoints, gridSize, loadGrid, parseShard, pointLabel, type Shard } from '../sweep/grid.js';
import { checkPoint, type SweepInput } from '../sweep/point.js';
import { runPoints } from '../sweep/pool.js';
import { appendPoint, mergeSweepDirs, openSweepDir, type PointResult, sweepManifest, writeTables } from '../sweep/store.js';
import { METRICS, type Metric, rankRows, tableText } from '../sweep/table.js';
import { stopOnSignals } from './stop-signals.js';

const METRIC_NAMES = Object.keys(METRICS) as Metric[];

export const sweepHelp = `perpbot sweep --config FILE --grid FILE --data FILE... [--workers N] [--metric M] [--shard i/n] [--seed N] [--out DIR]
perpbot sweep merge DIR... --out DIR [--metric M]

Backtests every point of a parameter grid (as perpbot backtest does one config) on worker threads and
ranks the points by a metric (docs/backtest.md, "Parameter sweeps").
  --config   the daemon's YAML config the grid's values are put into
  --grid     YAML map from dotted config paths to lists of values; every combination is a point, e.g.
               strategies.0.params.halfSpreadBps: [2, 5, 10]
               strategies.0.params.skew: [0, 0.5]
  --data     recordings, in time order (--data A B or --data A --data B)
  --workers  worker threads (default one per core: ${availableParallelism()})
  --metric   ranking metric: ${METRIC_NAMES.join(', ')} (default sharpe)
  --shard    run slice i of n (0 <= i < n: the points whose id % n is i), e.g. one per machine
  --seed     seed of the latency draws and of the backtest's key (default 1)
  --out      directory (default results/<config name>-sweep, -shard<i>of<n> for a shard)
  --top      rows printed at the end (default 20; the files hold all)

Each finished point is appended to DIR/results.jsonl at once; Ctrl-C stops (exit 130) and the same
command resumes, skipping the finished points. Writes DIR/results.csv and results.json (ranked) and,
for a grid of two keys, heatmap.svg. merge joins the directories of every shard of one sweep into
--out: the same files a single process would have written.`;

/** Dispatches `perpbot sweep` and `perpbot sweep merge`. */
export async function sweep(argv: string[], out: (line: string) => void): Promise<number> {
  return argv[0] === 'merge' ? merge(argv.slice(1), out) : runSweep(argv, out);
}

export interface SweepArgs {
  configPath: string;
  gridPath: string;
  dataFiles: string[];
  workers: number;
  metric: Metric;
  shard: Shard | null;
  seed: number;
  outDir: string;
  top: number;
}

function positiveInt(option: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--${option} must be a positive integer, got ${JSON.stringify(text)}`);
  return n;
}

/** The options of `perpbot sweep` (not merge); throws UsageError naming the option at fault. */
export function parseSweepArgs(argv: string[]): SweepArgs | 'help' {
  const { values, positionals } = parseCommand(
    argv,
    {
      config: { type: 'string' },
      grid: { type: 'string' },
      data: { type: 'string', multiple: true },
      workers: { type: 'string' },
      metric: { type: 'string' },
      shard: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      top: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (values.help) return 'help';
  const dataFiles = [...(values.data ?? []), ...positionals];
  const configPath = required('config', values.config);
  const gridPath = required('grid', values.grid);
  required('data', dataFiles[0]);
  let shard: Shard | null = null;
  try {
    shard = values.shard === undefined ? null : parseShard(values.shard);
  } catch (e) {
    throw new UsageError((e as ValidationError).message);
  }
  const seed = seedOf(values.seed);
  const name = configPath.replace(/^.*[\\/]/, '').replace(/\.ya?ml$/, '');
  return {
    configPath,
    gridPath,
    dataFiles,
    workers: positiveInt('workers', values.workers, availableParallelism()),
    metric: oneOf('metric', values.metric, METRIC_NAMES, 'sharpe'),
    shard,
    seed,
    outDir: values.out ?? join('results', `${name}-sweep${shard ? `-shard${shard.index}of${shard.count}` : ''}`),
    top: positiveInt('top', values.top, 20),
  };
}

async function runSweep(argv: string[], out: (line: string) => void): Promise<number> {
  const args = parseSweepArgs(argv);
  if (args === 'help') {
    out(sweepHelp);
    return 0;
  }
  const grid = loadGrid(args.gridPath);
  const input: SweepInput = { configPath: args.configPath, configText: readConfigFile(args.configPath), grid, dataFiles: args.dataFiles, seed: args.seed };
  openRecordings(args.dataFiles, readRecording);
  const points = gridPoints(grid, args.shard ?? undefined);
  for (const p of points) await checkPoint(input, p);
  const done = openSweepDir(args.outDir, sweepManifest(input.configText, args.dataFiles, grid, args.seed, args.shard));
  const pending = points.filter((p) => !done.has(p.index));
  const total = gridSize(grid);
  const workers = Math.min(args.workers, Math.max(1, pending.length));
  const slice = args.shard ? `shard ${args.shard.index}/${args.shard.count}: ${points.length} of ${total} points` : `${total} points`;
  process.stderr.write(
    `sweep of ${slice}${done.size > 0 ? `, ${done.size} already finished` : ''}; ${pending.length} to run on ${workers} worker${workers === 1 ? '' : 's'}, results in ${args.outDir}\n`,
  );

  const stop = stopOnSignals(['SIGINT', 'SIGTERM'], 'stopping: finished points are kept; run the same command again to resume');
  let outcome: 'done' | 'stopped';
  const startMs = performance.now();
  let finished = 0;
  try {
    outcome = await runPoints(input, pending, {
      workers,
      signal: stop.signal,
      onResult: (point: GridPoint, summary) => {
        const result: PointResult = { params: { ...point.params }, summary };
        appendPoint(args.outDir, point.index, result);
        done.set(point.index, result);
        finished++;
        const rank = rankRows(grid, done, args.metric).findIndex((r) => r.point === point.index) + 1;
        const rate = finished / Math.max(0.001, (performance.now() - startMs) / 1000);
        process.stderr.write(
          `[${done.size}/${points.length}] point ${point.index} ${pointLabel(grid, point)}: ${args.metric} ${summary[args.metric]}, rank ${rank} of ${done.size} (${rate.toFixed(2)} points/s)\n`,
        );
      },
    });
  } finally {
    stop.dispose();
  }
  writeTables(args.outDir, grid, done, args.metric, total);
  const rows = rankRows(grid, done, args.metric);
  const stopped = outcome === 'stopped' && done.size < points.length;
  out(
    `${stopped ? `STOPPED sweep: ${done.size} of ${points.length} points finished (rerun to resume)` : `sweep: ${done.size} points`}, ranked by ${args.metric}; results in ${args.outDir}\n${tableText(grid, rows, args.top)}`,
  );
  return stopped ? 130 : 0;
}

/** The options of `perpbot sweep merge`; throws UsageError naming what is missing. */
export function parseMergeArgs(argv: string[]): { dirs: string[]; outDir: string; metric: Metric } | 'help' {
  const { values, positionals } = parseCommand(argv, { out: { type: 'string' }, metric: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, true);
  if (values.help) return 'help';
  if (positionals.length === 0) throw new UsageError('give the directories of the shards: perpbot sweep merge DIR... --out DIR');
  return { dirs: positionals, outDir: required('out', values.out, 'DIR'), metric: oneOf('metric', values.metric, METRIC_NAMES, 'sharpe') };
}

async function merge(argv: string[], out: (line: string) => void): Promise<number> {
  const args = parseMergeArgs(argv);
  if (args === 'help') {
    out(sweepHelp);
    return 0;
  }
  const { grid, done } = mergeSweepDirs(args.dirs, args.outDir, args.metric);
  out(
    `merged ${done.size} points from ${args.dirs.length} directories, ranked by ${args.metric}; results in ${args.outDir}\n${tableText(grid, rankRows(grid, done, args.metric), 20)}`,
  );
  return 0;
}
