// Figures of the quick reliability suites (auth, secrets; issue 20): each test file prints its table to stdout and merges
// its rows into reports/<suite>-<profile>.json under its own name. Invariant: files merge under a lock directory, so
// vitest workers finishing together keep every file's rows.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '../../..');
const PROFILE = process.env.PERPBOT_PROFILE ?? 'full';
const LOCK_STALE_MS = 30_000;

export interface SuiteTable {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | number)[])[];
}

/** Rows counted under a key (a test's name), each a fixed set of counters. */
export class Tally {
  private readonly rows = new Map<string, number[]>();

  constructor(readonly columns: readonly string[]) {}

  add(key: string, column: string, n = 1): void {
    const i = this.columns.indexOf(column);
    if (i < 0) throw new Error(`no column ${column}`);
    let row = this.rows.get(key);
    if (!row) this.rows.set(key, (row = this.columns.map(() => 0)));
    row[i]! += n;
  }

  table(keyColumn: string): SuiteTable {
    return { columns: [keyColumn, ...this.columns], rows: [...this.rows].map(([k, v]) => [k, ...v]) };
  }
}

function withLock<T>(lock: string, fn: () => T): T {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`${lock} held for 10 s`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function format(t: SuiteTable): string {
  const cells = [t.columns, ...t.rows].map((r) => r.map(String));
  const widths = t.columns.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n');
}

/** Prints `table` under a heading and stores it as `file`'s entry in reports/<suite>-<profile>.json. */
export function reportSuite(suite: string, file: string, table: SuiteTable): void {
  process.stdout.write(`\n${suite} (${file}):\n${format(table)}\n`);
  const path = join(ROOT, `reports/${suite}-${PROFILE}.json`);
  mkdirSync(dirname(path), { recursive: true });
  withLock(`${path}.lock`, () => {
    let report: { suite: string; profile: string; files: Record<string, SuiteTable & { at: string }> };
    try {
      report = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      report = { suite, profile: PROFILE, files: {} };
    }
    report.files[file] = { ...table, at: new Date().toISOString() };
    writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  });
}
