import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../src/app/args.js';
import { compare } from '../../../../src/app/commands/compare.js';
import { JournalError } from '../../../../src/store/index.js';

const run = (argv: string[]) => compare(argv, () => undefined);

describe('perpbot compare (arguments)', () => {
  it('names a missing --journal or --recording, a bad seed and stray arguments as usage errors', async () => {
    await expect(run(['--recording', 'r.rec'])).rejects.toThrow(new UsageError('--journal FILE is required'));
    await expect(run(['--journal', 'j.sqlite'])).rejects.toThrow(new UsageError('--recording FILE is required'));
    await expect(run(['--journal', 'j', '--recording', 'r', '--seed', '1.5'])).rejects.toThrow(/--seed must be a non-negative integer/);
    await expect(run(['--journal', 'j', '--recording', 'r', 'extra'])).rejects.toThrow(UsageError);
  });

  it('refuses a journal that does not exist before running anything (it never creates one)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'perpbot-compare-')), 'none.sqlite');
    await expect(run(['--journal', path, '--recording', 'r.rec'])).rejects.toThrow(JournalError);
  });
});
