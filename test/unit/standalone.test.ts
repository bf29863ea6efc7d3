// The repository stands alone: nothing in it reaches outside the clone, and the copied references are unchanged.
// Invariant: every file named in docs/provenance.md hashes to the SHA-256 recorded there.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'data']);

function files(dir: string, ends: string[]): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p, ends);
    return ends.some((e) => name.endsWith(e)) ? [p] : [];
  });
}

/** Markdown files of the project itself (copied references are checked by hash, not link by link). */
const ownMarkdown = (): string[] =>
  files(ROOT, ['.md']).filter(
    (f) => !relative(ROOT, f).startsWith('docs/spec/') && !relative(ROOT, f).startsWith('docs/reference/') && !relative(ROOT, f).startsWith('test/fixtures/'),
  );

describe('the repository stands alone', () => {
  it('no source, test, config or script names a path outside the clone', () => {
    const outside = files(ROOT, ['.ts', '.js', '.yaml', '.yml', '.json', '.md', 'Dockerfile', 'run'])
      .filter(
        (f) =>
          !relative(ROOT, f).startsWith('docs/spec/') && !relative(ROOT, f).startsWith('docs/reference/') && !relative(ROOT, f).startsWith('test/fixtures/'),
      )
      .filter((f) => /\.\.\/shared\b|\/work\/shared/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(outside).toEqual([]);
  });

  it("every relative link of the project's Markdown resolves to a file in the clone", () => {
    const broken: string[] = [];
    for (const file of ownMarkdown()) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue;
        const path = resolve(dirname(file), target);
        if (!path.startsWith(ROOT + '/') || !existsSync(path)) broken.push(`${relative(ROOT, file)} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the copied specification, references and vectors are byte-for-byte the recorded originals', () => {
    const rows = [...readFileSync(join(ROOT, 'docs/provenance.md'), 'utf8').matchAll(/^\| `([^`]+)` \| `([0-9a-f]{64})` \|/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(7);
    for (const [, path, sha] of rows) {
      const actual = createHash('sha256')
        .update(readFileSync(join(ROOT, path!)))
        .digest('hex');
      expect({ path, sha: actual }).toEqual({ path, sha });
    }
  });

  it('LICENSE matches the licence package.json declares', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('Apache-2.0');
    const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(text).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(text).toMatch(/END OF TERMS AND CONDITIONS/);
  });

  it('the README says what a from-source build of the native SQLite binding needs', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 3));
    expect(quickStart).toMatch(/better-sqlite3/);
    expect(quickStart).toMatch(/python3, make and a C\+\+ compiler/);
    expect(quickStart).toMatch(/few\s+minutes/);
  });

  it('a package only tests use is a dev dependency', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const runtime = files(join(ROOT, 'src'), ['.ts'])
      .concat(files(join(ROOT, 'strategies'), ['.ts']))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const testOnly = Object.keys(pkg.dependencies).filter((name) => !runtime.includes(`'${name}'`) && !runtime.includes(`'${name}/`));
    expect(testOnly).toEqual([]);
  });
});
