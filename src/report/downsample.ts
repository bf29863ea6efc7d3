// Downsampling for charts: per pixel column, the first, lowest, highest and last sample (M4), so a line drawn from the
// result looks the same as one drawn from every sample, at a bounded size.
// Invariants: at most 4 points per column, in time order; the input's first and last points are kept.

import type { Point } from './data.js';

/**
 * `points` (sorted by time) reduced to at most 4 per column of `columns` equal time spans over [t0Ms, t1Ms]; points
 * outside the span fall in the first or last column.
 */
export function downsample(points: readonly Point[], t0Ms: number, t1Ms: number, columns: number): Point[] {
  if (points.length <= 4 * columns) return [...points];
  const span = t1Ms - t0Ms;
  const column = (t: number) => (span > 0 ? Math.min(columns - 1, Math.max(0, Math.floor(((t - t0Ms) / span) * columns))) : 0);
  const out: Point[] = [];
  let i = 0;
  while (i < points.length) {
    const c = column(points[i]!.tMs);
    const first = i;
    let lo = i;
    let hi = i;
    while (i < points.length && column(points[i]!.tMs) === c) {
      if (points[i]!.v < points[lo]!.v) lo = i;
      if (points[i]!.v > points[hi]!.v) hi = i;
      i++;
    }
    for (const k of [...new Set([first, lo, hi, i - 1])].sort((a, b) => a - b)) out.push(points[k]!);
  }
  return out;
}

/** Items sorted by time reduced to the lowest and highest `value` per column and per `group` (at most 2 per column and group). */
export function extremes<T>(
  items: readonly T[],
  tMs: (x: T) => number,
  value: (x: T) => number,
  group: (x: T) => string,
  t0Ms: number,
  t1Ms: number,
  columns: number,
): T[] {
  if (items.length <= 2 * columns) return [...items];
  const span = t1Ms - t0Ms;
  const kept = new Map<string, { lo: number; hi: number }>();
  items.forEach((x, i) => {
    const c = span > 0 ? Math.min(columns - 1, Math.max(0, Math.floor(((tMs(x) - t0Ms) / span) * columns))) : 0;
    const key = `${group(x)}\u0000${c}`;
    const k = kept.get(key);
    if (k === undefined) kept.set(key, { lo: i, hi: i });
    else {
      if (value(x) < value(items[k.lo]!)) k.lo = i;
      if (value(x) > value(items[k.hi]!)) k.hi = i;
    }
  });
  const idx = new Set<number>();
  for (const k of kept.values()) idx.add(k.lo).add(k.hi);
  return [...idx].sort((a, b) => a - b).map((i) => items[i]!);
}
