// Process lifecycle of the daemon: SIGTERM/SIGINT stop it gracefully within a deadline, a second signal exits at
// once, and uncaught errors are logged with context before a non-zero exit. Invariant: handlers are removed on return.

import type { Logger as PinoLogger } from 'pino';
import type { Daemon } from './daemon.js';

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/** Exit status after a second signal (128 + SIGINT), and after a broken stop. */
const EXIT_FORCED = 130;
const EXIT_FAILED = 1;

/**
 * Waits for SIGTERM or SIGINT, then stops the daemon; resolves with the exit status: 0 when every order was
 * confirmed gone, 1 when orders were left or stopping failed. Past `deadlineMs` or on a second signal the
 * process exits at once.
 */
export function untilStopped(daemon: Daemon, deadlineMs: number, log: PinoLogger, exit: (code: number) => never = process.exit): Promise<number> {
  return new Promise((resolve) => {
    const second = (signal: NodeJS.Signals) => {
      log.warn({ signal }, 'second signal: exiting now without waiting');
      exit(EXIT_FORCED);
    };
    const first = (signal: NodeJS.Signals) => {
      for (const s of STOP_SIGNALS) {
        process.off(s, first);
        process.once(s, second);
      }
      const timer = setTimeout(() => {
        log.error({ deadlineMs }, 'shutdown deadline passed: exiting');
        exit(EXIT_FAILED);
      }, deadlineMs);
      timer.unref();
      daemon.stop(`signal ${signal}`).then(
        (summary) => finish(timer, summary.leftOpen > 0 || summary.timedOut ? EXIT_FAILED : 0),
        (e: unknown) => {
          log.error({ err: e }, 'stopping failed');
          finish(timer, EXIT_FAILED);
        },
      );
    };
    const finish = (timer: NodeJS.Timeout, code: number) => {
      clearTimeout(timer);
      for (const s of STOP_SIGNALS) process.off(s, second);
      resolve(code);
    };
    for (const s of STOP_SIGNALS) process.on(s, first);
  });
}

/** Logs uncaught exceptions and unhandled rejections with their origin, then exits non-zero. */
export function exitOnUncaught(log: PinoLogger, exit: (code: number) => never = process.exit): void {
  process.on('uncaughtException', (err, origin) => {
    log.fatal({ err, origin }, 'uncaught error: exiting');
    exit(EXIT_FAILED);
  });
}
