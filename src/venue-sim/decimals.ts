// Decimal steps of the local venue's outputs: how many decimals a tick or lot has, rounding a derived
// number to them, and exact quote-unit arithmetic. Invariant: results print without binary floating-point
// noise; quote-unit amounts are bigint and never lose a unit, whatever their size.

/** Decimals of a step such as 0.001 (3) or 5e-7 (7). */
export function decimalsOf(step: number): number {
  const text = step.toString();
  const e = text.indexOf('e-');
  if (e >= 0) return Number(text.slice(e + 2)) + Math.max(0, text.indexOf('.') < 0 ? 0 : e - text.indexOf('.') - 1);
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** n / d rounded as Math.round rounds (halves toward +∞), exactly; d must be positive. */
export function roundDiv(n: bigint, d: bigint): bigint {
  const num = 2n * n + d;
  const den = 2n * d;
  const q = num / den;
  return num < 0n && q * den !== num ? q - 1n : q;
}

/** An amount of quote units in USD, as the nearest double (exact below 2^53 units). */
export function unitsToUsd(units: bigint, quoteScale: number): number {
  return Number(units) / quoteScale;
}

/** Decimals of the steps seen so far: a market has a handful, and rounding to them is on the venue's hot path. */
const STEP_DECIMALS = new Map<number, number>();

/** `x` rounded to the decimals of `step` (plus `extra`), e.g. a volume to the lot's decimals. */
export function roundToStep(x: number, step: number, extra = 0): number {
  let decimals = STEP_DECIMALS.get(step);
  if (decimals === undefined) {
    decimals = decimalsOf(step);
    if (STEP_DECIMALS.size < 1024) STEP_DECIMALS.set(step, decimals);
  }
  return Number(x.toFixed(Math.min(20, decimals + extra)));
}
