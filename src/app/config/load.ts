// Reading the daemon config: YAML with environment interpolation, schema, checks between fields, paths, strategies.
// Invariants: every problem of a file, its strategies and its key files is reported at once (ConfigErrors with key paths and lines) before anything connects; returned paths are absolute.

import { dirname, resolve } from 'node:path';
import type { BacktestConfig } from '../../backtest/config.js';
import type { LatencyConfig } from '../../backtest/models.js';
import { ConfigError, ConfigErrors, type ValidationError } from '../../core/errors.js';
import { loadStrategies, StrategyLoadError, type LoadedStrategy, type StrategyModuleSpec } from '../../strategy/loader.js';
import { readConfigFile, readYamlDocument, validateYaml, type YamlDocument } from '../yaml-config.js';
import { crossFieldIssues, keyFileIssues } from './checks.js';
import { daemonConfigSchema, type DaemonConfig } from './schema.js';

export interface ParseOptions {
  /** Variables for `${NAME}` interpolation; absent, values are taken as written. */
  env?: NodeJS.ProcessEnv;
  /** Directory relative paths start from (the config file's). */
  baseDir: string;
}

/** A `module` value naming a file rather than a built-in strategy (built-in names have no slash). */
function isPath(module: string): boolean {
  return /[\\/]/.test(module) && !module.startsWith('file:');
}

function withJournalPaths(l: BacktestConfig['latency'], baseDir: string): BacktestConfig['latency'] {
  const abs = (m: LatencyConfig): LatencyConfig => (m.model === 'journal' ? { ...m, path: resolve(baseDir, m.path) } : m);
  return { ...l, entry: abs(l.entry), response: abs(l.response) };
}

function withAbsolutePaths(c: DaemonConfig, baseDir: string): DaemonConfig {
  return {
    ...c,
    journal: { ...c.journal, path: resolve(baseDir, c.journal.path) },
    record: c.record && { ...c.record, out: resolve(baseDir, c.record.out) },
    backtest: { ...c.backtest, latency: withJournalPaths(c.backtest.latency, baseDir) },
    accounts: c.accounts.map((a) => (a.keyFile === undefined ? a : { ...a, keyFile: resolve(baseDir, a.keyFile) })),
    strategies: c.strategies.map((s) => (isPath(s.module) ? { ...s, module: resolve(baseDir, s.module) } : s)),
  };
}

function read(text: string, source: string, opts: ParseOptions): { doc: YamlDocument; config: DaemonConfig } {
  const doc = readYamlDocument(text, source, opts.env ? { env: opts.env } : {});
  const config = validateYaml(doc, daemonConfigSchema, crossFieldIssues);
  return { doc, config: withAbsolutePaths(config, opts.baseDir) };
}

/** Parses and validates config `text` (strategies are not loaded); throws ConfigErrors listing every problem. */
export function parseDaemonConfig(text: string, source: string, opts: ParseOptions): DaemonConfig {
  return read(text, source, opts).config;
}

/** Reads and validates the config file at `path` with `${NAME}` taken from `env`; throws ConfigErrors listing every problem. */
export function loadDaemonConfig(path: string, env: NodeJS.ProcessEnv = process.env): DaemonConfig {
  return parseDaemonConfig(readConfigFile(path), path, { env, baseDir: dirname(resolve(path)) });
}

/** The key path and the bare message of a strategy loader problem. */
function issueOf(e: ConfigError | ValidationError): { field: string; message: string } {
  const field = e instanceof ConfigError ? e.key : e.field;
  const prefix = `${field}: `;
  return { field, message: field && e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message };
}

/** The strategy entries of a file that did not validate: those with a module name (the others are already reported). */
function rawStrategySpecs(data: unknown): StrategyModuleSpec[] {
  const list = (data as { strategies?: unknown } | null)?.strategies;
  if (!Array.isArray(list)) return [];
  return list.map((entry: unknown) => {
    const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    return { ...(typeof e.name === 'string' && { name: e.name }), module: typeof e.module === 'string' ? e.module : '', params: e.params };
  });
}

/**
 * Reads the config file at `path` (as loadDaemonConfig), loads every strategy module and validates its params, and
 * checks the key files (present unless created, readable, a key); nothing is started. Throws ConfigErrors listing
 * every problem of all three at once, each with its line. Returns the document too (the lines of later checks' keys).
 * `text` stands for the file's contents (a sweep's edited copy); relative paths still start from `path`'s directory.
 */
export async function checkDaemonConfig(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  text: string = readConfigFile(path),
): Promise<{ config: DaemonConfig; strategies: LoadedStrategy[]; doc: YamlDocument }> {
  const baseDir = dirname(resolve(path));
  const doc = readYamlDocument(text, path, { env });
  const problems: ConfigError[] = [];
  let config: DaemonConfig | undefined;
  try {
    config = withAbsolutePaths(validateYaml(doc, daemonConfigSchema, crossFieldIssues), baseDir);
  } catch (e) {
    if (!(e instanceof ConfigErrors)) throw e;
    problems.push(...e.problems);
  }
  const specs = config
    ? config.strategies.map((s) => ({ ...(s.name !== undefined && { name: s.name }), module: s.module, params: s.params }))
    : rawStrategySpecs(doc.data).map((s) => ({ ...s, module: s.module && isPath(s.module) ? resolve(baseDir, s.module) : s.module }));
  let strategies: LoadedStrategy[] = [];
  try {
    strategies = await loadStrategies(
      specs.filter((s) => s.module !== ''),
      { root: 'strategies', baseDir },
    );
  } catch (e) {
    if (!(e instanceof StrategyLoadError)) throw e;
    problems.push(
      ...e.problems.map((p) => {
        const { field, message } = issueOf(p);
        return doc.problem(field, message);
      }),
    );
  }
  const accounts = (doc.data as { accounts?: unknown } | null)?.accounts;
  if (Array.isArray(accounts))
    problems.push(
      ...keyFileIssues(
        accounts.map((a: unknown) => (typeof a === 'object' && a !== null ? a : {})),
        baseDir,
      ).map((i) => doc.problem(i.field, i.message)),
    );
  if (problems.length > 0)
    throw new ConfigErrors(
      path,
      problems.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity)),
    );
  return { config: config!, strategies, doc };
}
