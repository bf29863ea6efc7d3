// The daemon configuration's public face: types, schema and the functions that read, check and load it.
// Invariant: re-exports only; the daemon and the CLI import configuration from here.

export { checkDaemonConfig, loadDaemonConfig, parseDaemonConfig, type ParseOptions } from './load.js';
export { daemonConfigSchema, LOG_LEVELS, type AccountConfig, type DaemonConfig, type LogLevel, type StrategyConfig } from './schema.js';
