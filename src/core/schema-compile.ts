// Compiles a schema's checks into one generated predicate (no per-field closure dispatch), and a transforming object's
// output into one generated builder: the frame-validation hot path. Invariants: the predicate accepts exactly what the
// schema accepts; the builder makes what the interpreter would (same fields, same order).

/** Collects the generated code's names and the values it refers to. */
export class Emitter {
  private n = 0;
  readonly refs: unknown[] = [];

  /** A fresh variable name. */
  name(prefix = 'v'): string {
    return `${prefix}${this.n++}`;
  }

  /** An expression evaluating to `value` inside the generated function. */
  ref(value: unknown): string {
    this.refs.push(value);
    return `R[${this.refs.length - 1}]`;
  }
}

/** Emits statements that `return false` when the value in variable `x` is invalid. */
export type Gen = (x: string, e: Emitter) => string;

/** A numeric literal for generated code. */
export function num(n: number): string {
  return Number.isNaN(n) ? 'NaN' : n === Infinity ? 'Infinity' : n === -Infinity ? '-Infinity' : String(n);
}

/** One function `(value) => boolean` running the statements of `gen`. */
export function compilePredicate(gen: Gen): (value: unknown) => boolean {
  const e = new Emitter();
  const body = gen('x', e);
  return new Function('R', `'use strict'; return function check(x) {\n${body}\nreturn true;\n};`)(e.refs) as (value: unknown) => boolean;
}

/** A field of an object built by compileObjectBuilder. */
export interface BuiltField {
  readonly key: string;
  /** May be absent (undefined) in the input. */
  readonly optional: boolean;
  /** Its value's converter; the input value is taken as it is when absent. */
  readonly convert?: (value: unknown) => unknown;
}

/**
 * One function building a fresh object of `fields`, in their order, from an input whose fields the checks accepted; a
 * field whose value comes out undefined is left out. The leading fields that are always there and taken as they are
 * form one object literal (one allocation of the final shape); each later field is one named store.
 */
export function compileObjectBuilder(fields: readonly BuiltField[]): (value: unknown) => unknown {
  const e = new Emitter();
  const at = (key: string) => `v[${JSON.stringify(key)}]`;
  let leading = 0;
  while (leading < fields.length && !fields[leading]!.optional && !fields[leading]!.convert) leading++;
  let body = `const o = {${fields
    .slice(0, leading)
    .map((f) => `${JSON.stringify(f.key)}: ${at(f.key)}`)
    .join(', ')}}; let t;`;
  for (const f of fields.slice(leading)) {
    const value = f.convert ? `${e.ref(f.convert)}(${at(f.key)})` : at(f.key);
    body += !f.optional && !f.convert ? `o[${JSON.stringify(f.key)}] = ${value};` : `t = ${value}; if (t !== undefined) o[${JSON.stringify(f.key)}] = t;`;
  }
  return new Function('R', `'use strict'; return function build(v) {\n${body}\nreturn o;\n};`)(e.refs) as (value: unknown) => unknown;
}
