// Prepared statements that are never garbage collected. better-sqlite3 12 (the last line that runs on Node 20) aborts
// the process on Node 24 when it collects a Statement: its node::ObjectWrap destructor asserts on the Environment
// ("RemoveEnvironmentCleanupHook ... (env) != nullptr"); 13.x fixes that but needs Node 22. db.pragma() prepares a new
// statement on every call. Invariant: each SQL text is prepared once per database and stays referenced for the life of
// the process (a handful per journal; a closed database keeps its few).

import type Database from 'better-sqlite3';

const retained = new Map<Database.Database, Map<string, Database.Statement>>();

/** `sql` prepared on `db`, once. */
export function statement<P extends unknown[] = unknown[], R = unknown>(db: Database.Database, sql: string): Database.Statement<P, R> {
  let prepared = retained.get(db);
  if (!prepared) retained.set(db, (prepared = new Map()));
  let s = prepared.get(sql);
  if (!s) prepared.set(sql, (s = db.prepare(sql)));
  return s as Database.Statement<P, R>;
}

/** `PRAGMA source` through a retained statement: the first column of its first row, or undefined for a setting. */
export function pragma(db: Database.Database, source: string): unknown {
  const s = statement(db, `PRAGMA ${source}`);
  if (!s.reader) {
    s.run();
    return undefined;
  }
  return s.pluck().get();
}
