// The logging port of every layer: a pino-compatible `warn`/`info` (and `error`).
// Invariant: nothing here writes anywhere by itself; the composition root injects a real logger.

export interface Logger {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
  /** For conditions an operator must act on; warn when absent. */
  error?(fields: object, message: string): void;
}

/** Discards everything (the default until the daemon wires pino). */
export const silentLogger: Logger = { warn: () => undefined, info: () => undefined };
