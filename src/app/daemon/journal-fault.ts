// What the daemon does when its journal cannot be written (disk full, read-only file system): trading halts on every
// account (the HALTED path cancels every resting order), each failed write is counted by kind, the first one logged;
// rows the journal dropped while it kept failing (past its retained bound) are counted and logged.
// Invariants: never throws; once a write failed the daemon reports the journal failed until it ends (a restart is the way back).

import { Counter, type Registry } from 'prom-client';
import type { JournalWriteKind } from '../../store/index.js';
import type { SessionEntry } from './control.js';

export class JournalFault {
  private error: string | undefined;
  private readonly errors: Counter<'kind'>;
  private readonly dropped: Counter;

  constructor(
    registry: Registry,
    private readonly log: { error(fields: object, message: string): void },
    /** The daemon's sessions, halted on each failure (the array may still grow). */
    private readonly sessions: readonly SessionEntry[],
  ) {
    this.errors = new Counter({
      name: 'perpbot_journal_write_errors_total',
      help: 'Journal writes that failed, by kind of row (batch, settle, nonce, order, fill, ...); the first one halted trading.',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.dropped = new Counter({
      name: 'perpbot_journal_rows_dropped_total',
      help: 'Journal rows dropped unwritten while writes kept failing (the oldest, past the rows kept for a later commit).',
      registers: [registry],
    });
  }

  /** The first failure's SQLite message, or undefined while every write succeeded. */
  get message(): string | undefined {
    return this.error;
  }

  /** `journal write failed: <message>` (the halt reason), or undefined while every write succeeded. */
  get reason(): string | undefined {
    return this.error === undefined ? undefined : `journal write failed: ${this.error}`;
  }

  /** The Journal's onWriteError: counts the write, logs the first failure and halts every session not halted yet. */
  readonly onWriteError = (kind: JournalWriteKind, error: Error): void => {
    this.errors.inc({ kind });
    if (this.error === undefined) {
      this.error = error.message;
      this.log.error({ kind, error: error.message, code: (error as { code?: unknown }).code }, 'journal write failed: trading halted on every account');
    }
    this.haltAll();
  };

  /** The Journal's onRowsDropped: counts and logs rows lost while the journal stays broken. */
  readonly onRowsDropped = (rows: number): void => {
    this.dropped.inc(rows);
    this.log.error({ rows }, 'journal rows dropped: the journal still cannot be written and keeps only its newest rows');
  };

  /** Halts every session not halted yet, once a write failed (sessions that joined after the failure included). */
  haltAll(): void {
    const reason = this.reason;
    if (reason === undefined) return;
    for (const { session } of this.sessions) if (session.risk.state !== 'HALTED') session.risk.halt(reason);
  }

  /** The journal part of /status. */
  status(): { ok: boolean; error: string | null } {
    return { ok: this.error === undefined, error: this.reason ?? null };
  }
}
