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

/**
 * Quotes every bare integer token of more than 15 digits. Only the digit runs the stride-16 probe finds are looked at;
 * whether one sits inside a string is settled by hopping from quote to quote with indexOf up to it.
 */
function quoteBigIntegers(text: string): string {
  const n = text.length;
  let out = '';
  let last = 0;
  let quoted = false;
  let inString = false;
  /** String state is known for text before this index. */
  let cursor = 0;
  for (let i = 15; i < n; i += 16) {
    if (!isDigit(text.charCodeAt(i))) continue;
    let start = i;
    let end = i + 1;
    while (start > 0 && isNumberChar(text.charCodeAt(start - 1))) start--;
    while (end < n && isNumberChar(text.charCodeAt(end))) end++;
    for (let q = text.indexOf('"', cursor); q >= 0 && q < start; q = text.indexOf('"', q + 1)) {
      if (!inString || !isEscaped(text, q)) inString = !inString;
    }
    cursor = end;
    i = end - 1;
    if (inString) continue;
    const token = text.slice(start, end);
    const digits = token.charCodeAt(0) === 45 ? token.length - 1 : token.length;
    if (digits > MAX_SAFE_DIGITS && /^-?\d+$/.test(token)) {
      out += `${text.slice(last, start)}"${token}"`;
      last = end;
      quoted = true;
    }
  }
  return quoted ? out + text.slice(last) : text;
}

/** True when the quote at `q` is preceded by an odd number of backslashes. */
function isEscaped(text: string, q: number): boolean {
  let k = q - 1;
  while (k >= 0 && text.charCodeAt(k) === 92) k--;
  return (q - 1 - k) % 2 === 1;
}

function isNumberChar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45;
}
