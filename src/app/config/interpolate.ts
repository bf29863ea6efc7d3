// `${NAME}` and `${NAME:-default}` substitution in the string values of a parsed YAML document.
// Invariants: keys are never touched; substituted text never becomes YAML structure (at most a scalar); messages never contain values.

import { isMap, isScalar, isSeq, Scalar, type Document, type ScalarTag } from 'yaml';

/** Environment variables by name (process.env or a test's own). */
export type Env = Readonly<Record<string, string | undefined>>;

/** A key path: map keys and sequence indices from the document root. */
export type KeyPath = (string | number)[];

export interface InterpolationProblem {
  readonly path: KeyPath;
  readonly message: string;
}

/** `$${` (a literal `${`), or `${...}` with its body and closing brace (absent when unterminated). */
const PLACEHOLDER = /\$\$\{|\$\{([^}]*)(\}?)/g;
const REFERENCE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;
const WHOLE = /^\$\{[^}]*\}$/;

/**
 * `text` with every placeholder replaced: `${NAME}` by the variable, `${NAME:-default}` by the variable
 * or, when it is unset or empty, the default; `$${` by `${`. Problems name the variable, never a value.
 */
export function substitute(text: string, env: Env): { text: string; problems: string[] } {
  const problems: string[] = [];
  const out = text.replace(PLACEHOLDER, (_match, body: string | undefined, close: string | undefined) => {
    if (body === undefined) return '${';
    const ref = REFERENCE.exec(body);
    if (!close || !ref) {
      problems.push(
        `invalid placeholder ${JSON.stringify(`\${${body.slice(0, 40)}${close ?? ''}`)}: expected \${NAME} or \${NAME:-default} (write $\${ for a literal \${)`,
      );
      return '';
    }
    const [, name, fallback] = ref;
    const value = env[name!];
    if (fallback !== undefined) return value ? value : fallback;
    if (value === undefined) problems.push(`environment variable ${name} is not set`);
    return value ?? '';
  });
  return { text: out, problems };
}

/** The value a plain YAML scalar with this text has (null, boolean, number or the text itself), by the document's schema. */
function plainValue(doc: Document, text: string): unknown {
  const tag = doc.schema.tags.find((t): t is ScalarTag => t.default === true && !t.collection && t.test?.test(text) === true);
  if (!tag) return text;
  const value = tag.resolve(text, () => undefined, {});
  return isScalar(value) ? value.value : value;
}

/**
 * Substitutes placeholders in every string value of `doc`, in place. A plain (unquoted, untagged) scalar
 * that is exactly one placeholder is re-read as a YAML scalar, so `port: ${PORT:-9464}` is a number; when
 * that reads as null (empty), a map entry is removed, so the key takes its default.
 */
export function interpolateDocument(doc: Document, env: Env): InterpolationProblem[] {
  const problems: InterpolationProblem[] = [];
  /** True when `node` became null and should be left out of its map. */
  const walk = (node: unknown, path: KeyPath): boolean => {
    if (isMap(node)) node.items = node.items.filter((pair) => !walk(pair.value, [...path, String(isScalar(pair.key) ? pair.key.value : pair.key)]));
    else if (isSeq(node)) node.items.forEach((item, i) => walk(item, [...path, i]));
    else if (isScalar(node) && typeof node.value === 'string') {
      const result = substitute(node.value, env);
      for (const message of result.problems) problems.push({ path, message });
      const reread = result.problems.length === 0 && node.type === Scalar.PLAIN && !node.tag && WHOLE.test(node.value);
      node.value = reread ? plainValue(doc, result.text) : result.text;
      return node.value === null;
    }
    return false;
  };
  walk(doc.contents, []);
  return problems;
}
