// A sweep's output directory: sweep.json (what is swept: config and data hashes, grid, seed, shard), results.jsonl
// (one line a finished point, appended as it finishes), and the tables written from them.
// Invariants: a directory holds one sweep (a run whose sweep.json differs is refused, naming the difference), so a
// rerun skips exactly the points already in results.jsonl; a line cut short by a kill is dropped, never half-read.

import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Summary } from '../../backtest/results.js';
import { ConfigError } from '../../core/errors.js';
import { type Grid, gridSize, type Shard } from './grid.js';
import { heatmapSvg } from './heatmap.js';
import { sweepPage } from './page.js';
import { type Metric, rankRows, tableCsv, tableJson } from './table.js';

/** sweep.json: identifies a sweep; files are named by content, so a sweep moved to other paths is still the same. */
export interface SweepManifest {
  readonly configSha256: string;
  readonly dataSha256: readonly string[];
  readonly grid: Grid;
  readonly seed: number;
  readonly shard: Shard | null;
}

export interface PointResult {
  params: Record<string, unknown>;
  summary: Summary;
}

const MANIFEST = 'sweep.json';
const RESULTS = 'results.jsonl';

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The manifest of a sweep of these files (hashed here), grid, seed and shard. */
export function sweepManifest(configText: string, dataFiles: readonly string[], grid: Grid, seed: number, shard: Shard | null): SweepManifest {
  return { configSha256: sha256(configText), dataSha256: dataFiles.map((f) => sha256(readFileSync(f))), grid, seed, shard };
}

/** What differs between two manifests, in words ('' when none). */
function difference(a: SweepManifest, b: SweepManifest, withShard: boolean): string {
  if (a.configSha256 !== b.configSha256) return 'the config file differs';
  if (JSON.stringify(a.dataSha256) !== JSON.stringify(b.dataSha256)) return 'the data files differ';
  if (JSON.stringify(a.grid) !== JSON.stringify(b.grid)) return 'the grid differs';
  if (a.seed !== b.seed) return `the seed differs (${a.seed}, ${b.seed})`;
  if (withShard && JSON.stringify(a.shard) !== JSON.stringify(b.shard)) return 'the shard differs';
  return '';
}

/** A sweep directory's manifest and finished points; throws ConfigError naming `dir` when it holds no sweep. */
export function readSweepDir(dir: string): { manifest: SweepManifest; done: Map<number, PointResult> } {
  const path = join(dir, MANIFEST);
  if (!existsSync(path)) throw new ConfigError(dir, `holds no sweep (no ${MANIFEST})`);
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as SweepManifest;
  const done = new Map<number, PointResult>();
  const file = join(dir, RESULTS);
  if (!existsSync(file)) return { manifest, done };
  const text = readFileSync(file, 'utf8');
  const complete = text.lastIndexOf('\n') + 1;
  if (complete < text.length) truncateSync(file, Buffer.byteLength(text.slice(0, complete)));
  for (const line of text.slice(0, complete).split('\n')) {
    if (line === '') continue;
    const r = JSON.parse(line) as PointResult & { point: number };
    done.set(r.point, { params: r.params, summary: r.summary });
  }
  return { manifest, done };
}

/**
 * Opens `dir` for the sweep `manifest`: creates it, or (when it holds the same sweep) returns the points it finished.
 * Throws ConfigError naming `--out` when it holds another sweep.
 */
export function openSweepDir(dir: string, manifest: SweepManifest): Map<number, PointResult> {
  if (existsSync(join(dir, MANIFEST))) {
    const found = readSweepDir(dir);
    const diff = difference(found.manifest, manifest, true);
    if (diff) throw new ConfigError('--out', `${dir} holds another sweep (${diff}); give another --out or delete it`);
    return found.done;
  }
  mkdirSync(dir, { recursive: true });
  rmSync(join(dir, RESULTS), { force: true });
  writeFileSync(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return new Map();
}

/** Appends a finished point to results.jsonl (one write of one line). */
export function appendPoint(dir: string, point: number, result: PointResult): void {
  appendFileSync(join(dir, RESULTS), `${JSON.stringify({ point, ...result })}\n`);
}

/** Writes results.csv, results.json, report.html and (for two keys) heatmap.svg from the finished points. */
export function writeTables(dir: string, grid: Grid, done: ReadonlyMap<number, PointResult>, metric: Metric, points: number): void {
  const rows = rankRows(grid, done, metric);
  writeFileSync(join(dir, 'results.csv'), tableCsv(grid, rows));
  writeFileSync(join(dir, 'results.json'), tableJson(grid, rows, metric, points));
  writeFileSync(join(dir, 'report.html'), sweepPage(grid, rows, metric, points));
  if (grid.keys.length === 2) writeFileSync(join(dir, 'heatmap.svg'), heatmapSvg(grid, rows, metric));
}

/**
 * Joins the slices in `dirs` into `out` (sweep.json without a shard, results.jsonl in point order, the tables): they
 * must be one sweep and hold every point of it exactly once. Throws ConfigError naming the directory at fault.
 */
export function mergeSweepDirs(dirs: readonly string[], out: string, metric: Metric): { grid: Grid; done: Map<number, PointResult> } {
  const slices = dirs.map((d) => ({ dir: d, ...readSweepDir(d) }));
  const first = slices[0]!;
  const merged = new Map<number, PointResult>();
  for (const s of slices) {
    const diff = difference(first.manifest, s.manifest, false);
    if (diff) throw new ConfigError(s.dir, `is not a slice of the sweep in ${first.dir}: ${diff}`);
    for (const [i, r] of s.done) {
      if (merged.has(i)) throw new ConfigError(s.dir, `holds point ${i}, which an earlier directory holds too (give each shard once)`);
      merged.set(i, r);
    }
  }
  const grid = first.manifest.grid;
  const total = gridSize(grid);
  if (merged.size < total) {
    const missing = Array.from({ length: total }, (_, i) => i).filter((i) => !merged.has(i));
    const owners = slices.filter((s) => s.manifest.shard && missing.some((i) => i % s.manifest.shard!.count === s.manifest.shard!.index)).map((s) => s.dir);
    throw new ConfigError(
      owners[0] ?? dirs.join(' '),
      `${missing.length} of ${total} points are not finished (e.g. ${missing.slice(0, 5).join(', ')})${owners.length > 0 ? `: rerun the shard${owners.length > 1 ? 's' : ''} of ${owners.join(', ')}` : ': a shard directory is missing'}`,
    );
  }
  const sorted = new Map([...merged.entries()].sort(([a], [b]) => a - b));
  openSweepDir(out, { ...first.manifest, shard: null });
  rmSync(join(out, RESULTS), { force: true });
  for (const [i, r] of sorted) appendPoint(out, i, r);
  writeTables(out, grid, sorted, metric, total);
  return { grid, done: sorted };
}
