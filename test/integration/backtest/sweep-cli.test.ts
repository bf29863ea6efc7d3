import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perpbotChild, perpbotSync } from '../../support/cli.js';
import { marketMakerYaml } from '../../support/mm-config.js';

const dir = mkdtempSync(join(tmpdir(), 'perpbot-sweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const perpbot = (args: string[]) => perpbotSync(args, { cwd: dir });
const child = (args: string[], onStderr?: Parameters<typeof perpbotChild>[2]) => perpbotChild(args, { cwd: dir }, onStderr);

const config = join(dir, 'mm.yaml');
const grid = join(dir, 'grid.yaml');
const data = join(dir, 'btc.rec');
const sweep = (...extra: string[]) => ['sweep', '--config', config, '--grid', grid, '--data', data, '--seed', '2', ...extra];
const TABLES = ['results.csv', 'results.json', 'heatmap.svg', 'report.html'];
const tables = (out: string) => Object.fromEntries(TABLES.map((f) => [f, readFileSync(join(dir, out, f), 'utf8')]));

beforeAll(() => {
  writeFileSync(config, marketMakerYaml());
  writeFileSync(grid, 'strategies.0.params.halfSpreadBps: [1, 4]\nstrategies.0.params.levels: [1, 2]\n');
  const rec = perpbot(['record', '--synthetic', '--out', data, '--duration', '20s', '--seed', '4', '--symbols', 'BTC-USD']);
  expect(rec.status, rec.stderr).toBe(0);
}, 120_000);

describe('perpbot sweep', () => {
  it('shards run as separate processes and merged give the tables of a single-process sweep, byte for byte', async () => {
    const single = await child(sweep('--workers', '2', '--out', 'single'));
    expect(single.status, single.stderr).toBe(0);
    expect(single.stderr).toMatch(/sweep of 4 points; 4 to run on 2 workers/);
    expect(single.stdout).toMatch(/sweep: 4 points, ranked by sharpe/);
    const csv = readFileSync(join(dir, 'single', 'results.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(csv).toHaveLength(5);
    expect(csv[0]).toMatch(/^rank,point,strategies\.0\.params\.halfSpreadBps,strategies\.0\.params\.levels,sharpe,/);
    expect(new Set(csv.slice(1).map((l) => l.split(',')[1]))).toEqual(new Set(['0', '1', '2', '3']));

    const shards = await Promise.all([0, 1].map((i) => child(sweep('--workers', '1', '--shard', `${i}/2`, '--out', `shard${i}`))));
    for (const s of shards) expect(s.status, s.stderr).toBe(0);
    expect(shards[0]!.stderr).toMatch(/shard 0\/2: 2 of 4 points/);

    const partOnly = perpbot(['sweep', 'merge', 'shard0', '--out', 'merged']);
    expect(partOnly.status).toBe(1);
    expect(partOnly.stderr).toMatch(/CONFIG: shard0: 2 of 4 points are not finished \(e\.g\. 1, 3\): a shard directory is missing/);

    const merged = perpbot(['sweep', 'merge', 'shard0', 'shard1', '--out', 'merged']);
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/merged 4 points from 2 directories/);
    expect(tables('merged')).toEqual(tables('single'));
    expect(tables('single')['heatmap.svg']).toMatch(/^<svg /);
    const page = tables('single')['report.html']!;
    expect(page).toContain(tables('single')['heatmap.svg']!.trim());
    expect(page.match(/<tr><td class="num">\d+<\/td><td class="num">\d+<\/td>/g)).toHaveLength(4);

    const other = perpbot([...sweep('--out', 'single'), '--seed', '3']);
    expect(other.status).toBe(1);
    expect(other.stderr).toMatch(/CONFIG: --out: single holds another sweep \(the seed differs \(2, 3\)\)/);
  }, 600_000);

  it('Ctrl-C keeps the finished points; the same command resumes and ends with the same table', async () => {
    let interrupted = false;
    const first = await child(sweep('--workers', '1', '--out', 'resumed'), (stderr, kill) => {
      if (!interrupted && /\[1\/4\]/.test(stderr)) {
        interrupted = true;
        kill('SIGINT');
      }
    });
    expect(first.stderr).toMatch(/stopping: finished points are kept/);
    expect(first.status).toBe(130);
    expect(first.stdout).toMatch(/STOPPED sweep: [123] of 4 points finished/);
    const kept = readFileSync(join(dir, 'resumed', 'results.jsonl'), 'utf8')
      .trim()
      .split('\n').length;
    expect(kept).toBeGreaterThanOrEqual(1);
    expect(kept).toBeLessThan(4);

    const second = await child(sweep('--workers', '1', '--out', 'resumed'));
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).toContain(`sweep of 4 points, ${kept} already finished; ${4 - kept} to run`);
    expect(
      readFileSync(join(dir, 'resumed', 'results.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(4);
    const single = await child(sweep('--out', 'reference'));
    expect(single.status).toBe(0);
    expect(tables('resumed')).toEqual(tables('reference'));
  }, 600_000);

  it('names a grid key that leads nowhere, and a point the config refuses', () => {
    writeFileSync(join(dir, 'bad-path.yaml'), 'strategies.1.params.size: [0.001]\n');
    const r = perpbot(['sweep', '--config', config, '--grid', 'bad-path.yaml', '--data', data]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^CONFIG: strategies\.1\.params\.size: strategies is a list of 1 in .*mm\.yaml; "1" is not one of its indexes/);
    writeFileSync(join(dir, 'bad-value.yaml'), 'strategies.0.params.halfSpreadBps: [2, -1]\n');
    const v = perpbot(['sweep', '--config', config, '--grid', 'bad-value.yaml', '--data', data]);
    expect(v.status).toBe(1);
    expect(v.stderr).toMatch(/CONFIG: .*mm\.yaml at grid point 1 \(halfSpreadBps=-1\).*\n.*halfSpreadBps/);
  });
});
