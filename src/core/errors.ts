// Error tree for perpbot: one root class with a stable string `code` and an optional `cause`.
// Invariant: messages never contain secret key material; codes are stable identifiers, each in docs/errors.md.

/** Every code a PerpbotError carries (the subclasses outside core included); docs/errors.md lists exactly these. */
export const ERROR_CODES = [
  'INVALID_INPUT',
  'CONFIG',
  'USAGE',
  'SIGNING',
  'TRANSPORT',
  'VENUE_REJECT',
  'SUBSCRIPTION_REFUSED',
  'STRATEGY',
  'STRATEGY_LOAD',
  'JOURNAL',
  'NONCE_STORE',
  'NONCE_EXHAUSTED',
  'DEDICATED_CPU',
  'RECORDING',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class PerpbotError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Bad input caught before anything is signed or sent: names the offending field (dot path). */
export class ValidationError extends PerpbotError {
  readonly field: string;

  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super('INVALID_INPUT', field ? `${field}: ${message}` : message, options);
    this.field = field;
  }
}

/** Configuration errors name the key and, when known, the line of the file. */
export class ConfigError extends PerpbotError {
  readonly key: string;
  readonly line: number | undefined;

  constructor(key: string, message: string, line?: number, options?: { cause?: unknown }) {
    super('CONFIG', `${key}${line === undefined ? '' : ` (line ${line})`}: ${message}`, options);
    this.key = key;
    this.line = line;
  }
}

/**
 * Every problem found in one configuration source, reported at once. `key` and `line` are the first
 * problem's; the message lists them all, one a line.
 */
export class ConfigErrors extends ConfigError {
  readonly problems: readonly ConfigError[];

  constructor(source: string, problems: readonly ConfigError[]) {
    super(problems[0]?.key ?? source, '', problems[0]?.line);
    this.problems = problems;
    this.message = `${problems.length} problem${problems.length === 1 ? '' : 's'} in ${source}:\n${problems.map((p) => `  ${p.message}`).join('\n')}`;
  }
}

export class SigningError extends PerpbotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SIGNING', message, options);
  }
}

export class TransportError extends PerpbotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TRANSPORT', message, options);
  }
}

export class VenueRejectError extends PerpbotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('VENUE_REJECT', message, options);
  }
}

export class StrategyError extends PerpbotError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('STRATEGY', message, options);
  }
}
