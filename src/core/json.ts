// JSON text with exact u64 values: bigint is written as bare integer digits, and integers beyond
// 2^53 in inbound text are read as decimal strings. Invariant: no u64 is ever rounded through a double.

/** JSON.stringify that writes bigint values as bare JSON integers (no quotes, no precision loss). */
export function stringifyJson(value: unknown, space?: number): string {
  let found = false;
  const text = JSON.stringify(
    value,
    (_k, v: unknown) => {
      if (typeof v === 'bigint') {
        found = true;
        return `\u0000big:${v}\u0000`;
      }
      return v;
    },
    space,
  );
  return found ? text.replace(/"\\u0000big:(-?\d+)\\u0000"/g, '$1') : text;
}

const MAX_SAFE_DIGITS = 15;

/**
 * JSON.parse that keeps integers with more than 15 digits exact by turning them into decimal
 * strings ("1700000000000000000"). Schemas such as `u64()` accept either form.
 */
export function parseJson(text: string): unknown {
  return JSON.parse(hasDigitRun16(text) ? quoteBigIntegers(text) : text);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * True when `text` holds 16 consecutive digits (text without them has no integer that could lose
 * precision). Probes every 16th character: any such run covers exactly one probed index.
 */
export function hasDigitRun16(text: string): boolean {
  const n = text.length;
  for (let i = 15; i < n; i += 16) {
    if (!isDigit(text.charCodeAt(i))) continue;
    let start = i;
    let end = i;
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
    while (end + 1 < n && isDigit(text.charCodeAt(end + 1))) end++;
    if (end - start >= 15) return true;
    i = end;
  }
  return false;
}

function quoteBigIntegers(text: string): string {
  let out: string[] | undefined;
  let last = 0;
  let inString = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < n && isNumberChar(text.charCodeAt(j))) j++;
      const token = text.slice(i, j);
      const digits = token.charCodeAt(0) === 45 ? token.length - 1 : token.length;
      if (digits > MAX_SAFE_DIGITS && /^-?\d+$/.test(token)) {
        out ??= [];
        out.push(text.slice(last, i), '"', token, '"');
        last = j;
      }
      i = j - 1;
    }
  }
  if (!out) return text;
  out.push(text.slice(last));
  return out.join('');
}

function isNumberChar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45;
}
