import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.js';
import {
  array,
  boolean,
  literal,
  maybe,
  number,
  object,
  oneKey,
  optional,
  parse,
  record,
  safeParse,
  string,
  tuple,
  u64,
  union,
} from '../../../src/core/schema.js';

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ValidationError) return e.field;
    throw e;
  }
  throw new Error('expected a ValidationError');
}

describe('schema', () => {
  const item = object({ c: string({ maxLength: 8 }), sz: number({ gt: 0 }), r: optional(boolean()) }, { strict: true });
  const body = object({ action: object({ orders: array(oneKey({ order: item, cancel: object({ oid: string() }) }), { maxLength: 3 }) }), nonce: u64() });

  it('returns the input unchanged (no copy) when nothing transforms', () => {
    const v = { c: 'BTC', sz: 1 };
    expect(parse(item, v)).toBe(v);
  });

  it('names the deepest failing field with its full path', () => {
    const bad = { action: { orders: [{ order: { c: 'BTC', sz: 1 } }, { order: { c: 'BTC', sz: -1 } }] }, nonce: 1 };
    expect(fieldOf(() => parse(body, bad, 'body'))).toBe('body.action.orders[1].order.sz');
    expect(fieldOf(() => parse(body, { ...bad, nonce: 'x' }))).toBe('action.orders[1].order.sz');
    expect(fieldOf(() => parse(item, { c: 'BTC', sz: 1, extra: 1 }))).toBe('extra');
    expect(fieldOf(() => parse(item, { c: 'BTC' }))).toBe('sz');
    expect(fieldOf(() => parse(body, { action: { orders: [{ nope: {} }] }, nonce: 1 }))).toBe('action.orders[0].nope');
    expect(fieldOf(() => parse(body, { action: { orders: [{}, {}, {}, {}] }, nonce: 1 }))).toBe('action.orders');
  });

  it('rejects NaN, Infinity, wrong types and oversize strings with a clear message', () => {
    expect(() => parse(number(), NaN, 'px')).toThrow('px: expected a finite number, got NaN');
    expect(() => parse(number(), Infinity, 'px')).toThrow(/finite/);
    expect(() => parse(number(), '1', 'px')).toThrow('px: expected number, got string');
    expect(() => parse(string({ maxLength: 4 }), 'abcde', 's')).toThrow(/longer than 4/);
    expect(() => parse(number({ integer: true }), 1.5)).toThrow(/integer/);
  });

  it('u64 accepts safe integers, decimal strings and bigint, rejecting everything else', () => {
    expect(parse(u64(), 42)).toBe(42n);
    expect(parse(u64(), '18446744073709551615')).toBe(18446744073709551615n);
    expect(parse(u64(), 7n)).toBe(7n);
    for (const bad of [-1, 1.5, 2 ** 60, '18446744073709551616', '-1', '01', '1e3', null, true]) {
      expect(safeParse(u64(), bad).ok).toBe(false);
    }
  });

  it('transforming schemas build new objects and arrays with the transformed values', () => {
    const s = object({ n: u64(), list: array(u64()), t: tuple([u64(), string()]), m: record(u64()) });
    expect(parse(s, { n: '5', list: [1, '2'], t: [3, 'x'], m: { a: 4 } })).toEqual({ n: 5n, list: [1n, 2n], t: [3n, 'x'], m: { a: 4n } });
  });

  it('union, literal and maybe', () => {
    const s = union([literal('a', 'b'), number()]);
    expect(parse(s, 'a')).toBe('a');
    expect(parse(s, 3)).toBe(3);
    expect(safeParse(s, 'c').ok).toBe(false);
    const m = object({ x: maybe(number()) });
    expect(parse(m, { x: null })).toEqual({ x: null });
    expect(parse(m, {})).toEqual({});
  });
});
