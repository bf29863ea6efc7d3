// The error catalogue stays honest: docs/errors.md documents exactly the codes the source raises, and ERROR_CODES
// (the ErrorCode type) is that same list.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigErrors, ERROR_CODES, PerpbotError, ValidationError } from '../../../src/core/errors.js';

const ROOT = resolve(import.meta.dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(path) : e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Codes given as literals where errors are made: a subclass's `super('CODE', …)` and `new PerpbotError('CODE', …)`. */
function codesRaisedInSource(): Set<string> {
  const codes = new Set<string>();
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\b(?:super|new PerpbotError)\(\s*'([A-Z][A-Z0-9_]*)'/g)) codes.add(m[1]!);
  }
  return codes;
}

/** The codes docs/errors.md documents: one `### \`CODE\`` heading each. */
function documentedCodes(): string[] {
  const text = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
  return [...text.matchAll(/^### `([^`]+)`\s*$/gm)].map((m) => m[1]!);
}

describe('error catalogue', () => {
  it('docs/errors.md documents every code the source raises, once, and no other', () => {
    const documented = documentedCodes();
    expect(new Set(documented).size, 'a code documented twice').toBe(documented.length);
    expect([...documented].sort()).toEqual([...codesRaisedInSource()].sort());
  });

  it('ERROR_CODES is the same list, of stable UPPER_SNAKE codes', () => {
    expect([...ERROR_CODES].sort()).toEqual([...codesRaisedInSource()].sort());
    for (const code of ERROR_CODES) expect(code).toMatch(/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/);
  });

  it('a PerpbotError carries its code, cause and class name', () => {
    const cause = new Error('EADDRINUSE');
    const e = new ConfigError('telemetry.port', 'port 9464 is in use', 3, { cause });
    expect(e).toBeInstanceOf(PerpbotError);
    expect([e.code, e.name, e.message, e.cause]).toEqual(['CONFIG', 'ConfigError', 'telemetry.port (line 3): port 9464 is in use', cause]);
    const all = new ConfigErrors('mine.yaml', [e, new ConfigError('venue.mode', 'unknown mode', 2)]);
    expect([all.code, all.key, all.line]).toEqual(['CONFIG', 'telemetry.port', 3]);
    expect(all.message).toBe('2 problems in mine.yaml:\n  telemetry.port (line 3): port 9464 is in use\n  venue.mode (line 2): unknown mode');
    expect(new ValidationError('orders[0].sz', 'must be > 0').message).toBe('orders[0].sz: must be > 0');
  });
});
