import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { pragma, statement } from '../../../src/store/statements.js';

/** An in-memory database counting the statements it prepares. */
function countingDb(): { db: Database.Database; prepared: () => number } {
  const db = new Database(':memory:');
  let n = 0;
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => (n++, prepare(sql))) as typeof db.prepare;
  return { db, prepared: () => n };
}

describe('retained statements', () => {
  it('prepares each SQL text once per database and hands back the same statement', () => {
    const { db, prepared } = countingDb();
    db.exec('CREATE TABLE t (x INTEGER)');
    for (let i = 0; i < 50; i++) statement(db, 'INSERT INTO t (x) VALUES (?)').run(i);
    expect(statement<[], { n: number }>(db, 'SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 50 });
    expect(prepared()).toBe(2);
    expect(statement(db, 'SELECT COUNT(*) AS n FROM t')).toBe(statement(db, 'SELECT COUNT(*) AS n FROM t'));
    const other = countingDb();
    other.db.exec('CREATE TABLE t (x INTEGER)');
    expect(statement(other.db, 'SELECT COUNT(*) AS n FROM t')).not.toBe(statement(db, 'SELECT COUNT(*) AS n FROM t'));
  });

  it('runs pragmas through retained statements: settings return undefined, readings their value', () => {
    const { db, prepared } = countingDb();
    for (let i = 0; i < 20; i++) {
      expect(pragma(db, 'synchronous = FULL')).toBeUndefined();
      expect(pragma(db, 'synchronous')).toBe(2);
      expect(pragma(db, 'synchronous = NORMAL')).toBeUndefined();
      expect(pragma(db, 'synchronous')).toBe(1);
    }
    expect(prepared()).toBe(3);
    expect(pragma(db, 'user_version = 7')).toBeUndefined();
    expect(pragma(db, 'user_version')).toBe(7);
  });
});
