import { describe, expect, it } from 'vitest';
import { decimalsOf, roundDiv, roundToStep, unitsToUsd } from '../../../src/venue-sim/decimals.js';

describe('decimal steps', () => {
  it('counts the decimals of ticks and lots, including exponent forms', () => {
    expect([1, 0.5, 0.1, 0.01, 0.001, 0.0001, 1e-7, 2.5e-7, 1e-10].map(decimalsOf)).toEqual([0, 1, 1, 2, 3, 4, 7, 8, 10]);
  });

  it('rounds derived values to the step without floating-point noise', () => {
    expect(roundToStep(0.0029999999999999996, 0.0001)).toBe(0.003);
    expect(roundToStep(-70.89999999999418, 0.1)).toBe(-70.9);
    expect(roundToStep(96_832.1 * 3, 0.1)).toBe(290_496.3);
  });

  it('divides quote units exactly, rounding as Math.round does (halves toward +∞), beyond 2^53 too', () => {
    for (let n = -40; n <= 40; n++) for (const d of [1, 2, 3, 4, 7]) expect(roundDiv(BigInt(n), BigInt(d)), `${n}/${d}`).toBe(BigInt(Math.round(n / d)));
    expect(roundDiv(10_000_000_000_000_001n * 3n, 3n)).toBe(10_000_000_000_000_001n);
    expect(roundDiv(-(2n ** 60n) - 1n, 2n)).toBe(-(2n ** 59n));
    // biome-ignore lint/correctness/noPrecisionLoss: the exact decimal is meant; toBe compares its nearest double
    expect(unitsToUsd(10_000_000_000_000_003n, 1e6)).toBe(10_000_000_000.000003);
  });
});
