import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.js';
import {
  array,
  boolean,
  checkedWhen,
  issues,
  literal,
  maybe,
  number,
  object,
  optional,
  parse,
  record,
  refine,
  safeParse,
  string,
  transform,
  union,
  type Schema,
} from '../../../src/core/schema.js';

const STRICT = { strict: true } as const;
const item = object({ id: string({ minLength: 1 }), qty: number({ integer: true, min: 1 }) }, STRICT);
const config = object(
  {
    name: string({ maxLength: 8 }),
    items: array(item, { maxLength: 4 }),
    limits: record(number({ gt: 0 }), { key: string({ pattern: /^[A-Z]+$/, patternName: 'upper-case letters' }) }),
    mode: optional(literal('a', 'b')),
    nested: optional(object({ on: boolean(), level: maybe(number()) }, STRICT)),
  },
  STRICT,
);

/** The error `parse` throws, as an issue. */
function parseError(s: Schema<unknown>, value: unknown, root = ''): { field: string; message: string } {
  try {
    parse(s, value, root);
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    return { field: e.field, message: e.field ? e.message.slice(e.field.length + 2) : e.message };
  }
  throw new Error('expected parse to fail');
}

describe('schema issues', () => {
  it('is empty for valid values, exactly when parse succeeds', () => {
    expect(issues(config, { name: 'x', items: [{ id: 'a', qty: 1 }], limits: { A: 1 } })).toEqual([]);
  });

  it('reports every field of nested objects, arrays and records, with full paths under the root', () => {
    const bad = {
      name: 'far too long',
      items: [{ id: '', qty: 1 }, { id: 'b', qty: 0.5, extra: true }, 'x'],
      limits: { A: 0, low: 2 },
      mode: 'c',
      nested: { level: 'high' },
      surplus: 1,
    };
    expect(issues(config, bad, 'cfg')).toEqual([
      { field: 'cfg.surplus', message: 'unknown field' },
      { field: 'cfg.name', message: 'string longer than 8 characters' },
      { field: 'cfg.items[0].id', message: 'must not be empty' },
      { field: 'cfg.items[1].extra', message: 'unknown field' },
      { field: 'cfg.items[1].qty', message: 'expected an integer, got 0.5' },
      { field: 'cfg.items[2]', message: 'expected object, got string' },
      { field: 'cfg.limits.A', message: 'must be > 0, got 0' },
      { field: 'cfg.limits.low', message: 'expected upper-case letters, got "low"' },
      { field: 'cfg.mode', message: 'expected "a" | "b", got "c"' },
      { field: 'cfg.nested.on', message: 'missing field' },
      { field: 'cfg.nested.level', message: 'expected number, got string' },
    ]);
  });

  it('reports a container-level failure once, without looking inside', () => {
    expect(issues(config, { name: 'x', items: [item, item, item, item, item], limits: [] })).toEqual([
      { field: 'items', message: 'array longer than 4' },
      { field: 'limits', message: 'expected object, got array' },
    ]);
    expect(issues(config, null)).toEqual([{ field: '', message: 'expected object, got null' }]);
  });

  it('looks through refine, transform and checkedWhen to the objects inside; their own check runs once the inside is valid', () => {
    const pair = object({ lo: number(), hi: number() }, STRICT);
    const ordered = refine(pair, (p) => (p.lo <= p.hi ? undefined : 'lo must not exceed hi'));
    const s = object({
      range: transform(optional(ordered), (r) => r ?? { lo: 0, hi: 1 }),
      when: checkedWhen(object({ on: boolean() }), (w) => w.on, object({ why: string() })),
    });
    expect(issues(s, { range: { lo: 'x', hi: 'y' }, when: { on: true } })).toEqual([
      { field: 'range.lo', message: 'expected number, got string' },
      { field: 'range.hi', message: 'expected number, got string' },
      { field: 'when.why', message: 'missing field' },
    ]);
    expect(issues(s, { range: { lo: 2, hi: 1 }, when: { on: false } })).toEqual([{ field: 'range', message: 'lo must not exceed hi' }]);
    expect(parse(s, { when: { on: false } })).toEqual({ range: { lo: 0, hi: 1 }, when: { on: false } });
  });

  it('reports only the first failure of a union', () => {
    const s = object({ u: union([number(), object({ k: string(), j: string() })]) });
    expect(issues(s, { u: {} })).toEqual([parseError(s, { u: {} })]);
    expect(issues(s, { u: {} })).toHaveLength(1);
  });

  it('leaves parse unchanged: its error is still the first issue, and safeParse agrees on validity (property)', () => {
    const values = fc.record(
      {
        name: fc.oneof(fc.string({ maxLength: 12 }), fc.integer()),
        items: fc.array(
          fc.oneof(
            fc.record({ id: fc.string({ maxLength: 2 }), qty: fc.oneof(fc.integer({ min: -1, max: 3 }), fc.double()) }, { requiredKeys: [] }),
            fc.constant(null),
          ),
          { maxLength: 6 },
        ),
        limits: fc.dictionary(fc.constantFrom('A', 'B', 'c'), fc.oneof(fc.double(), fc.string())),
        mode: fc.constantFrom('a', 'b', 'z', undefined),
        nested: fc.option(
          fc.record({ on: fc.boolean(), level: fc.option(fc.oneof(fc.integer(), fc.string())), x: fc.integer() }, { requiredKeys: ['level'] }),
          { nil: undefined },
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(values, (v) => {
        const found = issues(config, v, 'c');
        const ok = safeParse(config, v).ok;
        expect(found.length === 0).toBe(ok);
        if (!ok) expect(found[0]).toEqual(parseError(config, v, 'c'));
      }),
      { numRuns: 300 },
    );
  });
});
