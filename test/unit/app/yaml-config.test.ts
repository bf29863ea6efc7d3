import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadYamlFile, parseYamlText } from '../../../src/app/yaml-config.js';
import { venueConfigSchema } from '../../../src/app/venue-config.js';
import { ConfigError, ConfigErrors } from '../../../src/core/errors.js';
import { array, boolean, number, object, optional, string } from '../../../src/core/schema.js';

const STRICT = { strict: true } as const;
const schema = object(
  {
    name: optional(string()),
    port: optional(number({ integer: true, min: 0, max: 65535 })),
    on: optional(boolean()),
    token: optional(string()),
    list: optional(array(string())),
    inner: optional(object({ a: optional(number()), b: optional(string()) }, STRICT)),
  },
  STRICT,
);

/** The ConfigErrors thrown by `fn`. */
function errorsOf(fn: () => unknown): ConfigErrors {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigErrors) return e;
    throw e;
  }
  throw new Error('expected ConfigErrors');
}

const problems = (e: ConfigErrors) => e.problems.map((p) => [p.key, p.line]);

describe('YAML config files', () => {
  it('reports every schema problem at once, each with its key path and line, in file order', () => {
    const text = ['name: 5', 'port: 70000', 'inner:', '  a: x', '  c: 1', 'list: [a, 2]', 'extra: true'].join('\n');
    const e = errorsOf(() => parseYamlText(text, schema, 'my.yaml'));
    expect(e).toBeInstanceOf(ConfigError);
    expect(problems(e)).toEqual([
      ['name', 1],
      ['port', 2],
      ['inner.a', 4],
      ['inner.c', 5],
      ['list[1]', 6],
      ['extra', 7],
    ]);
    expect(e.message.split('\n')).toEqual([
      '6 problems in my.yaml:',
      '  name (line 1): expected string, got number',
      '  port (line 2): must be <= 65535, got 70000',
      '  inner.a (line 4): expected number, got string',
      '  inner.c (line 5): unknown field',
      '  list[1] (line 6): expected string, got number',
      '  extra (line 7): unknown field',
    ]);
    expect([e.key, e.line]).toEqual(['name', 1]);
  });

  it('reports every YAML syntax error with its line before validating anything', () => {
    const e = errorsOf(() => parseYamlText('a: 1\na: 2\nb: [1\nc: "x\n', schema, 'broken.yaml'));
    expect(e.problems.length).toBeGreaterThanOrEqual(2);
    expect(e.problems.every((p) => p.key === 'broken.yaml' && p.line !== undefined)).toBe(true);
    expect(e.problems[0]!.line).toBe(2);
  });

  it('a single problem still names its key and line (the venue config file)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-yaml-'));
    const file = join(dir, 'venue.yaml');
    writeFileSync(file, 'port: 8080\nflow:\n  makers: 0\n');
    const e = errorsOf(() => loadYamlFile(file, venueConfigSchema));
    expect(e.problems).toHaveLength(1);
    expect([e.key, e.line]).toEqual(['flow.makers', 3]);
    expect(e.message).toBe(`1 problem in ${file}:\n  flow.makers (line 3): must be >= 1, got 0`);
    writeFileSync(file, 'port: 8080\nseed: 7\n');
    expect(loadYamlFile(file, venueConfigSchema)).toEqual({ port: 8080, seed: 7 });
    expect(errorsOf(() => loadYamlFile(join(dir, 'missing.yaml'), venueConfigSchema)).message).toMatch(/cannot read: ENOENT/);
  });

  it('takes ${...} literally unless an environment is given', () => {
    expect(parseYamlText('name: ${X}\n', schema, 's')).toEqual({ name: '${X}' });
  });
});

describe('environment interpolation', () => {
  const env = { HOST: 'h.example', PORT: '9000', ON: 'false', EMPTY: '', INJECT: 'a: b\nc: [1, 2]', HASH: '# not a comment', NUM: '12' };
  const read = (text: string) => parseYamlText(text, schema, 's', { env });

  it('substitutes set variables and defaults in string values, leaving keys alone', () => {
    expect(read('name: "${HOST}:${PORT}"\nlist:\n  - x-${HOST}\n  - ${NOPE:-dflt}\ninner: {b: "${PORT}"}\n')).toEqual({
      name: 'h.example:9000',
      list: ['x-h.example', 'dflt'],
      inner: { b: '9000' },
    });
    expect(errorsOf(() => read('${HOST}: 1\n')).problems[0]!.key).toBe('${HOST}');
  });

  it('re-reads an unquoted whole placeholder as a YAML scalar; quoted, it stays a string', () => {
    expect(read('port: ${PORT}\non: ${ON}\ninner:\n  a: ${NOPE:-1.5}\n')).toEqual({ port: 9000, on: false, inner: { a: 1.5 } });
    expect(read('name: "${NUM}"\n')).toEqual({ name: '12' });
    expect(errorsOf(() => read('name: ${NUM}\n')).message).toBe('1 problem in s:\n  name (line 1): expected string, got number');
  });

  it('leaves a key unset when an unquoted whole placeholder is empty, so its default applies', () => {
    expect(read('token: ${EMPTY}\nport: ${NOPE:-}\nname: x\n')).toEqual({ name: 'x' });
    expect(read('token: "${NOPE:-}"\n')).toEqual({ token: '' });
  });

  it('never lets a value inject YAML structure', () => {
    expect(read('name: ${INJECT}\ntoken: ${HASH}\n')).toEqual({ name: 'a: b\nc: [1, 2]', token: '# not a comment' });
  });

  it('turns $${ into a literal ${', () => {
    expect(read('name: $${HOST}\n')).toEqual({ name: '${HOST}' });
  });

  it('reports every unset variable with its key path and line', () => {
    const e = errorsOf(() => read('name: ok\ninner:\n  b: ${MISSING_ONE}\nlist:\n  - fine\n  - pre-${MISSING_TWO}\n'));
    expect(e.message.split('\n')).toEqual([
      '2 problems in s:',
      '  inner.b (line 3): environment variable MISSING_ONE is not set',
      '  list[1] (line 6): environment variable MISSING_TWO is not set',
    ]);
  });
});
