// Decimal steps of the local venue's outputs: how many decimals a tick or lot has, and rounding
// a derived number to them. Invariant: results print without binary floating-point noise.

/** Decimals of a step such as 0.001 (3) or 5e-7 (7). */
export function decimalsOf(step: number): number {
  const text = step.toString();
  const e = text.indexOf('e-');
  if (e >= 0) return Number(text.slice(e + 2)) + Math.max(0, text.indexOf('.') < 0 ? 0 : e - text.indexOf('.') - 1);
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** `x` rounded to the decimals of `step` (plus `extra`), e.g. a volume to the lot's decimals. */
export function roundToStep(x: number, step: number, extra = 0): number {
  return Number(x.toFixed(Math.min(20, decimalsOf(step) + extra)));
}
