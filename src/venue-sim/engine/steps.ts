// Decimal steps m × 10^-d: a market's tick (price step) and lot (size step).
// Invariant: conversions are exact: count(x) is the whole number of steps in x, or -1 when x is not one (or exceeds MAX_COUNT).

import { ConfigError } from '../../core/errors.js';

const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);

/** A decimal step m × 10^-d (tick or lot) with exact conversions between values and step counts. */
export class Step {
  readonly mantissa: number;
  readonly decimals: number;
  readonly scale: number;

  constructor(
    readonly value: number,
    key: string,
  ) {
    if (!Number.isFinite(value) || value <= 0) throw new ConfigError(key, `must be a positive number, got ${value}`);
    let d = 0;
    while (d < 12 && Math.abs(Math.round(value * POW10[d]!) - value * POW10[d]!) > 1e-9 * value * POW10[d]!) d++;
    if (d >= 12) throw new ConfigError(key, `must be a decimal with at most 11 places, got ${value}`);
    this.decimals = d;
    this.scale = POW10[d]!;
    this.mantissa = Math.round(value * this.scale);
  }

  /** Step count of `x`, or -1 when x is not a non-negative exact multiple of the step (or too large). */
  count(x: number): number {
    if (!(x >= 0) || x > 1e15) return -1;
    const n = Math.round(x * this.scale);
    if (n / this.scale !== x) return -1;
    if (this.mantissa === 1) return n <= MAX_COUNT ? n : -1;
    const c = n / this.mantissa;
    return Number.isInteger(c) && c <= MAX_COUNT ? c : -1;
  }
}

/** Largest tick or lot count accepted (keeps every product below 2^53). */
export const MAX_COUNT = 1e12;
