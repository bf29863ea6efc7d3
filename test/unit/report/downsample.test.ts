import { describe, expect, it } from 'vitest';
import type { Point } from '../../../src/report/data.js';
import { downsample, extremes } from '../../../src/report/downsample.js';
import { PLOT_COLUMNS, timeChart } from '../../../src/report/svg.js';
import { Prng } from '../../../src/venue-sim/engine/ids.js';

function walk(n: number, seed = 1): Point[] {
  const rng = new Prng(seed);
  let v = 0;
  return Array.from({ length: n }, (_, i) => ({ tMs: i * 7, v: (v += rng.nextU32() / 2 ** 32 - 0.5) }));
}

describe('downsample', () => {
  it('keeps at most 4 points per column, in time order, with the first, last, lowest and highest of each column', () => {
    const points = walk(100_000);
    const t0 = points[0]!.tMs;
    const t1 = points.at(-1)!.tMs;
    const out = downsample(points, t0, t1, 50);
    expect(out.length).toBeLessThanOrEqual(200);
    expect(out[0]).toBe(points[0]);
    expect(out.at(-1)).toBe(points.at(-1));
    for (let i = 1; i < out.length; i++) expect(out[i]!.tMs).toBeGreaterThan(out[i - 1]!.tMs);
    const column = (t: number) => Math.min(49, Math.floor(((t - t0) / (t1 - t0)) * 50));
    for (let c = 0; c < 50; c++) {
      const raw = points.filter((p) => column(p.tMs) === c).map((p) => p.v);
      const kept = out.filter((p) => column(p.tMs) === c).map((p) => p.v);
      expect(Math.min(...kept)).toBe(Math.min(...raw));
      expect(Math.max(...kept)).toBe(Math.max(...raw));
    }
  });

  it('returns short series unchanged', () => {
    const points = walk(30);
    expect(downsample(points, 0, 1_000, 10)).toEqual(points);
  });

  it('keeps the lowest and highest item per column and group', () => {
    const items = [
      { t: 0, v: 5, g: 'a' },
      { t: 1, v: 1, g: 'a' },
      { t: 2, v: 9, g: 'a' },
      { t: 3, v: 3, g: 'a' },
      { t: 4, v: 4, g: 'b' },
      { t: 10, v: 2, g: 'a' },
      { t: 11, v: 7, g: 'a' },
      { t: 12, v: 6, g: 'a' },
    ];
    const out = extremes(
      items,
      (x) => x.t,
      (x) => x.v,
      (x) => x.g,
      0,
      12,
      2,
    );
    expect(out.map((x) => x.v)).toEqual([1, 9, 4, 2, 7]);
  });

  it('bounds a chart of a million samples: every path has at most 4 points per plot column', () => {
    const svg = timeChart({ label: 'x', unit: 'USD', series: [{ points: walk(1_000_000), className: 'eq' }] });
    const d = /class="eq line" d="([^"]+)"/.exec(svg)![1]!;
    expect(d.split(/[ML]/).filter(Boolean).length).toBeLessThanOrEqual(4 * PLOT_COLUMNS);
    expect(svg.length).toBeLessThan(60_000);
  });
});
