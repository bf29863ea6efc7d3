// Compiles a schema's checks into one generated predicate (no per-field closure dispatch): the
// frame-validation hot path. Invariant: the predicate accepts exactly what the schema accepts.

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
