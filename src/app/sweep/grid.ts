// Parameter grids of `perpbot sweep`: a YAML map from dotted daemon-config paths to lists of values, its points (the
// cartesian product), deterministic shards of them, and the config text of one point.
// Invariants: points come in one fixed order (the file's keys in order, the last varying fastest) and a point's id is
// its index in that order; shard i of n holds exactly the points whose index % n is i, so the shards partition the grid.

import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { ConfigError, ConfigErrors, ValidationError } from '../../core/errors.js';
import { readConfigFile, readYamlDocument } from '../yaml-config.js';

export interface Grid {
  /** Dotted config paths (`strategies.0.params.halfSpreadBps`), in the file's order. */
  readonly keys: readonly string[];
  /** The values of each key, in the file's order. */
  readonly values: readonly (readonly unknown[])[];
}

export interface GridPoint {
  /** Position in the grid's order: the point's id. */
  readonly index: number;
  /** Value of each grid key at this point. */
  readonly params: Readonly<Record<string, unknown>>;
}

/** Slice `index` (0-based) of `count`. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

const KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Reads a grid file; throws ConfigErrors listing every problem with its key and line. */
export function loadGrid(path: string): Grid {
  return parseGrid(readConfigFile(path), path);
}

/** Parses grid YAML `text` (`source` names it in problems); throws ConfigErrors listing every problem. */
export function parseGrid(text: string, source: string): Grid {
  const doc = readYamlDocument(text, source);
  const data = doc.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || Object.keys(data).length === 0) {
    throw new ConfigErrors(source, [doc.problem('', 'must be a map from config paths to lists of values, e.g. strategies.0.params.halfSpreadBps: [2, 5, 10]')]);
  }
  const lines = new LineCounter();
  const keyLines = new Map<unknown, number>();
  const contents = parseDocument(text, { lineCounter: lines }).contents;
  if (isMap(contents))
    for (const item of contents.items) if (isScalar(item.key) && item.key.range) keyLines.set(item.key.value, lines.linePos(item.key.range[0]).line);
  const problem = (key: string, message: string) => new ConfigError(key, message, keyLines.get(key));
  const problems: ConfigError[] = [];
  const keys: string[] = [];
  const values: unknown[][] = [];
  for (const [key, list] of Object.entries(data)) {
    if (!KEY.test(key)) problems.push(problem(key, 'must be a dotted config path such as strategies.0.params.halfSpreadBps'));
    else if (!Array.isArray(list) || list.length === 0) problems.push(problem(key, `must be a non-empty list of values, got ${JSON.stringify(list)}`));
    else {
      const seen = new Set(list.map((v) => JSON.stringify(v)));
      if (seen.size !== list.length) problems.push(problem(key, `lists a value twice: ${JSON.stringify(list)}`));
      keys.push(key);
      values.push(list);
    }
  }
  if (problems.length > 0) throw new ConfigErrors(source, problems);
  return { keys, values };
}

/** Number of points of the grid. */
export function gridSize(grid: Grid): number {
  return grid.values.reduce((n, v) => n * v.length, 1);
}

/** The point at `index` (0 ≤ index < gridSize). */
export function gridPoint(grid: Grid, index: number): GridPoint {
  const params: Record<string, unknown> = {};
  let rest = index;
  for (let k = grid.keys.length - 1; k >= 0; k--) {
    const list = grid.values[k]!;
    params[grid.keys[k]!] = list[rest % list.length];
    rest = Math.floor(rest / list.length);
  }
  return { index, params: Object.fromEntries(grid.keys.map((key) => [key, params[key]])) };
}

/** The points of `shard` (every point when none), in grid order. */
export function gridPoints(grid: Grid, shard?: Shard): GridPoint[] {
  const points: GridPoint[] = [];
  for (let i = shard?.index ?? 0; i < gridSize(grid); i += shard?.count ?? 1) points.push(gridPoint(grid, i));
  return points;
}

/** Parses `i/n` (0 ≤ i < n); throws ValidationError naming `--shard`. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index >= count) throw new ValidationError('--shard', `must be i/n with 0 <= i < n (e.g. 0/4), got ${JSON.stringify(text)}`);
  return { index, count };
}

/** A point's values as `name=value` pairs (names shortened by shortNames). */
export function pointLabel(grid: Grid, point: GridPoint): string {
  const names = shortNames(grid.keys);
  return grid.keys.map((k, i) => `${names[i]}=${formatValue(point.params[k])}`).join(' ');
}

/** A grid value as a table cell: scalars as written, lists and maps as compact JSON. */
export function formatValue(v: unknown): string {
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** For each key, its shortest tail of path segments that no other key ends with (`halfSpreadBps`). */
export function shortNames(keys: readonly string[]): string[] {
  return keys.map((key) => {
    const parts = key.split('.');
    for (let n = 1; n < parts.length; n++) {
      const tail = parts.slice(-n).join('.');
      if (keys.every((other) => other === key || !`.${other}`.endsWith(`.${tail}`))) return tail;
    }
    return key;
  });
}

/**
 * The config text `text` (of file `source`) with each of `params`' paths set to its value: list items by index, missing
 * map keys created (the config's schema then refuses unknown ones). Throws ConfigError naming the grid key when a path
 * runs through a value or past the end of a list.
 */
export function pointConfigText(text: string, source: string, params: Readonly<Record<string, unknown>>): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new ConfigError(source, doc.errors[0]!.message.split('\n')[0]!);
  for (const [key, value] of Object.entries(params)) {
    const path: (string | number)[] = [];
    let node: unknown = doc.contents;
    for (const part of key.split('.')) {
      const at = path.length === 0 ? source : path.join('.');
      if (isSeq(node)) {
        if (!/^\d+$/.test(part) || Number(part) >= node.items.length)
          throw new ConfigError(key, `${at} is a list of ${node.items.length} in ${source}; ${JSON.stringify(part)} is not one of its indexes`);
        path.push(Number(part));
        node = node.items[Number(part)];
      } else if (isMap(node) || node === null || node === undefined) {
        path.push(part);
        node = isMap(node) ? node.get(part, true) : undefined;
      } else throw new ConfigError(key, `${at} is ${isScalar(node) ? `the value ${JSON.stringify(node.value)}` : 'not a map'} in ${source}, not a map or list`);
    }
    doc.setIn(path, value);
  }
  return doc.toString();
}
