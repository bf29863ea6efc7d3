// The daemon's structured logger: pino JSON lines (ISO time, string level), children per component and strategy.
// Invariant: values under secret-looking keys (top level and nested up to three objects deep) print as '[redacted]'.

import pino from 'pino';

export const REDACTED = '[redacted]';

/** Keys whose values never reach the log output. */
export const SECRET_KEYS = [
  'secretKey',
  'secret',
  'privateKey',
  'seed',
  'mnemonic',
  'keypair',
  'token',
  'authorization',
  'Authorization',
  'password',
  'apiKey',
  'apiSecret',
] as const;

const NESTING = ['', '*.', '*.*.', '*.*.*.'];

/** pino redaction paths: each secret key at the top level and below one, two or three objects (or arrays). */
export const REDACT_PATHS: readonly string[] = NESTING.flatMap((prefix) => SECRET_KEYS.map((key) => `${prefix}${key}`));

export interface LoggerOptions {
  /** pino level name (`trace` … `fatal`, or `silent`). */
  readonly level: string;
  /**
   * Where JSON lines go; default stdout through an asynchronous pino.destination, which pino itself
   * flushes synchronously on process exit (it registers the stream with on-exit-leak-free).
   */
  readonly destination?: pino.DestinationStream;
  /** Written as `name` on every line when given. */
  readonly name?: string;
}

/**
 * A pino logger. No `pid` / `hostname` on each line: the service manager or container runtime already
 * records where a line came from, and leaving them out keeps lines short. Throws for an unknown level.
 */
export function createLogger(opts: LoggerOptions): pino.Logger {
  return pino(
    {
      level: opts.level,
      base: opts.name === undefined ? undefined : { name: opts.name },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    },
    opts.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/** A child logger whose lines carry `component`. */
export function componentLogger(parent: pino.Logger, component: string): pino.Logger {
  return parent.child({ component });
}

/** A child logger whose lines carry `strategy`. */
export function strategyLogger(parent: pino.Logger, strategy: string): pino.Logger {
  return parent.child({ strategy });
}
