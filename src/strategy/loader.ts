// Loads strategy modules named in the config (a built-in name or a path), checks they come from defineStrategy, validates params.
// Invariants: built-ins live in `strategies/` two levels above this file, in source (.ts) and compiled (dist/, .js) alike; TypeScript
// files load through tsx's hooks on every Node version (no compile step, no reliance on the runtime's type stripping); nothing is started here.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, PerpbotError, ValidationError } from '../core/errors.js';
import { issues, safeParse } from '../core/schema.js';
import { SYMBOL_PATTERN } from '../core/types.js';
import { isStrategyDefinition, type StrategyDefinition } from './api.js';

const HERE = fileURLToPath(import.meta.url);

/**
 * Extensions tried, best first: this file's own extension decides the runtime. Running TypeScript
 * (vitest, tsx) prefers `.ts`; running compiled JavaScript from dist/ prefers `.js`.
 */
export const MODULE_EXTENSIONS: readonly string[] = extname(HERE) === '.ts' ? ['.ts', '.js', '.mjs'] : ['.js', '.mjs', '.ts'];

/** `strategies/` of the repository, or `dist/strategies/` when running compiled (both sit two levels above this file). */
export const BUILTIN_STRATEGY_DIR = resolve(dirname(HERE), '../../strategies');

/** A config value naming a built-in strategy rather than a path: `market-maker`. */
const BUILTIN_NAME = /^[a-z0-9][a-z0-9-]*$/;
/** Instance names (metric labels, log fields, /status keys). */
const INSTANCE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const KNOWN_EXTENSIONS = new Set(['.ts', '.mts', '.js', '.mjs']);
const TYPESCRIPT_EXTENSIONS = new Set(['.ts', '.mts', '.cts']);

export interface ResolveOptions {
  /** Directory relative paths start from (the config file's). Default: the working directory. */
  baseDir?: string;
  /** Where built-in names are looked up. Default BUILTIN_STRATEGY_DIR. */
  builtinDir?: string;
  /** Extensions tried, best first. Default MODULE_EXTENSIONS. */
  extensions?: readonly string[];
}

export type ModuleResolution = { readonly ok: true; readonly file: string } | { readonly ok: false; readonly tried: readonly string[] };

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The file a `module` value names. A bare lower-case name (`market-maker`) is a built-in:
 * `<builtinDir>/<name><ext>` for each extension. Anything else is a path (or file: URL) relative to
 * `baseDir`: tried as written, then with each extension added (no extension) or swapped (`.js` ↔ `.ts`).
 */
export function resolveStrategyModule(module: string, opts: ResolveOptions = {}): ModuleResolution {
  const extensions = opts.extensions ?? MODULE_EXTENSIONS;
  let candidates: string[];
  if (BUILTIN_NAME.test(module)) {
    const dir = opts.builtinDir ?? BUILTIN_STRATEGY_DIR;
    candidates = extensions.map((e) => resolve(dir, module + e));
  } else {
    const path = module.startsWith('file:') ? fileURLToPath(module) : module;
    const full = isAbsolute(path) ? path : resolve(opts.baseDir ?? process.cwd(), path);
    const ext = extname(full);
    const stem = KNOWN_EXTENSIONS.has(ext) ? full.slice(0, -ext.length) : full;
    candidates = [full, ...extensions.map((e) => stem + e)];
  }
  const tried = [...new Set(candidates)];
  const file = tried.find(isFile);
  return file ? { ok: true, file } : { ok: false, tried };
}

/** Names of the built-in strategies (files in `builtinDir` with a usable extension). */
export function builtinStrategyNames(opts: Pick<ResolveOptions, 'builtinDir' | 'extensions'> = {}): string[] {
  const dir = opts.builtinDir ?? BUILTIN_STRATEGY_DIR;
  const extensions = opts.extensions ?? MODULE_EXTENSIONS;
  if (!existsSync(dir)) return [];
  const names = new Set<string>();
  for (const f of readdirSync(dir)) {
    const ext = extname(f);
    const stem = f.slice(0, -ext.length);
    if (extensions.includes(ext) && !f.endsWith('.d.ts') && BUILTIN_NAME.test(stem)) names.add(stem);
  }
  return [...names].sort();
}

/** One entry of the config's `strategies` list, as far as loading goes. */
export interface StrategyModuleSpec {
  /** Instance name; default the definition's name. */
  readonly name?: string;
  /** A built-in name or a path. */
  readonly module: string;
  /** Validated by the definition's schema; absent is `{}`. */
  readonly params?: unknown;
}

export interface LoadOptions extends ResolveOptions {
  /** Config path of the entry, prefixed to error keys. Default `strategies[0]`. */
  key?: string;
}

export interface LoadedStrategy<P = unknown> {
  /** Instance name. */
  readonly name: string;
  readonly module: string;
  /** The file that was imported. */
  readonly file: string;
  readonly definition: StrategyDefinition<P>;
  /** Validated (and defaulted) params. */
  readonly params: P;
  /** Markets the definition declares for these params (empty when it declares none). */
  readonly symbols: readonly string[];
}

/** True when this file runs as TypeScript (vitest, tsx): the runtime then loads TypeScript plugins itself. */
const RUNNING_TYPESCRIPT = extname(HERE) === '.ts';

let typescriptHooks: Promise<void> | undefined;

/**
 * Registers tsx's module hooks once for the process (ESM and CommonJS), not in a namespace: a plugin's JavaScript imports
 * (`perpbot`, `rxjs`) then resolve to the daemon's own module instances.
 */
function registerTypeScript(): Promise<void> {
  typescriptHooks ??= Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]).then(([esm, cjs]) => {
    esm.register();
    cjs.register();
  });
  return typescriptHooks;
}

async function importModule(file: string): Promise<Record<string, unknown>> {
  if (TYPESCRIPT_EXTENSIONS.has(extname(file)) && !RUNNING_TYPESCRIPT) await registerTypeScript();
  return (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Record<string, unknown>;
}

/** The default export; a TypeScript file outside a `"type": "module"` package is compiled to CommonJS, which nests it in module.exports. */
function defaultExport(namespace: Record<string, unknown>): unknown {
  const value = namespace.default;
  const nested = value as { __esModule?: unknown; default?: unknown } | null | undefined;
  return typeof nested === 'object' && nested !== null && nested.__esModule === true ? nested.default : value;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'a plain object' : `a ${typeof value}`;
}

function oneLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * Imports the module of `spec`, checks its default export and validates its params.
 * Throws ConfigError naming `<key>.module` or `<key>.name`, ValidationError naming `<key>.params.<path>`, or
 * StrategyLoadError listing every problem of the params when there are several.
 */
export async function loadStrategy(spec: StrategyModuleSpec, opts: LoadOptions = {}): Promise<LoadedStrategy> {
  const key = opts.key ?? 'strategies[0]';
  if (typeof spec.module !== 'string' || spec.module === '') throw new ConfigError(`${key}.module`, 'expected a built-in strategy name or a module path');
  const resolved = resolveStrategyModule(spec.module, opts);
  if (!resolved.ok) {
    const builtin = BUILTIN_NAME.test(spec.module);
    const hint = builtin ? `; built-in strategies: ${builtinStrategyNames(opts).join(', ') || 'none'}` : '';
    throw new ConfigError(`${key}.module`, `no strategy module ${JSON.stringify(spec.module)} (tried ${resolved.tried.join(', ')})${hint}`);
  }
  const file = resolved.file;
  let namespace: Record<string, unknown>;
  try {
    namespace = await importModule(file);
  } catch (e) {
    throw new ConfigError(`${key}.module`, `cannot load ${file}: ${oneLine(e)}`, undefined, { cause: e });
  }
  const definition = defaultExport(namespace);
  if (definition === undefined) {
    throw new ConfigError(`${key}.module`, `${file} has no default export (export default defineStrategy({...}))`);
  }
  if (!isStrategyDefinition(definition)) {
    throw new ConfigError(
      `${key}.module`,
      `the default export of ${file} is ${kindOf(definition)} not made by defineStrategy (export default defineStrategy({...}), imported from 'perpbot')`,
    );
  }
  const name = spec.name ?? definition.name;
  if (typeof name !== 'string' || !INSTANCE_NAME.test(name)) {
    throw new ConfigError(`${key}.name`, `expected letters, digits, '_', '.', '-' (at most 64), got ${JSON.stringify(name)}`);
  }
  let params: unknown;
  try {
    const parsed = safeParse(definition.params, spec.params ?? {}, `${key}.params`);
    if (!parsed.ok) {
      const found = issues(definition.params, spec.params ?? {}, `${key}.params`);
      throw found.length > 1 ? new StrategyLoadError(found.map((i) => new ValidationError(i.field, i.message))) : parsed.error;
    }
    params = parsed.value;
  } catch (e) {
    if (e instanceof ValidationError || e instanceof StrategyLoadError) throw e;
    throw new ConfigError(`${key}.params`, `the params validator of ${definition.name} threw: ${e instanceof Error ? e.message : String(e)}`, undefined, {
      cause: e,
    });
  }
  let symbols: readonly string[] = [];
  if (definition.symbols) {
    try {
      symbols = [...definition.symbols(params)];
    } catch (e) {
      throw new ConfigError(`${key}.module`, `${definition.name}: symbols(params) threw: ${e instanceof Error ? e.message : String(e)}`, undefined, {
        cause: e,
      });
    }
    const bad = symbols.find((s) => typeof s !== 'string' || !SYMBOL_PATTERN.test(s));
    if (bad !== undefined) throw new ConfigError(`${key}.params`, `${definition.name} declares an invalid market ${JSON.stringify(bad)}`);
  }
  return Object.freeze({ name, module: spec.module, file, definition, params, symbols: Object.freeze(symbols) });
}

/** Every problem found while loading a config's strategies (ConfigError or ValidationError, each naming its key). */
export class StrategyLoadError extends PerpbotError {
  constructor(readonly problems: readonly (ConfigError | ValidationError)[]) {
    super('STRATEGY_LOAD', `${problems.length} problem${problems.length === 1 ? '' : 's'} in strategies:\n${problems.map((p) => `  ${p.message}`).join('\n')}`);
  }
}

/**
 * Loads every entry (keys `<root>[i]`), checking instance names are unique. Throws StrategyLoadError
 * listing every problem at once.
 */
export async function loadStrategies(specs: readonly StrategyModuleSpec[], opts: ResolveOptions & { root?: string } = {}): Promise<LoadedStrategy[]> {
  const root = opts.root ?? 'strategies';
  const problems: (ConfigError | ValidationError)[] = [];
  const loaded: LoadedStrategy[] = [];
  const seen = new Map<string, number>();
  for (const [i, spec] of specs.entries()) {
    try {
      const s = await loadStrategy(spec, { ...opts, key: `${root}[${i}]` });
      const first = seen.get(s.name);
      if (first !== undefined)
        problems.push(
          new ConfigError(`${root}[${i}].name`, `duplicate strategy name ${JSON.stringify(s.name)} (also ${root}[${first}]); give each instance a name`),
        );
      else seen.set(s.name, i);
      loaded.push(s);
    } catch (e) {
      if (e instanceof ConfigError || e instanceof ValidationError) problems.push(e);
      else if (e instanceof StrategyLoadError) problems.push(...e.problems);
      else throw e;
    }
  }
  if (problems.length > 0) throw new StrategyLoadError(problems);
  return loaded;
}
