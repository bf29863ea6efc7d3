import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridPoints, parseGrid } from '../../../../src/app/sweep/grid.js';
import { runPoint, type SweepInput } from '../../../../src/app/sweep/point.js';
import { runPoints } from '../../../../src/app/sweep/pool.js';
import { writeSyntheticRecording } from '../../../../src/backtest/recording/synthetic.js';
import type { Summary } from '../../../../src/backtest/results.js';
import { PerpbotError } from '../../../../src/core/errors.js';
import { marketMakerYaml } from '../../../support/mm-config.js';

const dir = mkdtempSync(join(tmpdir(), 'perpbot-sweep-pool-'));
const configPath = join(dir, 'mm.yaml');
const configText = marketMakerYaml();
const data = join(dir, 'btc.rec');
const input = (gridText: string): SweepInput => ({ configPath, configText, grid: parseGrid(gridText, 'grid.yaml'), dataFiles: [data], seed: 3 });

beforeAll(async () => {
  writeFileSync(configPath, configText);
  await writeSyntheticRecording(data, { seed: 2, durationMs: 8_000, symbols: ['BTC-USD'] });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sweep worker pool', () => {
  it('backtests each point once on worker threads, with the summary a backtest in this thread gives', async () => {
    const sweep = input('strategies.0.params.halfSpreadBps: [1, 4, 9]\n');
    const points = gridPoints(sweep.grid);
    const got = new Map<number, Summary>();
    const outcome = await runPoints(sweep, points, { workers: 2, onResult: (p, s) => got.set(p.index, s) });
    expect(outcome).toBe('done');
    expect([...got.keys()].sort()).toEqual([0, 1, 2]);
    expect(got.get(1)!.orders).toBeGreaterThan(0);
    expect(got.get(0)).not.toEqual(got.get(2));
    expect(got.get(1)).toEqual(await runPoint(sweep, points[1]!));
  }, 120_000);

  it("fails with the point's error, its code kept and its values named", async () => {
    const sweep = input('strategies.0.params.halfSpreadBps: [-1]\n');
    const failed = runPoints(sweep, gridPoints(sweep.grid), { workers: 1, onResult: () => {} });
    await expect(failed).rejects.toBeInstanceOf(PerpbotError);
    await expect(failed).rejects.toMatchObject({ code: 'CONFIG', message: expect.stringMatching(/^grid point 0 \(halfSpreadBps=-1\): .*halfSpreadBps/s) });
  }, 60_000);

  it('stops at once when aborted: the point running is dropped', async () => {
    const sweep = input('strategies.0.params.halfSpreadBps: [1, 2, 3]\n');
    const abort = new AbortController();
    const got: number[] = [];
    const outcome = await runPoints(sweep, gridPoints(sweep.grid), {
      workers: 1,
      signal: abort.signal,
      onResult: (p) => {
        got.push(p.index);
        abort.abort();
      },
    });
    expect(outcome).toBe('stopped');
    expect(got).toEqual([0]);
  }, 60_000);
});
