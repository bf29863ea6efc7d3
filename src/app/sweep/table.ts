// The ranked table of a sweep: one row a finished point (its values and the summary's metrics), best first by the
// chosen metric, as results.csv, results.json and terminal text.
// Invariants: the table depends only on the grid, the finished points' summaries and the metric (no wall time, no
// finishing order: ties go to the lower point id), so shards merged give the bytes of a single-process sweep.

import type { Summary } from '../../backtest/results.js';
import { formatTable } from '../commands/table.js';
import { formatValue, type Grid, shortNames } from './grid.js';

/** Metrics a sweep ranks by, and whether more is better. */
export const METRICS = {
  sharpe: 'max',
  returnPct: 'max',
  pnlUsd: 'max',
  maxDrawdownPct: 'min',
  fillRatio: 'max',
  trades: 'max',
  turnover: 'max',
  feesUsd: 'min',
} as const;
export type Metric = keyof typeof METRICS;

/** The summary fields each row carries, in column order. */
const COLUMNS = [
  'sharpe',
  'returnPct',
  'pnlUsd',
  'maxDrawdownPct',
  'fillRatio',
  'orders',
  'trades',
  'makerTrades',
  'feesUsd',
  'fundingUsd',
  'turnover',
  'liquidations',
] as const;

export interface Row {
  rank: number;
  point: number;
  params: Record<string, unknown>;
  metrics: Record<(typeof COLUMNS)[number], number>;
}

/** Rows of the finished points (`done`: point id → summary), best first by `metric`. */
export function rankRows(grid: Grid, done: ReadonlyMap<number, { params: Record<string, unknown>; summary: Summary }>, metric: Metric): Row[] {
  const sign = METRICS[metric] === 'max' ? -1 : 1;
  return [...done.entries()]
    .sort(([a, x], [b, y]) => sign * (x.summary[metric] - y.summary[metric]) || a - b)
    .map(([point, { params, summary }], i) => ({
      rank: i + 1,
      point,
      params: Object.fromEntries(grid.keys.map((k) => [k, params[k]])),
      metrics: Object.fromEntries(COLUMNS.map((c) => [c, summary[c]])) as Row['metrics'],
    }));
}

function csvCell(v: unknown): string {
  const s = formatValue(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** results.csv: rank, point, one column per grid key (its full path), then the metrics. */
export function tableCsv(grid: Grid, rows: readonly Row[]): string {
  const header = ['rank', 'point', ...grid.keys, ...COLUMNS];
  const lines = rows.map((r) => [r.rank, r.point, ...grid.keys.map((k) => r.params[k]), ...COLUMNS.map((c) => r.metrics[c])].map(csvCell).join(','));
  return `${[header.map(csvCell).join(','), ...lines].join('\n')}\n`;
}

/** results.json: the metric, how many of the grid's points the table holds, and the rows. */
export function tableJson(grid: Grid, rows: readonly Row[], metric: Metric, points: number): string {
  return `${JSON.stringify({ metric, points, finished: rows.length, keys: grid.keys, rows }, null, 2)}\n`;
}

/** The first `limit` rows for the terminal, grid keys under their short names. */
export function tableText(grid: Grid, rows: readonly Row[], limit: number): string {
  const names = shortNames(grid.keys);
  return formatTable(
    rows.slice(0, limit).map((r) => ({
      rank: r.rank,
      point: r.point,
      ...Object.fromEntries(grid.keys.map((k, i) => [names[i]!, formatValue(r.params[k])])),
      ...r.metrics,
    })),
  );
}
