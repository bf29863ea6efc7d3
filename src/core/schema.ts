// Minimal runtime validators that carry their TypeScript type (schema and type together).
// Invariant: a successful parse allocates nothing unless a schema transforms (u64, defaults).

import { ValidationError } from './errors.js';
import { compileObjectBuilder, compilePredicate, num, type BuiltField, type Gen } from './schema-compile.js';

type PathPart = string | number;

const FAIL: unique symbol = Symbol.for('perpbot.schema-failure');

/**
 * Thrown internally while unwinding; converted to ValidationError at the public boundary. Recognised across copies of
 * this module: a strategy plugin may bring its own (compiled to CommonJS, or another install of perpbot).
 */
class Fail {
  readonly [FAIL] = true;
  readonly path: PathPart[] = [];
  constructor(readonly message: string) {}

  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [FAIL]?: unknown })[FAIL] === true;
  }
}

export interface Schema<T> {
  /** Validates `value`; returns it (or its transformed form). Throws an internal failure. */
  readonly run: (value: unknown) => T;
  /** True when `run` may return something other than its input. */
  readonly transforms: boolean;
  /** Short human description used in error messages ("string", "number", ...). */
  readonly expected: string;
  readonly optional?: boolean;
  /** Emits this schema's checks as code (see schema-compile.ts); composites inline their children's. */
  readonly gen?: Gen;
  /**
   * Builds the output for a value the checks accepted (a transforming schema; `run` when absent). It checks nothing
   * itself, though a `transform` callback may still fail.
   */
  readonly convert?: (value: unknown) => T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

function fail(message: string): never {
  throw new Fail(message);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

function schema<T>(expected: string, run: (value: unknown) => T, transforms = false, gen?: Gen, convert?: (value: unknown) => T): Schema<T> {
  return { run, expected, transforms, ...(gen && { gen }), ...(convert && { convert }) };
}

/** What builds `s`'s output for a value its checks accepted: nothing for a schema that returns its input. */
function converterOf<T>(s: Schema<T>): ((value: unknown) => T) | undefined {
  return s.transforms ? (s.convert ?? s.run) : undefined;
}

/** Code checking `x` against `s`: its own generator, or a call of its `run` reporting success as a boolean. */
function genOf(s: Schema<unknown>): Gen {
  if (s.gen) return s.gen;
  const ok = (v: unknown): boolean => {
    try {
      s.run(v);
      return true;
    } catch (e) {
      if (e instanceof Fail) return false;
      throw e;
    }
  };
  return (x, e) => `if (!${e.ref(ok)}(${x})) return false;`;
}

/** One validation problem: the field path (dot/bracket form under a root) and what is wrong there. */
export interface Issue {
  readonly field: string;
  readonly message: string;
}

/** Appends every failure of a value to `out`, each path prefixed with `path`. */
type Collect = (value: unknown, path: readonly PathPart[], out: Fail[]) => void;

const COLLECTORS: unique symbol = Symbol.for('perpbot.schema-collectors');

/**
 * Collectors of the schemas that can report more than one failure (objects, arrays, records and the
 * wrappers around them). Kept beside the schemas, not on them, so `run` and its hot paths are untouched; one map for
 * every copy of this module (on globalThis), so `issues` lists each problem of a schema made by another copy.
 */
const collectors: WeakMap<Schema<unknown>, Collect> = ((globalThis as { [COLLECTORS]?: WeakMap<Schema<unknown>, Collect> })[COLLECTORS] ??= new WeakMap());

function collecting<S extends Schema<unknown>>(s: S, collect: Collect): S {
  collectors.set(s, collect);
  return s;
}

/** Every failure of `s` on `value` (its collector's, or the single one `run` throws); true when none. */
function collectInto(s: Schema<unknown>, value: unknown, path: readonly PathPart[], out: Fail[]): boolean {
  const before = out.length;
  const collect = collectors.get(s);
  if (collect) collect(value, path, out);
  else reported(s.run, value, path, out);
  return out.length === before;
}

const MISSING_FIELD = 'missing field';
const UNKNOWN_FIELD = 'unknown field';

/** A failure with `message` at `path`. */
function failure(path: readonly PathPart[], message: string): Fail {
  const f = new Fail(message);
  f.path.push(...path);
  return f;
}

/** `check(value)`, or undefined after recording its failure at `path`. */
function reported<T>(check: (value: unknown) => T, value: unknown, path: readonly PathPart[], out: Fail[]): T | undefined {
  try {
    return check(value);
  } catch (e) {
    if (!(e instanceof Fail)) throw e;
    e.path.unshift(...path);
    out.push(e);
    return undefined;
  }
}

/** Collector of a wrapper whose own check runs after `inner` succeeds (refine, transform, ...): inner's failures, else the wrapper's first. */
function afterInner(inner: Schema<unknown>, self: Schema<unknown>): Collect {
  return (v, path, out) => {
    if (collectInto(inner, v, path, out)) reported(self.run, v, path, out);
  };
}

/** Collector of a schema that accepts the values in `skip` as they are and checks the rest with `inner`. */
function unless(skip: (v: unknown) => boolean, inner: Schema<unknown>): Collect {
  return (v, path, out) => {
    if (!skip(v)) collectInto(inner, v, path, out);
  };
}

/**
 * A composite schema's `run`: a compiled predicate (built on first use) accepts valid input without the interpreter,
 * and `convert`, given when something inside transforms, builds the output of what it accepted; the interpreter `slow`
 * runs only to explain a failure (of the checks, or of a `transform` callback inside `convert`).
 */
function fastRun<T>(gen: Gen, slow: (value: unknown) => T, convert?: (value: unknown) => T): (value: unknown) => T {
  let check: ((value: unknown) => boolean) | undefined;
  if (!convert) return (v) => (compiling && (check ??= compilePredicate(gen))(v) ? (v as T) : slow(v));
  return (v) => {
    if (!compiling || !(check ??= compilePredicate(gen))(v)) return slow(v);
    try {
      return convert(v);
    } catch (e) {
      if (e instanceof Fail) return slow(v);
      throw e;
    }
  };
}

let compiling = true;

/**
 * Turns compiled checks on or off (they need `new Function`; off, every schema is interpreted).
 * Results are the same either way; tests compare the two.
 */
export function setSchemaCompilation(enabled: boolean): void {
  compiling = enabled;
}

const isObjectCode = (x: string) => `typeof ${x} !== 'object' || ${x} === null || Array.isArray(${x})`;

/** `root` followed by `path` in dot/bracket form: ('body', ['orders', 1, 'px']) → `body.orders[1].px`. */
export function formatPath(root: string, path: readonly PathPart[]): string {
  let out = root;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${part}` : part;
  }
  return out;
}

/** Parses `value` with `s`; throws ValidationError naming the field path under `root`. */
export function parse<T>(s: Schema<T>, value: unknown, root = ''): T {
  try {
    return s.run(value);
  } catch (e) {
    if (e instanceof Fail) throw new ValidationError(formatPath(root, e.path), e.message);
    throw e;
  }
}

export type SafeResult<T> = { ok: true; value: T } | { ok: false; error: ValidationError };

export function safeParse<T>(s: Schema<T>, value: unknown, root = ''): SafeResult<T> {
  try {
    return { ok: true, value: s.run(value) };
  } catch (e) {
    if (e instanceof Fail) return { ok: false, error: new ValidationError(formatPath(root, e.path), e.message) };
    throw e;
  }
}

/**
 * Every problem of `value` against `s`, empty when `parse` would succeed. Objects report each field and
 * each unknown key of strict objects, arrays each element, records each entry, recursively; other
 * combinators (union, tagged, custom, ...) their first failure. The first problem is the one `parse` throws.
 */
export function issues(s: Schema<unknown>, value: unknown, root = ''): Issue[] {
  try {
    s.run(value);
    return [];
  } catch (e) {
    if (!(e instanceof Fail)) throw e;
  }
  const out: Fail[] = [];
  collectInto(s, value, [], out);
  return out.map((f) => ({ field: formatPath(root, f.path), message: f.message }));
}

/** `e` with `part` prefixed to its path when it is a validation failure (composite schemas rethrow it). */
function prefixed(e: unknown, part: PathPart): unknown {
  if (e instanceof Fail) e.path.unshift(part);
  return e;
}

/** Runs `s` on `value`, prefixing a failure's path with `part`. */
function runAt<T>(part: PathPart, s: Schema<T>, value: unknown): T {
  try {
    return s.run(value);
  } catch (e) {
    throw prefixed(e, part);
  }
}

/** Fails at `part` with `message`. */
function failAt(part: PathPart, message: string): never {
  const f = new Fail(message);
  f.path.push(part);
  throw f;
}

export interface StringOptions {
  maxLength?: number;
  minLength?: number;
  pattern?: RegExp;
  patternName?: string;
}

/** Distinct strings remembered per pattern: symbols and topics repeat on every frame. */
const MATCHED_MEMO = 256;

export function string(opts: StringOptions = {}): Schema<string> {
  const { maxLength = 1024, minLength = 0, pattern, patternName } = opts;
  const matched = new Set<string>();
  const matches = (v: string): boolean => {
    if (matched.has(v)) return true;
    if (!pattern!.test(v)) return false;
    if (matched.size < MATCHED_MEMO) matched.add(v);
    return true;
  };
  return schema(
    'string',
    (v) => {
      if (typeof v !== 'string') fail(`expected string, got ${describe(v)}`);
      if (v.length > maxLength) fail(`string longer than ${maxLength} characters`);
      if (v.length < minLength) fail(minLength === 1 ? 'must not be empty' : `string shorter than ${minLength}`);
      if (pattern && !matches(v)) fail(`expected ${patternName ?? `to match ${pattern}`}, got ${JSON.stringify(v.slice(0, 64))}`);
      return v;
    },
    false,
    (x, e) =>
      `if (typeof ${x} !== 'string' || ${x}.length > ${num(maxLength)} || ${x}.length < ${num(minLength)}) return false;` +
      (pattern ? `if (!${e.ref(matches)}(${x})) return false;` : ''),
  );
}

export interface NumberOptions {
  min?: number;
  max?: number;
  /** Exclusive lower bound. */
  gt?: number;
  integer?: boolean;
}

/** A finite JSON number (NaN and ±Infinity are always rejected). */
export function number(opts: NumberOptions = {}): Schema<number> {
  const { min, max, gt, integer } = opts;
  return schema(
    'number',
    (v) => {
      if (typeof v !== 'number') fail(`expected number, got ${describe(v)}`);
      if (!Number.isFinite(v)) fail(`expected a finite number, got ${v}`);
      if (integer && !Number.isInteger(v)) fail(`expected an integer, got ${v}`);
      if (min !== undefined && v < min) fail(`must be >= ${min}, got ${v}`);
      if (max !== undefined && v > max) fail(`must be <= ${max}, got ${v}`);
      if (gt !== undefined && v <= gt) fail(`must be > ${gt}, got ${v}`);
      return v;
    },
    false,
    (x) =>
      `if (typeof ${x} !== 'number' || !Number.isFinite(${x})` +
      (integer ? ` || !Number.isInteger(${x})` : '') +
      (min !== undefined ? ` || ${x} < ${num(min)}` : '') +
      (max !== undefined ? ` || ${x} > ${num(max)}` : '') +
      (gt !== undefined ? ` || ${x} <= ${num(gt)}` : '') +
      ') return false;',
  );
}

export function boolean(): Schema<boolean> {
  return schema(
    'boolean',
    (v) => {
      if (typeof v !== 'boolean') fail(`expected boolean, got ${describe(v)}`);
      return v;
    },
    false,
    (x) => `if (typeof ${x} !== 'boolean') return false;`,
  );
}

export function literal<const L extends string | number | boolean | null>(...values: L[]): Schema<L> {
  const expected = values.map((x) => JSON.stringify(x)).join(' | ');
  return schema(
    expected,
    (v) => {
      for (const x of values) if (v === x) return x;
      fail(`expected ${expected}, got ${typeof v === 'string' ? JSON.stringify(v.slice(0, 64)) : describe(v)}`);
    },
    false,
    (x) => `if (${values.map((l) => `${x} !== ${JSON.stringify(l)}`).join(' && ')}) return false;`,
  );
}

const U64_MAX = (1n << 64n) - 1n;
const DIGITS = /^(0|[1-9][0-9]{0,19})$/;

/** An unsigned 64-bit integer given as a JSON integer, a decimal string or a bigint; yields bigint. */
export function u64(): Schema<bigint> {
  return schema(
    'u64',
    (v) => {
      let out: bigint;
      if (typeof v === 'bigint') out = v;
      else if (typeof v === 'number') {
        if (!Number.isSafeInteger(v))
          fail(Number.isInteger(v) ? 'integer beyond 2^53 must be sent as a decimal string' : `expected an unsigned integer, got ${v}`);
        out = BigInt(v);
      } else if (typeof v === 'string') {
        if (!DIGITS.test(v)) fail(`expected a decimal u64 string, got ${JSON.stringify(v.slice(0, 32))}`);
        out = BigInt(v);
      } else fail(`expected u64 (integer or decimal string), got ${describe(v)}`);
      if (out < 0n || out > U64_MAX) fail('out of u64 range');
      return out;
    },
    true,
    (x, e) =>
      `if (typeof ${x} === 'number' ? !Number.isSafeInteger(${x}) || ${x} < 0` +
      ` : typeof ${x} === 'string' ? !${e.ref(DIGITS)}.test(${x}) || (${x}.length === 20 && BigInt(${x}) > ${e.ref(U64_MAX)})` +
      ` : typeof ${x} !== 'bigint' || ${x} < 0n || ${x} > ${e.ref(U64_MAX)}) return false;`,
    (v) => (typeof v === 'bigint' ? v : BigInt(v as number | string)),
  );
}

/** The converter of a wrapper that passes the values in `skip` through and converts the rest with `s`'s. */
function unlessConverted<T>(s: Schema<T>, skip: (v: unknown) => boolean): ((value: unknown) => T) | undefined {
  const convert = converterOf(s);
  return convert && ((v) => (skip(v) ? (v as T) : convert(v)));
}

const isUndefined = (v: unknown) => v === undefined;
const isNull = (v: unknown) => v === null;
const isAbsent = (v: unknown) => v === undefined || v === null;

export function optional<T>(s: Schema<T>): Schema<T | undefined> {
  const inner = genOf(s);
  const convert = unlessConverted(s, isUndefined);
  const out: Schema<T | undefined> = {
    run: (v) => (v === undefined ? undefined : s.run(v)),
    transforms: s.transforms,
    expected: s.expected,
    optional: true,
    gen: (x, e) => `if (${x} !== undefined) {${inner(x, e)}}`,
    ...(convert && { convert }),
  };
  return collecting(out, unless(isUndefined, s));
}

export function nullable<T>(s: Schema<T>): Schema<T | null> {
  const inner = genOf(s);
  const out = schema(
    `${s.expected} | null`,
    (v) => (v === null ? null : s.run(v)),
    s.transforms,
    (x, e) => `if (${x} !== null) {${inner(x, e)}}`,
    unlessConverted(s, isNull),
  );
  return collecting(out, unless(isNull, s));
}

/** Optional and nullable: absent, null or T. */
export function maybe<T>(s: Schema<T>): Schema<T | null | undefined> {
  const inner = genOf(s);
  const convert = unlessConverted(s, isAbsent);
  const out: Schema<T | null | undefined> = {
    run: (v) => (v === undefined || v === null ? v : s.run(v)),
    transforms: s.transforms,
    expected: s.expected,
    optional: true,
    gen: (x, e) => `if (${x} !== undefined && ${x} !== null) {${inner(x, e)}}`,
    ...(convert && { convert }),
  };
  return collecting(out, unless(isAbsent, s));
}

export interface ArrayOptions {
  maxLength?: number;
  minLength?: number;
}

export function array<T>(item: Schema<T>, opts: ArrayOptions = {}): Schema<T[]> {
  const { maxLength = Infinity, minLength = 0 } = opts;
  const itemGen = genOf(item);
  const gen: Gen = (x, e) => {
    const i = e.name('i');
    const el = e.name();
    return (
      `if (!Array.isArray(${x}) || ${x}.length > ${num(maxLength)} || ${x}.length < ${num(minLength)}) return false;` +
      `for (let ${i} = 0; ${i} < ${x}.length; ${i}++) { const ${el} = ${x}[${i}]; ${itemGen(el, e)} }`
    );
  };
  const shapeOf = (v: unknown): unknown[] => {
    if (!Array.isArray(v)) fail(`expected array, got ${describe(v)}`);
    if (v.length > maxLength) fail(`array longer than ${maxLength}`);
    if (v.length < minLength) fail(`array shorter than ${minLength}`);
    return v;
  };
  const slow = (value: unknown): T[] => {
    const v = shapeOf(value);
    const out = item.transforms ? new Array<T>(v.length) : undefined;
    let i = 0;
    try {
      for (; i < v.length; i++) {
        const r = item.run(v[i]);
        if (out) out[i] = r;
      }
    } catch (e) {
      throw prefixed(e, i);
    }
    return out ?? (v as T[]);
  };
  const convertItem = converterOf(item);
  const convert =
    convertItem &&
    ((value: unknown): T[] => {
      const v = value as unknown[];
      const out = new Array<T>(v.length);
      for (let i = 0; i < v.length; i++) out[i] = convertItem(v[i]);
      return out;
    });
  const self = schema(`${item.expected}[]`, fastRun(gen, slow, convert), item.transforms, gen, convert);
  return collecting(self, (value, path, out) => {
    const v = reported(shapeOf, value, path, out);
    v?.forEach((x, i) => collectInto(item, x, [...path, i], out));
  });
}

type Shape = Record<string, Schema<unknown>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends { optional: true } ? K : undefined extends Infer<S[K]> ? K : never }[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOf<S extends Shape> = Simplify<{ [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> }>;

export interface ObjectOptions {
  /** Reject keys not in the shape (for request bodies). Default: ignore them (inbound data). */
  strict?: boolean;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function object<S extends Shape>(shape: S, opts: ObjectOptions = {}): Schema<ObjectOf<S>> & { shape: S } {
  const keys = Object.keys(shape);
  const schemas = keys.map((k) => shape[k]!);
  const transforms = schemas.some((s) => s.transforms);
  const known = new Set(keys);
  const gens = schemas.map(genOf);
  const gen: Gen = (x, e) => {
    let code = `if (${isObjectCode(x)}) return false;`;
    if (opts.strict) code += `for (const k in ${x}) if (!${e.ref(known)}.has(k)) return false;`;
    keys.forEach((k, i) => {
      const f = e.name();
      code += `const ${f} = ${x}[${JSON.stringify(k)}];`;
      if (!schemas[i]!.optional) code += `if (${f} === undefined) return false;`;
      code += gens[i]!(f, e);
    });
    return code;
  };
  const slow = (v: unknown): ObjectOf<S> => {
    if (!isPlainObject(v)) fail(`expected object, got ${describe(v)}`);
    if (opts.strict) for (const k in v) if (!known.has(k)) failAt(k, UNKNOWN_FIELD);
    const out: Record<string, unknown> | undefined = transforms ? {} : undefined;
    let i = 0;
    try {
      for (; i < keys.length; i++) {
        const s = schemas[i]!;
        const x = v[keys[i]!];
        if (x === undefined && !s.optional) fail(MISSING_FIELD);
        const r = s.run(x);
        if (out && r !== undefined) out[keys[i]!] = r;
      }
    } catch (e) {
      throw prefixed(e, keys[i]!);
    }
    return (out ?? v) as ObjectOf<S>;
  };
  const collect: Collect = (v, path, out) => {
    if (!isPlainObject(v)) {
      out.push(failure(path, `expected object, got ${describe(v)}`));
      return;
    }
    if (opts.strict) for (const k in v) if (!known.has(k)) out.push(failure([...path, k], UNKNOWN_FIELD));
    keys.forEach((k, i) => {
      const s = schemas[i]!;
      const x = v[k];
      if (x === undefined && !s.optional) out.push(failure([...path, k], MISSING_FIELD));
      else collectInto(s, x, [...path, k], out);
    });
  };
  let build: ((value: unknown) => unknown) | undefined;
  const fields = (): BuiltField[] => keys.map((key, i) => ({ key, optional: schemas[i]!.optional === true, convert: converterOf(schemas[i]!) }));
  const convert = transforms ? (v: unknown) => (build ??= compileObjectBuilder(fields()))(v) as ObjectOf<S> : undefined;
  const self = { run: fastRun(gen, slow, convert), transforms, expected: 'object', shape, gen, ...(convert && { convert }) };
  return collecting(self, collect);
}

type TupleOf<T extends readonly Schema<unknown>[]> = { [K in keyof T]: Infer<T[K]> };

export function tuple<const T extends readonly Schema<unknown>[]>(items: T): Schema<TupleOf<T>> {
  const transforms = items.some((s) => s.transforms);
  const gens = items.map(genOf);
  const gen: Gen = (x, e) =>
    `if (!Array.isArray(${x}) || ${x}.length !== ${items.length}) return false;` +
    gens
      .map((g, i) => {
        const el = e.name();
        return `const ${el} = ${x}[${i}];${g(el, e)}`;
      })
      .join('');
  const slow = (v: unknown): TupleOf<T> => {
    if (!Array.isArray(v)) fail(`expected array, got ${describe(v)}`);
    if (v.length !== items.length) fail(`expected ${items.length} elements, got ${v.length}`);
    const out = transforms ? new Array(items.length) : v;
    for (let i = 0; i < items.length; i++) {
      const r = runAt(i, items[i]!, v[i]);
      if (transforms) out[i] = r;
    }
    return out as TupleOf<T>;
  };
  const converters = items.map(converterOf);
  const convert = transforms
    ? (value: unknown): TupleOf<T> => {
        const v = value as unknown[];
        const out = new Array(items.length);
        for (let i = 0; i < items.length; i++) {
          const c = converters[i];
          out[i] = c ? c(v[i]) : v[i];
        }
        return out as TupleOf<T>;
      }
    : undefined;
  return schema(`[${items.map((s) => s.expected).join(', ')}]`, fastRun(gen, slow, convert), transforms, gen, convert);
}

/** An object used as a map: every own value validated by `value`. */
export function record<T>(value: Schema<T>, opts: { maxKeys?: number; key?: Schema<string> } = {}): Schema<Record<string, T>> {
  const { maxKeys = 1024, key } = opts;
  const keyGen = key ? genOf(key) : undefined;
  const valueGen = genOf(value);
  const gen: Gen = (x, e) => {
    const ks = e.name('k');
    const k = e.name();
    const el = e.name();
    return (
      `if (${isObjectCode(x)}) return false; const ${ks} = Object.keys(${x}); if (${ks}.length > ${num(maxKeys)}) return false;` +
      `for (const ${k} of ${ks}) { ${keyGen ? keyGen(k, e) : ''} const ${el} = ${x}[${k}]; ${valueGen(el, e)} }`
    );
  };
  const keysOf = (v: unknown): string[] => {
    if (!isPlainObject(v)) fail(`expected object, got ${describe(v)}`);
    const ks = Object.keys(v);
    if (ks.length > maxKeys) fail(`more than ${maxKeys} keys`);
    return ks;
  };
  const slow = (x: unknown): Record<string, T> => {
    const ks = keysOf(x);
    const v = x as Record<string, unknown>;
    const out: Record<string, T> = value.transforms ? {} : (v as Record<string, T>);
    for (const k of ks) {
      if (key) runAt(k, key, k);
      const r = runAt(k, value, v[k]);
      if (value.transforms) out[k] = r;
    }
    return out;
  };
  const convertValue = converterOf(value);
  const convert =
    convertValue &&
    ((x: unknown): Record<string, T> => {
      const v = x as Record<string, unknown>;
      const out: Record<string, T> = {};
      for (const k of Object.keys(v)) out[k] = convertValue(v[k]);
      return out;
    });
  const self = schema(`record<${value.expected}>`, fastRun(gen, slow, convert), value.transforms, gen, convert);
  return collecting(self, (v, path, out) => {
    for (const k of reported(keysOf, v, path, out) ?? []) {
      if (key) collectInto(key, k, [...path, k], out);
      collectInto(value, (v as Record<string, unknown>)[k], [...path, k], out);
    }
  });
}

type UnionOf<T extends readonly Schema<unknown>[]> = Infer<T[number]>;

/** First matching alternative wins; the error reports the alternative that got deepest. */
export function union<const T extends readonly Schema<unknown>[]>(alternatives: T): Schema<UnionOf<T>> {
  const expected = alternatives.map((s) => s.expected).join(' | ');
  return schema(
    expected,
    (v) => {
      let best: Fail | undefined;
      for (const s of alternatives) {
        try {
          return s.run(v) as UnionOf<T>;
        } catch (e) {
          if (!(e instanceof Fail)) throw e;
          if (!best || e.path.length > best.path.length) best = e;
        }
      }
      throw best ?? new Fail(`expected ${expected}`);
    },
    alternatives.some((s) => s.transforms),
    (x, e) => `if (!(${alternatives.map((a) => `${e.ref(compilePredicate(genOf(a)))}(${x})`).join(' || ')})) return false;`,
  );
}

/** `switch` over `subject` with a case per variant running its generated checks; other values fail. */
function switchGen(subject: string, names: string[], body: (name: string) => string): string {
  return `switch (${subject}) {${names.map((n) => `case ${JSON.stringify(n)}: {${body(n)}} break;`).join('')} default: return false; }`;
}

/** An object with exactly one key from `variants` (the wire's `{"<tag>": {...}}` form), typed as a union. */
export function oneKey<S extends Shape>(variants: S): Schema<{ [K in keyof S]: { [P in K]: Infer<S[K]> } }[keyof S]> {
  const names = Object.keys(variants);
  const transforms = names.some((k) => variants[k]!.transforms);
  return schema(
    `one of {${names.join(', ')}}`,
    (v) => {
      if (!isPlainObject(v)) fail(`expected object, got ${describe(v)}`);
      let tag: string | undefined;
      for (const k in v) {
        if (tag !== undefined) fail(`expected exactly one key of ${names.join(', ')}`);
        tag = k;
      }
      if (tag === undefined) fail(`expected one key of ${names.join(', ')}, got an empty object`);
      const s = Object.hasOwn(variants, tag) ? variants[tag] : undefined;
      if (!s) failAt(tag, `unknown variant (expected one of ${names.join(', ')})`);
      const r = runAt(tag, s, v[tag]);
      return (transforms ? { [tag]: r } : v) as never;
    },
    transforms,
    (x, e) => {
      const n = e.name('n');
      const t = e.name('t');
      return (
        `if (${isObjectCode(x)}) return false; let ${n} = 0, ${t}; for (const k in ${x}) { ${n}++; ${t} = k; } if (${n} !== 1) return false;` +
        switchGen(t, names, (name) => {
          const el = e.name();
          return `const ${el} = ${x}[${JSON.stringify(name)}]; ${genOf(variants[name]!)(el, e)}`;
        })
      );
    },
  );
}

/** Adds a check after `s` succeeds; `check` returns an error message or undefined. */
export function refine<T>(s: Schema<T>, check: (value: T) => string | undefined): Schema<T> {
  const self: Schema<T> = {
    run: (v) => {
      const r = s.run(v);
      const message = check(r);
      if (message !== undefined) fail(message);
      return r;
    },
    transforms: s.transforms,
    expected: s.expected,
    ...(s.optional ? { optional: true } : {}),
  };
  return collecting(self, afterInner(s, self));
}

/** Maps the parsed value; the result is a transforming schema. */
export function transform<T, U>(s: Schema<T>, fn: (value: T) => U): Schema<U> {
  const self: Schema<U> = {
    run: (v) => fn(s.run(v)),
    transforms: true,
    expected: s.expected,
    ...(s.optional ? { optional: true } : {}),
  };
  return collecting(self, afterInner(s, self));
}

/** `s`, or `value` when the field is absent (an optional schema whose parsed type always has a value). */
export function withDefault<T>(s: Schema<T>, value: T): Schema<T> {
  return transform(optional(s), (v) => (v === undefined ? value : v));
}

/** Raises a validation failure from inside a custom schema or `transform` callback. */
export function invalid(message: string): never {
  fail(message);
}

/** A schema from a custom check function (throw via `invalid`). */
export function custom<T>(expected: string, run: (value: unknown) => T, transforms = false): Schema<T> {
  return schema(expected, run, transforms);
}

/** A union of object schemas picked by the string in field `key`; an unknown tag fails at `key`. */
export function tagged<V extends Shape>(key: string, variants: V): Schema<Infer<V[keyof V]>> {
  const names = Object.keys(variants);
  const byTag = new Map(names.map((n) => [n, variants[n]!]));
  const expected = names.map((n) => JSON.stringify(n)).join(' | ');
  const transforms = names.some((n) => variants[n]!.transforms);
  const convert = transforms
    ? (v: unknown) => {
        const c = converterOf(byTag.get((v as Record<string, string>)[key]!)!);
        return (c ? c(v) : v) as Infer<V[keyof V]>;
      }
    : undefined;
  return schema(
    `one of ${names.join(', ')}`,
    (v) => {
      if (!isPlainObject(v)) fail(`expected object, got ${describe(v)}`);
      const tag = v[key];
      const s = typeof tag === 'string' ? byTag.get(tag) : undefined;
      if (s) return s.run(v) as Infer<V[keyof V]>;
      if (tag === undefined) failAt(key, MISSING_FIELD);
      return failAt(key, `expected ${expected}, got ${typeof tag === 'string' ? JSON.stringify(tag.slice(0, 64)) : describe(tag)}`);
    },
    transforms,
    (x, e) => `if (${isObjectCode(x)}) return false;` + switchGen(`${x}[${JSON.stringify(key)}]`, names, (name) => genOf(variants[name]!)(x, e)),
    convert,
  );
}

/** Runs `base`, then `extra` on the same input when `when(parsed)` holds (extra's field paths apply). */
export function checkedWhen<T>(base: Schema<T>, when: (value: T) => boolean, extra: Schema<unknown>): Schema<T> {
  const self = schema(
    base.expected,
    (v) => {
      const parsed = base.run(v);
      if (when(parsed)) extra.run(v);
      return parsed;
    },
    base.transforms,
  );
  return collecting(self, (v, path, out) => {
    if (collectInto(base, v, path, out) && when(base.run(v))) collectInto(extra, v, path, out);
  });
}
