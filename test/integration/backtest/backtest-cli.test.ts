import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { perpbotChild, perpbotSync } from '../../support/cli.js';
import { marketMakerYaml } from '../../support/mm-config.js';

const dir = mkdtempSync(join(tmpdir(), 'perpbot-backtest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const perpbot = (args: string[]) => perpbotSync(args, { cwd: dir });

const config = join(dir, 'bt.yaml');
writeFileSync(
  config,
  marketMakerYaml({
    extraParams: 'levels: 2',
    backtest: `  queue: { model: power, power: 2 }
  latency:
    feed: { model: recorded }
    entry: { model: lognormal, medianMs: 2, sigma: 0.5 }
    response: { model: uniform, minMs: 1, maxMs: 3 }
  equityIntervalMs: 10000
`,
  }),
);
const data = join(dir, 'btc.rec');
const files = (out: string) => Object.fromEntries(readdirSync(out).map((f) => [f, readFileSync(join(out, f))]));

describe('perpbot backtest', () => {
  it('backtests the built-in market maker on a synthetic recording end to end, byte-identically twice (report.html included)', () => {
    const rec = perpbot(['record', '--synthetic', '--out', data, '--duration', '3m', '--seed', '4', '--symbols', 'BTC-USD']);
    expect(rec.stderr + rec.stdout).toMatch(/wrote \d+ events/);
    expect(rec.status).toBe(0);

    const a = perpbot(['backtest', '--data', data, '--config', config, '--seed', '9', '--out', join(dir, 'a')]);
    expect(a.stderr).toMatch(/replayed [\d,]+ events/);
    expect(a.status).toBe(0);
    expect(a.stdout).toMatch(/fill ratio/);
    const summary = JSON.parse(readFileSync(join(dir, 'a', 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({
      partial: false,
      seed: 9,
      startEquityUsd: 50000,
      models: { queue: 'power(2)', entryLatency: 'lognormal(median 2ms, sigma 0.5)' },
    });
    expect(summary.trades).toBeGreaterThan(0);
    expect(summary.data.events).toBeGreaterThan(10_000);
    const orders = readFileSync(join(dir, 'a', 'orders.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(orders).toHaveLength(summary.orders + summary.ordersDenied + 1);
    const html = readFileSync(join(dir, 'a', 'report.html'), 'utf8');
    expect(html).toContain('<title>Backtest, seed 9</title>');
    expect(html).toContain(`${summary.ordersFilled} of ${summary.orders} orders had a fill`);

    const b = perpbot(['backtest', '--data', data, '--config', config, '--seed', '9', '--out', join(dir, 'b')]);
    expect(b.status).toBe(0);
    expect(files(join(dir, 'b'))).toEqual(files(join(dir, 'a')));
  }, 300_000);

  it('Ctrl-C writes the partial results and says so', async () => {
    const first = join(dir, 'first.rec');
    const second = join(dir, 'second.rec');
    expect(perpbot(['record', '--synthetic', '--out', first, '--duration', '3m', '--symbols', 'BTC-USD']).status).toBe(0);
    expect(perpbot(['record', '--synthetic', '--out', second, '--duration', '3m', '--start', '2026-01-01T00:03:00Z', '--symbols', 'BTC-USD']).status).toBe(0);
    let interrupted = false;
    const { status, stdout, stderr } = await perpbotChild(
      ['backtest', '--data', first, second, '--config', config, '--out', join(dir, 'c')],
      { cwd: dir },
      (text, kill) => {
        if (!interrupted && /replayed/.test(text)) {
          interrupted = true;
          kill('SIGINT');
        }
      },
    );
    expect(stderr).toMatch(/stopping: the results so far are written \(partial\)/);
    expect(status).toBe(0);
    expect(stdout).toMatch(/PARTIAL backtest/);
    expect(JSON.parse(readFileSync(join(dir, 'c', 'summary.json'), 'utf8')).partial).toBe(true);
  }, 300_000);

  it('names a bad backtest key', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, `${readFileSync(config, 'utf8')}\n`.replace('model: power, power: 2', 'model: power'));
    const r = perpbot(['backtest', '--data', data, '--config', bad]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/backtest\.queue\.power/);
  });
});
