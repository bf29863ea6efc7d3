// One daemon per journal: a lock file beside the journal names the process that writes it. A second daemon on the same
// journal (a second `npm start` with the same data/) would resolve the first one's unanswered batches as its own and
// mix their records, so it stops in one line before it acts. Invariants: a lock whose process is gone (kill -9) is
// taken over; only the holder removes its lock.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../../core/errors.js';

/** Takes the lock of the journal at `path` (creating its directory); returns its release. Throws ConfigError('journal.path', …) while another live process holds it. */
export function lockJournal(path: string): () => void {
  const lockPath = `${path}.lock`;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  for (;;) {
    try {
      writeFileSync(lockPath, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return () => {
        if (holder(lockPath) === process.pid) rmSync(lockPath, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (!existsSync(lockPath)) continue;
    // A lock without a readable pid may be one being written this moment: held, like a live one.
    const pid = holder(lockPath);
    if (pid === undefined || (pid !== process.pid && alive(pid))) {
      throw new ConfigError(
        'journal.path',
        `journal ${path} is in use by another perpbot (pid ${pid ?? 'unknown'}): stop it, or give this daemon its own journal.path (PERPBOT_DATA_DIR with config/default.yaml); remove ${lockPath} if no perpbot runs`,
      );
    }
    // Its process is gone (kill -9): a stale lock.
    rmSync(lockPath, { force: true });
  }
}

/** The pid written in the lock file, or undefined when it is missing or unreadable. */
function holder(lockPath: string): number | undefined {
  try {
    const pid = Number(readFileSync(lockPath, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
