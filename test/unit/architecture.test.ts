import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/**
 * Relative imports of each source file, resolved to repository paths. With `runtimeOnly`,
 * `import type` / `export type` lines are left out (erased by the compiler, they cannot form a load cycle).
 */
function importGraph(runtimeOnly = false): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(import|export)(\s+type\b)?[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)]
      .filter((m) => !(runtimeOnly && m[2]))
      .map((m) => relative(ROOT, resolve(dirname(file), (m[3] ?? m[4])!.replace(/\.js$/, '.ts'))));
    graph.set(relative(ROOT, file), targets);
  }
  return graph;
}

/** Top-level concern of a path: `src/protocol/v1/x.ts` → `protocol`; `src/cli.ts` → `cli`. */
function area(path: string): string {
  const parts = path.split('/');
  if (parts[0] !== 'src') return parts[0]!;
  return parts.length === 2 ? parts[1]!.replace(/\.ts$/, '') : parts[1]!;
}

/** Which areas each area may import (besides itself), from docs/architecture.md. */
const ALLOWED: Record<string, string[]> = {
  core: [],
  protocol: ['core'],
  client: ['core', 'protocol'],
  market: ['core', 'protocol', 'client'],
  account: ['core', 'protocol', 'client'],
  strategy: ['core', 'protocol', 'client', 'market', 'account'],
  risk: ['core', 'protocol'],
  execution: ['core', 'protocol', 'client', 'risk', 'account', 'market', 'store', 'telemetry'],
  store: ['core', 'protocol'],
  telemetry: ['core'],
  'venue-sim': ['core', 'protocol'],
  backtest: ['core', 'protocol', 'market', 'account', 'strategy', 'risk', 'execution', 'store', 'telemetry', 'venue-sim'],
  app: ['core', 'protocol', 'client', 'market', 'account', 'strategy', 'risk', 'execution', 'store', 'telemetry', 'venue-sim', 'backtest'],
  cli: ['core', 'app'],
};

describe('architecture', () => {
  const graph = importGraph();

  it('dependencies point one way between areas (architecture.md)', () => {
    const violations: string[] = [];
    for (const [file, targets] of graph) {
      const from = area(file);
      const allowed = ALLOWED[from];
      if (!allowed) {
        violations.push(`${file}: area ${from} has no dependency rule; add it to ALLOWED and docs`);
        continue;
      }
      for (const t of targets) {
        const to = area(t);
        if (to !== from && !allowed.includes(to)) violations.push(`${file} imports ${t} (${from} → ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('every relative import resolves to a file', () => {
    const missing = [...graph.entries()].flatMap(([file, targets]) => targets.filter((t) => !graph.has(t)).map((t) => `${file} → ${t}`));
    expect(missing).toEqual([]);
  });

  it('has no runtime import cycles between files', () => {
    const runtime = importGraph(true);
    const state = new Map<string, 1 | 2>();
    const cycles: string[] = [];
    const visit = (f: string, stack: string[]) => {
      if (state.get(f) === 2) return;
      if (state.get(f) === 1) {
        cycles.push([...stack.slice(stack.indexOf(f)), f].join(' → '));
        return;
      }
      state.set(f, 1);
      for (const t of runtime.get(f) ?? []) visit(t, [...stack, f]);
      state.set(f, 2);
    };
    for (const f of runtime.keys()) visit(f, []);
    expect(cycles).toEqual([]);
  });

  it('nothing in src imports strategies/, and every module starts with its purpose comment', () => {
    const bad: string[] = [];
    for (const file of graph.keys()) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      if (/from\s+'(?:\.\.\/)+strategies\//.test(text)) bad.push(`${file} imports strategies/`);
      const body = text.startsWith('#!') ? text.slice(text.indexOf('\n') + 1) : text;
      if (!body.startsWith('//')) bad.push(`${file} does not start with a comment`);
    }
    expect(bad).toEqual([]);
  });
});
