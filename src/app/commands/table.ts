// Plain-text tables for command output: one header row, columns padded to their widest cell.
// Invariant: cells are rendered with String() (bigint exact); no column is ever truncated.

export type Row = Record<string, unknown>;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return String(value);
}

/** Renders `rows` under `columns` (default: every key of the rows, in first-seen order); "(none)" when empty. */
export function formatTable(rows: readonly Row[], columns?: readonly string[]): string {
  if (rows.length === 0) return '(none)';
  const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = rows.map((r) => cols.map((c) => cell(r[c])));
  const widths = cols.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line([...cols]), ...cells.map(line)].join('\n');
}
