import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every module specifier of a file as the TypeScript compiler reads it: static, type-only, re-export, side-effect, literal dynamic. */
function specifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

interface Graph {
  /** Relative imports resolved to repository paths, per source file. */
  readonly local: Map<string, string[]>;
  /** Package (bare or node:) specifiers per source file. */
  readonly packages: Map<string, string[]>;
}

/** The import graph of source texts keyed by repository path. */
function graphOf(sources: ReadonlyMap<string, string>): Graph {
  const local = new Map<string, string[]>();
  const packages = new Map<string, string[]>();
  for (const [file, text] of sources) {
    const all = specifiers(text);
    local.set(
      file,
      all.filter((s) => s.startsWith('.')).map((s) => relative(ROOT, resolve(ROOT, dirname(file), s.replace(/\.js$/, '.ts')))),
    );
    packages.set(
      file,
      all.filter((s) => !s.startsWith('.')),
    );
  }
  return { local, packages };
}

const importGraph = (): Graph => graphOf(new Map(files(SRC).map((f) => [relative(ROOT, f), readFileSync(f, 'utf8')])));

/** Top-level concern of a path: `src/protocol/v1/x.ts` → `protocol`; `src/cli.ts` → `cli`. */
function area(path: string): string {
  const parts = path.split('/');
  if (parts[0] !== 'src') return parts[0]!;
  return parts.length === 2 ? parts[1]!.replace(/\.ts$/, '') : parts[1]!;
}

interface Rule {
  readonly mayImport: readonly string[];
  readonly neverPackages: readonly string[];
}

/** The table under "Dependency rules (enforced)" in docs/architecture.md. */
function documentedRules(): Map<string, Rule> {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Dependency rules (enforced)'));
  const rules = new Map<string, Rule>();
  const list = (cell: string) =>
    cell
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  for (const [, name, may, never] of section.matchAll(/^\| ([a-z-]+) \|([^|]*)\|([^|]*)\|$/gm)) {
    if (name === 'area') continue;
    rules.set(name!, { mayImport: list(may!), neverPackages: list(never!) });
  }
  return rules;
}

/** Every cycle the depth-first walk meets, each as `a → b → … → a`. */
function cycles(graph: Map<string, string[]>): string[] {
  const state = new Map<string, 1 | 2>();
  const found: string[] = [];
  const visit = (f: string, stack: string[]) => {
    if (state.get(f) === 2) return;
    if (state.get(f) === 1) {
      found.push([...stack.slice(stack.indexOf(f)), f].join(' → '));
      return;
    }
    state.set(f, 1);
    for (const t of graph.get(f) ?? []) visit(t, [...stack, f]);
    state.set(f, 2);
  };
  for (const f of graph.keys()) visit(f, []);
  return found;
}

describe('architecture', () => {
  const graph = importGraph();
  const rules = documentedRules();

  it('the compiler-based parser sees every import form', () => {
    const text = [
      `import a from './single.js';`,
      `import { b } from "./double.js";`,
      `import type { C } from './type-only.js';`,
      `import './side-effect.js';`,
      `export { d } from './re-export.js';`,
      `export type { E } from './type-re-export.js';`,
      `export * from './star.js';`,
      `const f = await import('./dynamic.js');`,
      `import {\n  g,\n  h,\n} from './multi-line.js';`,
    ].join('\n');
    expect(specifiers(text)).toEqual([
      './single.js',
      './double.js',
      './type-only.js',
      './side-effect.js',
      './re-export.js',
      './type-re-export.js',
      './star.js',
      './dynamic.js',
      './multi-line.js',
    ]);
  });

  it('docs/architecture.md has a rule for every area of src/', () => {
    expect(rules.size).toBeGreaterThanOrEqual(13);
    const areas = new Set([...graph.local.keys()].map(area));
    expect([...areas].filter((a) => !rules.has(a))).toEqual([]);
  });

  it('dependencies point one way between areas, exactly as docs/architecture.md allows', () => {
    const violations: string[] = [];
    for (const [file, targets] of graph.local) {
      const from = area(file);
      const rule = rules.get(from);
      if (!rule) continue;
      for (const t of targets) {
        const to = area(t);
        if (to !== from && !rule.mayImport.includes(to)) violations.push(`${file} imports ${t} (${from} → ${to})`);
      }
      for (const p of graph.packages.get(file) ?? []) if (rule.neverPackages.includes(p)) violations.push(`${file} imports ${p}`);
    }
    expect(violations).toEqual([]);
  });

  it('every relative import resolves to a file', () => {
    const missing = [...graph.local.entries()].flatMap(([file, targets]) => targets.filter((t) => !graph.local.has(t)).map((t) => `${file} → ${t}`));
    expect(missing).toEqual([]);
  });

  it('has no import cycles between files, type-only imports included', () => {
    expect(cycles(graph.local)).toEqual([]);
  });

  it('finds a cycle, and a cycle through a type-only import', () => {
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
      ),
    ).toEqual(['a → b → a']);
    const typeOnly = graphOf(
      new Map([
        ['src/x.ts', `import type { Y } from './y.js';`],
        ['src/y.ts', `import { x } from './x.js';`],
      ]),
    ).local;
    expect(cycles(typeOnly)).toEqual(['src/x.ts → src/y.ts → src/x.ts']);
  });

  it('nothing in src imports strategies/, and every module starts with its purpose comment', () => {
    const bad: string[] = [];
    for (const file of graph.local.keys()) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      if (specifiers(text).some((s) => /^(?:\.\.\/)+strategies\//.test(s))) bad.push(`${file} imports strategies/`);
      const body = text.startsWith('#!') ? text.slice(text.indexOf('\n') + 1) : text;
      if (!body.startsWith('//')) bad.push(`${file} does not start with a comment`);
    }
    expect(bad).toEqual([]);
  });
});
