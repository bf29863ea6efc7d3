// The compiled daemon (dist/src/cli.js, plain Node) loads a TypeScript plugin as it is, with its own TypeScript imports, and
// reports a broken one (syntax, a throw at import, a default export not from defineStrategy, bad params) naming the file and key.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'dist/src/cli.js');
// A user's project: `perpbot` is this package (through its exports, dist/), `rxjs` its dependency.
const dir = mkdtempSync(join(tmpdir(), 'perpbot-ts-plugin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, 'node_modules'));
symlinkSync(ROOT, join(dir, 'node_modules/perpbot'));
symlinkSync(join(ROOT, 'node_modules/rxjs'), join(dir, 'node_modules/rxjs'));

function checkConfig(name: string, strategies: string[]) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, ['venue: {mode: local}', 'accounts: [{name: main, keyFile: ./main.key, createKey: true}]', 'strategies:', ...strategies, ''].join('\n'));
  const r = spawnSync(process.execPath, [CLI, 'check-config', file], { encoding: 'utf8', cwd: dir, timeout: 60_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
writeFileSync(join(dir, 'offset.ts'), 'export const offsetOf = (mid: number, bps: number): number => (mid * bps) / 1e4;\n');
writeFileSync(
  join(dir, 'typed.ts'),
  `import { EMPTY } from 'rxjs';
import { defineStrategy, schema as s, symbolSchema, type Infer } from 'perpbot';
import { offsetOf } from './offset.js';

interface Unused { readonly a: number }
enum Side { Buy = 'buy' }
const params = s.object({ symbol: symbolSchema, size: s.number({ gt: 0 }) }, { strict: true });
type Params = Infer<typeof params>;

export default defineStrategy<Params>({
  name: 'typed',
  params,
  symbols: (p) => [p.symbol],
  create: () => (offsetOf(100, 1) === 0.01 && Side.Buy === 'buy' ? EMPTY : EMPTY),
});
`,
);
mkdirSync(join(dir, 'cjs'));
writeFileSync(join(dir, 'cjs/package.json'), JSON.stringify({ type: 'commonjs' }));
writeFileSync(join(dir, 'cjs/typed.ts'), readFileSync(join(dir, 'typed.ts'), 'utf8').replace("'./offset.js'", "'../offset.js'"));
writeFileSync(join(dir, 'syntax.ts'), "import { defineStrategy } from 'perpbot';\nexport default defineStrategy({ name: 'syntax', \n");
writeFileSync(join(dir, 'throws.ts'), "const n: number = 1;\nif (n === 1) throw new Error('no API key in the environment');\nexport default n;\n");
writeFileSync(join(dir, 'plain.ts'), 'export default { name: "plain" } as const;\n');

describe('TypeScript strategy plugins in the compiled daemon', () => {
  it('loads a plugin with types, an enum and a TypeScript import, and checks its params against the same schema instance', () => {
    const ok = checkConfig('ok', ['  - {module: ./typed.ts, params: {symbol: BTC-USD, size: 0.01}}']);
    expect(ok.out).toContain('ok.yaml: ok (1 account, 1 strategy');
    expect(ok.status).toBe(0);
    const bad = checkConfig('bad-params', ['  - {module: ./typed.ts, params: {symbol: BTC-USD, size: -1, extra: 1}}']);
    expect(bad.status).toBe(1);
    expect(bad.out).toContain('strategies[0].params.size (line 4): must be > 0, got -1');
    expect(bad.out).toContain('strategies[0].params.extra (line 4): unknown field');
  });

  it('loads one compiled to CommonJS (its package has no "type": "module") and names each bad param the same way', () => {
    const r = checkConfig('cjs', [
      '  - {module: ./cjs/typed.ts, params: {symbol: BTC-USD, size: 0.01}}',
      '  - {name: two, module: ./cjs/typed.ts, params: {symbol: BTC-USD, size: -1, extra: 1}}',
    ]);
    expect(r.status).toBe(1);
    expect(r.out).toContain('2 problems in');
    expect(r.out).toContain('strategies[1].params.size (line 5): must be > 0, got -1');
    expect(r.out).toContain('strategies[1].params.extra (line 5): unknown field');
  });

  it('names the key and the file of a plugin that does not parse, throws at import or exports something else', () => {
    const r = checkConfig('broken', ['  - module: ./syntax.ts', '  - module: ./throws.ts', '  - module: ./plain.ts']);
    expect(r.status).toBe(1);
    expect(r.out).toContain('3 problems in');
    expect(r.out).toMatch(/strategies\[0\]\.module \(line 4\): cannot load .*syntax\.ts: .*syntax\.ts:3:0: ERROR: Expected .* but found end of file/);
    expect(r.out).toMatch(/strategies\[1\]\.module \(line 5\): cannot load .*throws\.ts: no API key in the environment/);
    expect(r.out).toMatch(/strategies\[2\]\.module \(line 6\): the default export of .*plain\.ts is a plain object not made by defineStrategy/);
  });
});
