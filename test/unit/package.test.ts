// What `npm pack` puts in the published package: the compiled library, CLI and built-in strategies, never the benches.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the packed package', () => {
  it('holds dist/src and dist/strategies (the exports and the bin) and no compiled bench', { timeout: 60_000 }, () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).toContain('dist/src/cli.js');
    expect(files).toContain('dist/src/strategy/api.d.ts');
    expect(files).toContain('dist/strategies/market-maker.js');
    expect(files.filter((f) => f.startsWith('dist/bench/'))).toEqual([]);
  });
});
