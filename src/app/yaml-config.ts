// YAML configuration files validated by a schema; every problem names the key path and its line, all reported at once.
// Invariants: a file that loads is fully valid (nothing is half-applied from a bad file); environment values never become YAML structure.

import { readFileSync } from 'node:fs';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import { ConfigError, ConfigErrors } from '../core/errors.js';
import { formatPath, issues, parse, type Issue, type Schema } from '../core/schema.js';
import { interpolateDocument, type Env, type KeyPath } from './config/interpolate.js';

export interface YamlOptions {
  /** Substitute `${NAME}` / `${NAME:-default}` in string values from these variables (see config/interpolate.ts). Default: no substitution. */
  env?: Env;
}

/** A syntactically valid (and interpolated) YAML document: its data, and the lines of its keys. */
export interface YamlDocument {
  /** The file name (or other label) heading problem lists. */
  readonly source: string;
  readonly data: unknown;
  /** A ConfigError naming `field` (a key path such as `a.b[2].c`; '' for the whole document) and its line. */
  problem(field: string, message: string): ConfigError;
}

/** Reads and validates `path`; throws ConfigErrors listing every problem with its key and line. */
export function loadYamlFile<T>(path: string, schema: Schema<T>, opts: YamlOptions = {}): T {
  return parseYamlText(readConfigFile(path), schema, path, opts);
}

/** Parses YAML `text` and validates it; `source` heads the problem list (e.g. the file name). Throws ConfigErrors. */
export function parseYamlText<T>(text: string, schema: Schema<T>, source: string, opts: YamlOptions = {}): T {
  return validateYaml(readYamlDocument(text, source, opts), schema);
}

/** The text of a configuration file; throws ConfigErrors when it cannot be read. */
export function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigErrors(path, [new ConfigError(path, `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`)]);
  }
}

/** Parses `text` and interpolates it (with `opts.env`); throws ConfigErrors listing every syntax or interpolation problem. */
export function readYamlDocument(text: string, source: string, opts: YamlOptions = {}): YamlDocument {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigErrors(
      source,
      doc.errors.map((e) => new ConfigError(source, e.message.split('\n')[0]!, lines.linePos(e.pos[0]).line)),
    );
  }
  const problem = (field: string, message: string) => new ConfigError(field || source, message, lineOf(doc, lines, pathOf(field)));
  if (opts.env) {
    const problems = interpolateDocument(doc, opts.env);
    if (problems.length > 0)
      throw new ConfigErrors(
        source,
        problems.map((p) => problem(formatPath('', p.path), p.message)),
      );
  }
  return { source, data: doc.toJS({ maxAliasCount: 100 }) ?? {}, problem };
}

/**
 * Validates the document's data with `schema`, then (when every key is valid) with `check`, which
 * returns the problems between fields. Throws ConfigErrors listing all of them with their lines, in file order.
 */
export function validateYaml<T>(doc: YamlDocument, schema: Schema<T>, check: (value: T) => Issue[] = () => []): T {
  let found = issues(schema, doc.data);
  if (found.length === 0) {
    const value = parse(schema, doc.data);
    found = check(value);
    if (found.length === 0) return value;
  }
  const problems = found.map((i) => doc.problem(i.field, i.message));
  throw new ConfigErrors(
    doc.source,
    problems.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity)),
  );
}

/** `a.b[2].c` → ['a', 'b', 2, 'c'] */
function pathOf(field: string): KeyPath {
  const out: KeyPath = [];
  for (const m of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return out;
}

/** Line of the deepest node on `path` that exists (a missing key reports its parent's line). */
function lineOf(doc: Document, lines: LineCounter, path: KeyPath): number | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
    const keyLine = n > 0 ? keyNodeLine(doc, lines, path.slice(0, n)) : undefined;
    if (keyLine !== undefined) return keyLine;
  }
  return undefined;
}

/** Line of a map key (for a key whose value is null or empty). */
function keyNodeLine(doc: Document, lines: LineCounter, path: KeyPath): number | undefined {
  const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
  if (!parent || typeof parent !== 'object' || !('items' in parent)) return undefined;
  const key = path[path.length - 1];
  for (const item of (parent as { items: unknown[] }).items) {
    const k = (item as { key?: { value?: unknown; range?: [number, number, number] } }).key;
    if (k && k.value === key && k.range) return lines.linePos(k.range[0]).line;
  }
  return undefined;
}
