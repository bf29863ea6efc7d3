import { describe, expect, it } from 'vitest';
import { hasDigitRun16, parseJson, stringifyJson } from '../../../src/core/json.js';

describe('json with exact u64', () => {
  it('writes bigint as a bare integer without precision loss', () => {
    expect(stringifyJson({ nonce: 18446744073709551615n, a: [1n, 'x'] })).toBe('{"nonce":18446744073709551615,"a":[1,"x"]}');
    expect(stringifyJson({ a: 1 })).toBe('{"a":1}');
  });

  it('reads integers beyond 15 digits as exact decimal strings, leaving other numbers and strings alone', () => {
    const text = '{"nonce":1763770000000000123,"px":100.5,"neg":-12345678901234567,"s":"1234567890123456789","e":1e300,"small":123}';
    expect(parseJson(text)).toEqual({ nonce: '1763770000000000123', px: 100.5, neg: '-12345678901234567', s: '1234567890123456789', e: 1e300, small: 123 });
  });

  it('is not fooled by escaped quotes inside strings', () => {
    expect(parseJson('{"a":"x\\"1234567890123456789","b":1234567890123456789}')).toEqual({ a: 'x"1234567890123456789', b: '1234567890123456789' });
  });

  it('round-trips through stringifyJson', () => {
    const v = { nonce: 1763770000000000123n };
    expect(parseJson(stringifyJson(v))).toEqual({ nonce: '1763770000000000123' });
  });

  it('reads back 5,000 random documents exactly: big integers as decimal strings, strings with digits, quotes and backslashes untouched', () => {
    let seed = 11;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const digits = (k: number) => Array.from({ length: k }, () => String(rnd(10))).join('');
    const stringValue = () => Array.from({ length: rnd(6) }, () => ['"', '\\', ':', ',', digits(1 + rnd(20)), 'x', '\\"'][rnd(7)]).join('');
    for (let k = 0; k < 5000; k++) {
      const doc: Record<string, unknown> = {};
      const expected: Record<string, unknown> = {};
      for (let f = 0; f < 1 + rnd(8); f++) {
        const key = `${stringValue()}${f}`;
        const kind = rnd(5);
        const big = BigInt(`${rnd(2) ? '-' : ''}1${digits(15 + rnd(5))}`);
        const value = kind === 0 ? big : kind === 1 ? rnd(1e6) / 7 : kind === 2 ? stringValue() : kind === 3 ? [big, stringValue()] : rnd(1000);
        doc[key] = value;
        expected[key] = kind === 0 ? String(big) : kind === 3 ? [String(big), (value as unknown[])[1]] : value;
      }
      expect(parseJson(stringifyJson(doc))).toEqual(expected);
    }
  });

  it('the stride-16 digit-run probe agrees with /\\d{16}/ on 20,000 random texts', () => {
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    let positives = 0;
    for (let k = 0; k < 20_000; k++) {
      let t = '';
      const len = rnd(120);
      for (let i = 0; i < len; i++) t += rnd(10) < 8 ? String(rnd(10)) : ',:"x.'[rnd(5)];
      const expected = /\d{16}/.test(t);
      if (expected) positives++;
      expect(hasDigitRun16(t)).toBe(expected);
    }
    expect(positives).toBeGreaterThan(1000);
  });
});
