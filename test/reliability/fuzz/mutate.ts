// Mutations of valid JSON documents (request bodies, answers, stream frames) for the fuzz suites, one kind at a time.
// Invariant: a mutation is a pure function of its input and the Prng; the kind names are the rows of the result tables.

import type { Prng } from './prng.js';

export const JSON_MUTATIONS = ['truncate', 'garbage', 'flipType', 'dropField', 'hugeValue', 'wrongShape', 'unknownField', 'deepNest'] as const;
export type JsonMutation = (typeof JSON_MUTATIONS)[number];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];

/** Literal JSON texts (numbers JSON.stringify cannot write, deep nesting) stand in a document as `\u0000raw:<index>`. */
const rawTexts: string[] = [];
const raw = (text: string): string => `\u0000raw:${rawTexts.push(text) - 1}`;

function stringify(value: Json): string {
  const text = JSON.stringify(value);
  const out = text.includes('\\u0000raw:') ? text.replace(/"\\u0000raw:(\d+)"/g, (_m, i: string) => rawTexts[Number(i)]!) : text;
  rawTexts.length = 0;
  return out;
}

/** Every path in `value` (the root is []), containers before their children. */
function paths(value: Json, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...at, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...at, k], out);
  return out;
}

function get(value: Json, path: Path): Json {
  let v: Json = value;
  for (const p of path) v = (v as Record<string | number, Json>)[p]!;
  return v;
}

/** `value` with the node at `path` replaced (a copy along the path; the root for []). */
function set(value: Json, path: Path, node: Json): Json {
  if (path.length === 0) return node;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[head as number] = set(value[head as number]!, rest, node);
    return copy;
  }
  const obj = value as Record<string, Json>;
  return { ...obj, [head!]: set(obj[head!]!, rest, node) };
}

function kindOf(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

const HUGE_NUMBERS = ['1e308', '-1e308', '1e400', '-1e400', '1e-400', '18446744073709551616', '123456789012345678901234567890', '-0', '4.9e-324'];

/** A value of another JSON type than `v`. */
function otherType(prng: Prng, v: Json): Json {
  const options: Json[] = [null, true, false, 0, -1, 3.5, '', 'x', '12', [], [1], {}, { a: 1 }];
  for (;;) {
    const candidate = prng.pick(options);
    if (kindOf(candidate) !== kindOf(v)) return candidate;
  }
}

/** Applies mutation `kind` to `valid` (JSON text); returns the mutated text (UTF-8 bytes for `garbage`). */
export function mutateJson(prng: Prng, kind: JsonMutation, valid: string): string | Buffer {
  const doc = JSON.parse(valid) as Json;
  const all = paths(doc);
  switch (kind) {
    case 'truncate':
      return valid.slice(0, prng.range(0, Math.max(0, valid.length - 1)));
    case 'garbage': {
      const bytes = Buffer.from(valid, 'utf8');
      const at = prng.int(bytes.length + 1);
      const junk = prng.pick([
        () => Buffer.from([0xff, 0xfe, 0xc0, 0x80]),
        () => Buffer.from([0xed, 0xa0, 0x80]),
        () => prng.bytes(prng.range(1, 64)),
        () => Buffer.from(prng.pick(['}', ']', ',', ':', '"', '{{', 'NaN', 'undefined', "'", '\\', '/*x*/'])),
      ])();
      return Buffer.concat([bytes.subarray(0, at), junk, bytes.subarray(at)]);
    }
    case 'flipType': {
      const path = prng.pick(all);
      return stringify(set(doc, path, otherType(prng, get(doc, path))));
    }
    case 'dropField': {
      const keyed = all.filter((p) => p.length > 0 && typeof p[p.length - 1] === 'string');
      if (keyed.length === 0) return stringify(otherType(prng, doc));
      const path = prng.pick(keyed);
      const parent = get(doc, path.slice(0, -1)) as Record<string, Json>;
      const { [path[path.length - 1] as string]: _dropped, ...rest } = parent;
      return stringify(set(doc, path.slice(0, -1), rest));
    }
    case 'hugeValue': {
      const numbers = all.filter((p) => typeof get(doc, p) === 'number');
      const strings = all.filter((p) => typeof get(doc, p) === 'string');
      if (numbers.length > 0 && (strings.length === 0 || prng.chance(0.8))) return stringify(set(doc, prng.pick(numbers), raw(prng.pick(HUGE_NUMBERS))));
      if (strings.length > 0) return stringify(set(doc, prng.pick(strings), 'x'.repeat(prng.pick([1_000, 70_000, 300_000]))));
      return stringify(set(doc, [], raw(prng.pick(HUGE_NUMBERS))));
    }
    case 'wrongShape': {
      const containers = all.filter((p) => typeof get(doc, p) === 'object' && get(doc, p) !== null);
      const path = containers.length > 0 ? prng.pick(containers) : [];
      const node = get(doc, path);
      const swapped: Json = Array.isArray(node) ? Object.fromEntries(node.map((v, i) => [String(i), v])) : Object.values(node as Record<string, Json>);
      return stringify(set(doc, path, prng.chance(0.7) ? swapped : prng.pick([null, 0, 'x', true])));
    }
    case 'unknownField': {
      const objects = all.filter((p) => kindOf(get(doc, p)) === 'object');
      if (objects.length === 0) return stringify([doc, { unknown: 1 }]);
      const path = prng.pick(objects);
      const name = prng.pick(['__proto__', 'constructor', 'extra', 'toString', 'type', '', 'x'.repeat(300)]);
      const node = { ...(get(doc, path) as Record<string, Json>) };
      // Defining (not assigning) keeps `__proto__` an own key, as a JSON parser would.
      Object.defineProperty(node, name, { value: prng.pick<Json>([1, 'x', null, { a: [1] }]), enumerable: true, configurable: true, writable: true });
      return stringify(set(doc, path, node));
    }
    case 'deepNest': {
      const depth = prng.pick([64, 1_000, 100_000]);
      const path = prng.pick(all);
      const open = prng.chance(0.5) ? '[' : '{"a":';
      const close = open === '[' ? ']' : '}';
      const inner = stringify(get(doc, path));
      const nested = open.repeat(depth) + inner + close.repeat(depth);
      return stringify(set(doc, path, raw(nested)));
    }
  }
}
