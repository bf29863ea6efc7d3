import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, ValidationError } from '../../../src/core/errors.js';
import { isStrategyDefinition } from '../../../src/strategy/api.js';
import {
  BUILTIN_STRATEGY_DIR,
  builtinStrategyNames,
  loadStrategies,
  loadStrategy,
  MODULE_EXTENSIONS,
  resolveStrategyModule,
  StrategyLoadError,
} from '../../../src/strategy/loader.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const FIXTURES = join(import.meta.dirname, 'fixtures');
const good = { module: './good.ts', params: { size: 1, ladder: { levels: 2 } } };

async function loadError(spec: Parameters<typeof loadStrategy>[0], key = 'strategies[0]'): Promise<Error> {
  return loadStrategy(spec, { baseDir: FIXTURES, key }).then(
    () => {
      throw new Error('expected the load to fail');
    },
    (e: Error) => e,
  );
}

describe('resolving strategy modules', () => {
  it('looks built-ins up in strategies/, preferring .ts while running TypeScript', () => {
    expect(BUILTIN_STRATEGY_DIR).toBe(join(ROOT, 'strategies'));
    expect(MODULE_EXTENSIONS[0]).toBe('.ts');
    expect(resolveStrategyModule('market-maker')).toEqual({ ok: true, file: join(ROOT, 'strategies', 'market-maker.ts') });
    expect(builtinStrategyNames()).toContain('market-maker');
  });

  it('prefers .js in a compiled layout (dist/strategies/x.js next to its sources)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-strategies-'));
    writeFileSync(join(dir, 'x.js'), '');
    writeFileSync(join(dir, 'x.ts'), '');
    writeFileSync(join(dir, 'x.js.map'), '');
    writeFileSync(join(dir, 'README.md'), '');
    const compiled = { builtinDir: dir, extensions: ['.js', '.mjs', '.ts'] };
    expect(resolveStrategyModule('x', compiled)).toEqual({ ok: true, file: join(dir, 'x.js') });
    expect(resolveStrategyModule('x', { builtinDir: dir })).toEqual({ ok: true, file: join(dir, 'x.ts') });
    expect(builtinStrategyNames(compiled)).toEqual(['x']);
  });

  it('resolves paths against baseDir as written, then with the extension added or swapped', () => {
    const file = join(FIXTURES, 'good.ts');
    expect(resolveStrategyModule('./good.ts', { baseDir: FIXTURES })).toEqual({ ok: true, file });
    expect(resolveStrategyModule('./good', { baseDir: FIXTURES })).toEqual({ ok: true, file });
    expect(resolveStrategyModule('./good.js', { baseDir: FIXTURES })).toEqual({ ok: true, file });
    expect(resolveStrategyModule(file)).toEqual({ ok: true, file });
    expect(resolveStrategyModule(pathToFileURL(file).href)).toEqual({ ok: true, file });
    const missing = resolveStrategyModule('./nope', { baseDir: FIXTURES });
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.tried).toContain(join(FIXTURES, 'nope.ts'));
  });

  it.skipIf(!existsSync(join(ROOT, 'dist/src/strategy/loader.js')))('the compiled loader finds dist/strategies/market-maker.js', async () => {
    const compiled = (await import(pathToFileURL(join(ROOT, 'dist/src/strategy/loader.js')).href)) as typeof import('../../../src/strategy/loader.js');
    expect(compiled.resolveStrategyModule('market-maker')).toEqual({ ok: true, file: join(ROOT, 'dist/strategies/market-maker.js') });
    const loaded = await compiled.loadStrategy({ module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.001, maxPosition: 0.01 } });
    expect(isStrategyDefinition(loaded.definition)).toBe(true);
  });
});

describe('loadStrategy', () => {
  it('loads the built-in market maker by name with validated, defaulted params', async () => {
    const loaded = await loadStrategy({ name: 'mm-btc', module: 'market-maker', params: { symbol: 'BTC-USD', size: 0.001, maxPosition: 0.01 } });
    expect(loaded).toMatchObject({ name: 'mm-btc', module: 'market-maker', symbols: ['BTC-USD'], params: { levels: 1, minIntervalMs: 250 } });
    expect(loaded.definition.name).toBe('market-maker');
  });

  it('loads a module by path; the instance name defaults to the definition name', async () => {
    const loaded = await loadStrategy(good, { baseDir: FIXTURES });
    expect(loaded).toMatchObject({
      name: 'fixture-good',
      file: join(FIXTURES, 'good.ts'),
      params: { symbol: 'BTC-USD', size: 1, ladder: { levels: 2 } },
      symbols: ['BTC-USD'],
    });
  });

  it('names the module key when the module is missing, listing the built-ins', async () => {
    const e = await loadError({ module: 'no-such-strategy' }, 'strategies[3]');
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).key).toBe('strategies[3].module');
    expect(e.message).toMatch(/no strategy module "no-such-strategy".*built-in strategies: .*market-maker/);
  });

  it('refuses a module without a default export', async () => {
    const e = await loadError({ module: './no-default.ts' });
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.message).toMatch(/^strategies\[0\]\.module: .*no-default\.ts has no default export/);
  });

  it('refuses a default export not made by defineStrategy', async () => {
    const e = await loadError({ module: './not-defined.ts' }, 'strategies[1]');
    expect(e.message).toMatch(/^strategies\[1\]\.module: the default export of .*not-defined\.ts is a plain object not made by defineStrategy/);
  });

  it('reports a module that throws while loading, or that defineStrategy refused', async () => {
    expect((await loadError({ module: './throws.ts' })).message).toMatch(/^strategies\[0\]\.module: cannot load .*throws\.ts: boom while loading/);
    expect((await loadError({ module: './bad-name.ts' })).message).toMatch(
      /cannot load .*bad-name\.ts: strategy name must be lower-case words joined by dashes, got "Bad Name"/,
    );
  });

  it('names the param path of bad params', async () => {
    const e = await loadError({ module: './good.ts', params: { size: 1, ladder: { levels: 0 } } }, 'strategies[2]');
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).field).toBe('strategies[2].params.ladder.levels');
    expect(e.message).toBe('strategies[2].params.ladder.levels: must be >= 1, got 0');
    expect((await loadError({ module: './good.ts', params: { size: 1, ladder: { levels: 1 }, extra: true } })).message).toBe(
      'strategies[0].params.extra: unknown field',
    );
    const all = await loadError({ module: './good.ts', params: { ladder: { levels: 0 } } });
    expect(all).toBeInstanceOf(StrategyLoadError);
    expect((all as StrategyLoadError).problems.map((p) => p.message)).toEqual([
      'strategies[0].params.size: missing field',
      'strategies[0].params.ladder.levels: must be >= 1, got 0',
    ]);
  });

  it('runs the params validator once for valid params', async () => {
    const runs = globalThis as { __perpbotParamRuns?: number };
    runs.__perpbotParamRuns = 0;
    await loadStrategy({ module: './counting.ts', params: { any: 1 } }, { baseDir: FIXTURES });
    expect(runs.__perpbotParamRuns).toBe(1);
  });

  it('refuses a bad instance name', async () => {
    const e = await loadError({ ...good, name: 'has space' });
    expect((e as ConfigError).key).toBe('strategies[0].name');
  });
});

describe('loadStrategies', () => {
  it('lists every problem at once, duplicates included', async () => {
    const e = await loadStrategies(
      [good, { module: './no-default.ts' }, { ...good, params: { size: -1, ladder: { levels: 1 } } }, good, { ...good, name: 'second' }],
      { baseDir: FIXTURES },
    ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StrategyLoadError);
    const problems = (e as StrategyLoadError).problems;
    expect(problems.map((p) => (p instanceof ConfigError ? p.key : p.field))).toEqual([
      'strategies[1].module',
      'strategies[2].params.size',
      'strategies[3].name',
    ]);
    expect(problems[2]!.message).toContain('duplicate strategy name "fixture-good" (also strategies[0])');
    expect((e as Error).message).toMatch(/^3 problems in strategies:\n {2}strategies\[1\]\.module/);
  });

  it('returns the loaded strategies in order', async () => {
    const loaded = await loadStrategies([good, { ...good, name: 'second' }], { baseDir: FIXTURES });
    expect(loaded.map((s) => s.name)).toEqual(['fixture-good', 'second']);
  });
});
