import { describe, expect, it } from 'vitest';
import { gridPoints, parseGrid } from '../../../../src/app/sweep/grid.js';
import { heatmapSvg } from '../../../../src/app/sweep/heatmap.js';
import type { PointResult } from '../../../../src/app/sweep/store.js';
import { rankRows, tableCsv, tableJson } from '../../../../src/app/sweep/table.js';
import type { Summary } from '../../../../src/backtest/results.js';

const grid = parseGrid('strategies.0.params.halfSpreadBps: [1, 2, 5]\nbacktest.queue: [{ model: power, power: 2 }, { model: pessimistic }]\n', 'g.yaml');

const ZERO = Object.fromEntries(
  ['sharpe', 'returnPct', 'pnlUsd', 'maxDrawdownPct', 'fillRatio', 'orders', 'trades', 'makerTrades', 'feesUsd', 'fundingUsd', 'turnover', 'liquidations'].map(
    (k) => [k, 0],
  ),
);

function finished(figures: Record<number, Partial<Summary>>): Map<number, PointResult> {
  const points = gridPoints(grid);
  return new Map(
    Object.entries(figures).map(([i, f]) => [
      Number(i),
      { params: points[Number(i)]!.params as Record<string, unknown>, summary: { ...ZERO, ...f } as Summary },
    ]),
  );
}

describe('sweep table', () => {
  const done = finished({ 4: { sharpe: 1.5, maxDrawdownPct: 2 }, 0: { sharpe: 3, maxDrawdownPct: 5 }, 2: { sharpe: 1.5, maxDrawdownPct: 1 } });

  it('ranks best first in the metric’s direction, ties to the lower point id', () => {
    expect(rankRows(grid, done, 'sharpe').map((r) => [r.rank, r.point])).toEqual([
      [1, 0],
      [2, 2],
      [3, 4],
    ]);
    expect(rankRows(grid, done, 'maxDrawdownPct').map((r) => r.point)).toEqual([2, 4, 0]);
  });

  it('writes CSV with full key names and quoted map values, and JSON with the counts', () => {
    const rows = rankRows(grid, done, 'sharpe');
    const csv = tableCsv(grid, rows).split('\n');
    expect(csv[0]).toBe(
      'rank,point,strategies.0.params.halfSpreadBps,backtest.queue,sharpe,returnPct,pnlUsd,maxDrawdownPct,fillRatio,orders,trades,makerTrades,feesUsd,fundingUsd,turnover,liquidations',
    );
    expect(csv[1]).toBe('1,0,1,"{""model"":""power"",""power"":2}",3,0,0,5,0,0,0,0,0,0,0,0');
    const json = JSON.parse(tableJson(grid, rows, 'sharpe', 6));
    expect(json).toMatchObject({ metric: 'sharpe', points: 6, finished: 3, keys: grid.keys });
    expect(json.rows[0]).toMatchObject({ rank: 1, point: 0, params: { 'strategies.0.params.halfSpreadBps': 1 }, metrics: { sharpe: 3 } });
  });

  it('draws a self-contained heatmap: a cell a point, its value in it, unfinished ones grey', () => {
    const svg = heatmapSvg(grid, rankRows(grid, done, 'sharpe'), 'sharpe');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).not.toMatch(/<script|href=|url\(/);
    expect(svg.match(/<rect x=/g)).toHaveLength(6);
    expect(svg.match(/fill="#ddd"/g)).toHaveLength(3);
    expect(svg).toContain('fill="rgb(26,152,80)"');
    expect(svg).toContain('fill="rgb(215,48,39)"');
    expect(svg).toContain('>{&quot;model&quot;:&quot;pessimistic&quot;}</text>');
    expect(svg).toContain('3 of 6 points; worst 1.5, best 3');
    expect(heatmapSvg(grid, rankRows(grid, done, 'sharpe'), 'sharpe')).toBe(svg);
  });
});
