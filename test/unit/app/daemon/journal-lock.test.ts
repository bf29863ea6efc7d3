import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockJournal } from '../../../../src/app/daemon/journal-lock.js';

const journalIn = () => join(mkdtempSync(join(tmpdir(), 'perpbot-lock-')), 'data', 'perpbot.sqlite');

describe('lockJournal', () => {
  it('takes the lock (creating the folder), and its release removes it', () => {
    const journal = journalIn();
    const release = lockJournal(journal);
    expect(readFileSync(`${journal}.lock`, 'utf8').trim()).toBe(String(process.pid));
    release();
    expect(existsSync(`${journal}.lock`)).toBe(false);
  });

  it('a lock held by another live process is refused naming journal.path, its pid and the lock file', () => {
    const journal = journalIn();
    lockJournal(journal)();
    writeFileSync(`${journal}.lock`, `${process.ppid}\n`);
    expect(() => lockJournal(journal)).toThrow(
      expect.objectContaining({
        code: 'CONFIG',
        message: expect.stringMatching(new RegExp(`journal\\.path.*in use by another perpbot \\(pid ${process.ppid}\\).*\\.lock`)),
      }),
    );
  });

  it('the lock of a process that is gone (kill -9) is taken over', () => {
    const journal = journalIn();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    lockJournal(journal)();
    writeFileSync(`${journal}.lock`, `${gone}\n`);
    const release = lockJournal(journal);
    expect(readFileSync(`${journal}.lock`, 'utf8').trim()).toBe(String(process.pid));
    release();
  });
});
