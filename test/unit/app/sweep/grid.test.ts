import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { gridPoint, gridPoints, gridSize, parseGrid, parseShard, pointConfigText, pointLabel, shortNames } from '../../../../src/app/sweep/grid.js';
import { ConfigError, ConfigErrors, ValidationError } from '../../../../src/core/errors.js';

const CONFIG = `accounts:
  - name: main # the key
    secretKey: x
strategies:
  - module: market-maker
    params: { symbol: BTC-USD, size: 0.001, halfSpreadBps: 2 }
`;

describe('sweep grid', () => {
  const grid = parseGrid('strategies.0.params.halfSpreadBps: [1, 2, 5]\nstrategies.0.params.levels: [1, 2]\n', 'grid.yaml');

  it('orders points by the file: the last key varies fastest, a point id is its index', () => {
    expect(gridSize(grid)).toBe(6);
    expect(gridPoints(grid).map((p) => pointLabel(grid, p))).toEqual([
      'halfSpreadBps=1 levels=1',
      'halfSpreadBps=1 levels=2',
      'halfSpreadBps=2 levels=1',
      'halfSpreadBps=2 levels=2',
      'halfSpreadBps=5 levels=1',
      'halfSpreadBps=5 levels=2',
    ]);
    expect(gridPoint(grid, 3)).toEqual({ index: 3, params: { 'strategies.0.params.halfSpreadBps': 2, 'strategies.0.params.levels': 2 } });
  });

  it('splits the points into shards that partition the grid', () => {
    const shards = [0, 1, 2, 3].map((index) => gridPoints(grid, { index, count: 4 }).map((p) => p.index));
    expect(shards).toEqual([[0, 4], [1, 5], [2], [3]]);
    expect(gridPoints(grid, { index: 0, count: 1 }).map((p) => p.index)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('reads --shard i/n and names the option when it is wrong', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['4/4', '1/0', '-1/2', '1', 'a/b']) expect(() => parseShard(bad)).toThrow(ValidationError);
    expect(() => parseShard('4/4')).toThrow(/--shard: must be i\/n with 0 <= i < n/);
  });

  it('refuses a bad grid, naming every key at fault with its line', () => {
    const bad = () => parseGrid('strategies.0.params.size: 0.001\nfoo bar: [1]\nrisk.maxOpenOrders: []\nx.y: [1, 1]\n', 'g.yaml');
    expect(bad).toThrow(ConfigErrors);
    try {
      bad();
    } catch (e) {
      expect((e as ConfigErrors).problems.map((p) => p.message)).toEqual([
        'strategies.0.params.size (line 1): must be a non-empty list of values, got 0.001',
        'foo bar (line 2): must be a dotted config path such as strategies.0.params.halfSpreadBps',
        'risk.maxOpenOrders (line 3): must be a non-empty list of values, got []',
        'x.y (line 4): lists a value twice: [1,1]',
      ]);
    }
    expect(() => parseGrid('[1, 2]', 'g.yaml')).toThrow(/must be a map from config paths to lists of values/);
  });

  it("sets a point's values in the config text, creating missing keys and keeping the rest", () => {
    const text = pointConfigText(CONFIG, 'c.yaml', { 'strategies.0.params.halfSpreadBps': 7, 'backtest.queue': { model: 'power', power: 2 } });
    expect(parse(text)).toEqual({
      accounts: [{ name: 'main', secretKey: 'x' }],
      strategies: [{ module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.001, halfSpreadBps: 7 } }],
      backtest: { queue: { model: 'power', power: 2 } },
    });
    expect(text).toContain('# the key');
  });

  it('names the grid key whose path runs past a list or through a value', () => {
    expect(() => pointConfigText(CONFIG, 'c.yaml', { 'strategies.1.params.size': 1 })).toThrow(ConfigError);
    expect(() => pointConfigText(CONFIG, 'c.yaml', { 'strategies.1.params.size': 1 })).toThrow(
      'strategies.1.params.size: strategies is a list of 1 in c.yaml; "1" is not one of its indexes',
    );
    expect(() => pointConfigText(CONFIG, 'c.yaml', { 'strategies.0.module.x': 1 })).toThrow(
      'strategies.0.module.x: strategies.0.module is the value "market-maker" in c.yaml, not a map or list',
    );
  });

  it('shortens keys to the shortest tail no other key shares', () => {
    expect(shortNames(['strategies.0.params.size', 'strategies.1.params.size', 'risk.maxOpenOrders'])).toEqual([
      '0.params.size',
      '1.params.size',
      'maxOpenOrders',
    ]);
  });
});
