// Start-up wait for a remote venue: asks it for its markets until it answers, with backoff and one line per attempt.
// Invariants: bounded by timeoutMs (then a ConfigError naming venue.startTimeoutMs); only a venue that cannot be reached
// (a transport failure, HTTP 5xx) is waited for: one that answers anything else is up, and the caller goes on.

import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient } from '../../client/http.js';
import type { Clock } from '../../core/clock.js';
import { ConfigError, TransportError } from '../../core/errors.js';
import type { Dialect } from '../../core/types.js';
import { backoffDelayMs } from '../../core/backoff.js';

export interface VenueWaitOptions {
  dialect: Dialect;
  clock: Clock;
  /** Longest wait, ms; 0 tries once. */
  timeoutMs: number;
  log: { warn(fields: object, message: string): void };
}

/** Delays between attempts: about 1 s doubling to 10 s. */
const BACKOFF = { initialMs: 1_000, maxMs: 10_000 };

/** Resolves once the venue at `url` (REST base) answers; throws ConfigError('venue.startTimeoutMs', …) when it does not within timeoutMs. */
export async function waitForVenue(url: string, opts: VenueWaitOptions): Promise<void> {
  const probe = new HttpClient({ baseUrl: url, dialect: opts.dialect, clock: opts.clock, readRetries: 0 });
  const endMs = opts.clock.nowMs() + opts.timeoutMs;
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await probe.exchangeInfo();
        return;
      } catch (e) {
        if (!(e instanceof TransportError)) return;
        const why = failureReason(e.message);
        const leftMs = endMs - opts.clock.nowMs();
        if (leftMs <= 0) {
          throw new ConfigError(
            'venue.startTimeoutMs',
            `venue ${url} not reachable within ${secondsText(opts.timeoutMs)} s (${why}): start it, check venue.url, or raise venue.startTimeoutMs`,
            undefined,
            { cause: e },
          );
        }
        const waitMs = Math.min(leftMs, backoffDelayMs(attempt, BACKOFF));
        opts.log.warn({ venueUrl: url, attempt: attempt + 1, error: e.message }, `venue ${url} not reachable (${why}), retrying in ${secondsText(waitMs)} s`);
        await sleep(waitMs);
      }
    }
  } finally {
    probe.close();
  }
}

/** The short reason of a transport failure: the system error code (ECONNREFUSED, …) or the failure's own text. */
export function failureReason(message: string): string {
  return /\bE[A-Z]{3,}\b/.exec(message)?.[0] ?? message.slice(message.lastIndexOf(': ') + 2);
}

/** `ms` as seconds with at most one decimal. */
export function secondsText(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}
