// Command-line option parsing shared by every subcommand, with usage errors that name the option.
// Invariant: unknown options and missing values are errors, never silently ignored.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { PerpbotError } from '../core/errors.js';

/** A usage mistake: the CLI prints it with the command's help and exits with status 2. */
export class UsageError extends PerpbotError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommand<O extends Options>(
  argv: string[],
  options: O,
  allowPositionals = false,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: boolean; strict: true }>> {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Returns `value` if it is one of `allowed`, else a UsageError naming `--option`. */
export function oneOf<T extends string>(option: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${option} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`);
}

/** The value of a required option; a UsageError `--option WHAT is required` when it is missing. */
export function required(option: string, value: string | undefined, what = 'FILE'): string {
  if (value === undefined) throw new UsageError(`--${option} ${what} is required`);
  return value;
}

/** `--seed`: a non-negative integer, 1 when it is not given. */
export function seedOf(text: string | undefined): number {
  const seed = text === undefined ? 1 : Number(text);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new UsageError(`--seed must be a non-negative integer, got ${JSON.stringify(text)}`);
  return seed;
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds of a duration written as a number and a unit (90s, 30m, 24h, 7d); undefined for other text. */
export function durationMs(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([smhd])$/.exec(text);
  return m ? Math.round(Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]) : undefined;
}
