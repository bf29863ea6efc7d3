// The heatmap of a two-parameter sweep: one self-contained SVG file (no script, no external reference), a cell per
// point coloured by the ranking metric, red worst to green best, its value written in it; unfinished points are grey.
// Invariant: the SVG depends only on the grid, the rows and the metric (byte-identical for merged shards).

import { formatValue, type Grid, shortNames } from './grid.js';
import { METRICS, type Metric, type Row } from './table.js';

const CELL_H = 28;
const CHAR_W = 7;
const STOPS = [
  [215, 48, 39],
  [254, 224, 139],
  [26, 152, 80],
] as const;

function xml(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** Red (t = 0) through yellow to green (t = 1). */
function colour(t: number): string {
  const x = Math.min(1, Math.max(0, t)) * 2;
  const [a, b] = x <= 1 ? [STOPS[0], STOPS[1]] : [STOPS[1], STOPS[2]];
  const f = x <= 1 ? x : x - 1;
  return `rgb(${a.map((c, i) => Math.round(c + (b[i]! - c) * f)).join(',')})`;
}

const short = (v: number) => String(Number(v.toPrecision(4)));

/** heatmap.svg of a grid of exactly two keys: the first across, the second down. */
export function heatmapSvg(grid: Grid, rows: readonly Row[], metric: Metric): string {
  const [xs, ys] = grid.values as [readonly unknown[], readonly unknown[]];
  const [xName, yName] = shortNames(grid.keys) as [string, string];
  const value = new Map(rows.map((r) => [r.point, r.metrics[metric as keyof Row['metrics']]]));
  const finished = [...value.values()];
  const lo = Math.min(...finished);
  const hi = Math.max(...finished);
  const better = (v: number) => (hi === lo ? 1 : METRICS[metric] === 'max' ? (v - lo) / (hi - lo) : (hi - v) / (hi - lo));
  const cellW = Math.max(
    56,
    ...[...xs, ...rows.map((r) => r.metrics[metric as keyof Row['metrics']])].map(
      (v) => (formatValue(typeof v === 'number' ? short(v) : v).length + 2) * CHAR_W,
    ),
  );
  const left = Math.max(yName.length, ...ys.map((y) => formatValue(y).length)) * CHAR_W + 24;
  const top = 48;
  const height = top + ys.length * CELL_H + 48;
  const title = `${metric} by ${xName} (across) and ${yName} (down); ${METRICS[metric] === 'max' ? 'higher' : 'lower'} is better (green)`;
  const range =
    finished.length > 0 ? `worst ${short(METRICS[metric] === 'max' ? lo : hi)}, best ${short(METRICS[metric] === 'max' ? hi : lo)}` : 'no finished point';
  const footer = `${rows.length} of ${xs.length * ys.length} points; ${range}`;
  const width = Math.ceil(Math.max(left + xs.length * cellW, Math.max(title.length, footer.length) * CHAR_W * 1.1) + 16);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${xml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="8" y="18" font-weight="bold">${xml(title)}</text>`,
    `<text x="${left}" y="${top - 10}" fill="#555">${xml(xName)}</text>`,
    `<text x="8" y="${top - 10}" fill="#555">${xml(yName)}</text>`,
  ];
  xs.forEach((x, i) => {
    parts.push(`<text x="${left + i * cellW + cellW / 2}" y="${top + ys.length * CELL_H + 16}" text-anchor="middle">${xml(formatValue(x))}</text>`);
  });
  ys.forEach((y, j) => {
    const cy = top + j * CELL_H;
    parts.push(`<text x="${left - 8}" y="${cy + CELL_H / 2 + 4}" text-anchor="end">${xml(formatValue(y))}</text>`);
    xs.forEach((_x, i) => {
      const v = value.get(i * ys.length + j);
      const cx = left + i * cellW;
      parts.push(
        `<rect x="${cx}" y="${cy}" width="${cellW}" height="${CELL_H}" fill="${v === undefined ? '#ddd' : colour(better(v))}" stroke="#fff"/>`,
        `<text x="${cx + cellW / 2}" y="${cy + CELL_H / 2 + 4}" text-anchor="middle">${v === undefined ? '–' : xml(short(v))}</text>`,
      );
    });
  });
  parts.push(`<text x="8" y="${height - 10}" fill="#555">${xml(footer)}</text>`, '</svg>');
  return `${parts.join('\n')}\n`;
}
