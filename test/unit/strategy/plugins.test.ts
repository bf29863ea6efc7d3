import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isStrategyDefinition } from '../../../src/strategy/api.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const DIR = join(ROOT, 'strategies');
const plugins = readdirSync(DIR).filter((f) => f.endsWith('.ts'));

describe('built-in strategies (strategies/)', () => {
  it('exist', () => {
    expect(plugins).toContain('market-maker.ts');
  });

  it.each(plugins)('%s imports no project file but src/strategy/api.ts', (file) => {
    const text = readFileSync(join(DIR, file), 'utf8');
    const relativeImports = [...text.matchAll(/from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)].map((m) =>
      relative(ROOT, resolve(dirname(join(DIR, file)), (m[1] ?? m[2])!)),
    );
    expect(relativeImports.filter((p) => p !== 'src/strategy/api.js')).toEqual([]);
    expect(text.startsWith('//')).toBe(true);
  });

  it.each(plugins)('%s default-exports a definition and is listed in strategies/README.md', async (file) => {
    const mod = (await import(pathToFileURL(join(DIR, file)).href)) as { default: unknown };
    expect(isStrategyDefinition(mod.default)).toBe(true);
    expect(readFileSync(join(DIR, 'README.md'), 'utf8')).toContain(`\`${file.replace(/\.ts$/, '')}\``);
  });
});
