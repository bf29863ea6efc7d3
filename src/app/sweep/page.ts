// The HTML page of a sweep (report.html in its folder): the ranked table and, for two keys, the heatmap, in the report's
// self-contained page shell. Invariant: like the tables, the bytes depend only on the grid, the rows and the metric.

import { renderPage, table } from '../../report/index.js';
import { formatValue, type Grid, shortNames } from './grid.js';
import { heatmapSvg } from './heatmap.js';
import { METRICS, type Metric, type Row } from './table.js';

/** report.html of the finished rows (`points`: the grid's size, finished or not). */
export function sweepPage(grid: Grid, rows: readonly Row[], metric: Metric, points: number): string {
  const names = shortNames(grid.keys);
  const columns = rows.length > 0 ? (Object.keys(rows[0]!.metrics) as (keyof Row['metrics'])[]) : [];
  const ranking = table(
    ['rank', 'point', ...names, ...columns],
    rows.map((r) => [String(r.rank), String(r.point), ...grid.keys.map((k) => formatValue(r.params[k])), ...columns.map((c) => String(r.metrics[c]))]),
    [true, true, ...names.map(() => false), ...columns.map(() => true)],
  );
  const sections = [
    ...(grid.keys.length === 2 ? [{ title: `Heatmap of ${metric}`, html: heatmapSvg(grid, rows, metric) }] : []),
    { title: `Ranking by ${metric} (${METRICS[metric] === 'max' ? 'higher' : 'lower'} is better)`, html: ranking },
  ];
  return renderPage('Parameter sweep', `${rows.length} of ${points} points finished; keys: ${grid.keys.join(', ')}`, sections);
}
