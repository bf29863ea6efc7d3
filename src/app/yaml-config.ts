// YAML configuration files validated by a schema; every error names the key path and its line.
// Invariant: a file that loads is fully valid; nothing is half-applied from a bad file.

import { readFileSync } from 'node:fs';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import { ConfigError, ValidationError } from '../core/errors.js';
import { parse, type Schema } from '../core/schema.js';

/** Reads and validates `path`; throws ConfigError naming the key and line. */
export function loadYamlFile<T>(path: string, schema: Schema<T>): T {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(path, `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  return parseYamlText(text, schema, path);
}

/** Parses YAML `text` and validates it; `source` prefixes error keys (e.g. the file name). */
export function parseYamlText<T>(text: string, schema: Schema<T>, source: string): T {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const syntax = doc.errors[0];
  if (syntax) throw new ConfigError(source, syntax.message.split('\n')[0]!, lines.linePos(syntax.pos[0]).line);
  try {
    return parse(schema, doc.toJS({ maxAliasCount: 100 }) ?? {});
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    const message = e.field ? e.message.slice(e.field.length + 2) : e.message;
    throw new ConfigError(e.field || source, message, lineOf(doc, lines, pathOf(e.field)));
  }
}

/** `a.b[2].c` → ['a', 'b', 2, 'c'] */
function pathOf(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return out;
}

/** Line of the deepest node on `path` that exists (a missing key reports its parent's line). */
function lineOf(doc: Document, lines: LineCounter, path: (string | number)[]): number | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
    const keyLine = n > 0 ? keyNodeLine(doc, lines, path.slice(0, n)) : undefined;
    if (keyLine !== undefined) return keyLine;
  }
  return undefined;
}

/** Line of a map key (for a key whose value is null or empty). */
function keyNodeLine(doc: Document, lines: LineCounter, path: (string | number)[]): number | undefined {
  const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
  if (!parent || typeof parent !== 'object' || !('items' in parent)) return undefined;
  const key = path[path.length - 1];
  for (const item of (parent as { items: unknown[] }).items) {
    const k = (item as { key?: { value?: unknown; range?: [number, number, number] } }).key;
    if (k && k.value === key && k.range) return lines.linePos(k.range[0]).line;
  }
  return undefined;
}
