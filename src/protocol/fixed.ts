// Fixed-point ×1e8 values of the current dialect, computed exactly as the venue does:
// f64 multiply by 1e8, then round half away from zero. Invariant: results are u64 bigint.

import { ValidationError } from '../core/errors.js';

export const FX_SCALE = 1e8;
const MAX_FX = 2 ** 64 - 1;
const DECIMAL = /^(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Parses a JSON number or decimal string to a finite non-negative double; names `field` on error. */
export function toDouble(value: unknown, field: string): number {
  let v: number;
  if (typeof value === 'number') v = value;
  else if (typeof value === 'string') {
    if (value.length > 64 || !DECIMAL.test(value)) throw new ValidationError(field, `expected a decimal number, got ${JSON.stringify(value.slice(0, 64))}`);
    v = Number(value);
  } else throw new ValidationError(field, `expected a number or decimal string, got ${value === null ? 'null' : typeof value}`);
  if (!Number.isFinite(v)) throw new ValidationError(field, `expected a finite number, got ${v}`);
  if (v < 0) throw new ValidationError(field, `must not be negative, got ${v}`);
  return v;
}

/** round(value × 1e8) with halves away from zero, as a u64 bigint. */
export function toFx(value: unknown, field: string): bigint {
  const product = toDouble(value, field) * FX_SCALE;
  const rounded = Math.round(product);
  if (rounded > MAX_FX) throw new ValidationError(field, 'value too large for fixed-point u64');
  return BigInt(rounded);
}

/** Formats a ×1e8 fixed-point value with exactly 8 decimals ("100.12345679"). */
export function formatFx(fx: bigint): string {
  const whole = fx / 100_000_000n;
  const frac = (fx % 100_000_000n).toString().padStart(8, '0');
  return `${whole}.${frac}`;
}
