// The event loop's scheduling priority (nice), for a host whose CPUs other processes share: there a kill or a cancel
// waits mostly in the kernel's run queue (bench preempt), and a lower nice value than theirs can shorten that wait.
// Invariant: only the calling thread (the event loop) changes (Linux sets a thread's nice value); threads it starts
// later inherit it, threads already running keep theirs.

import { getPriority, setPriority } from 'node:os';

/**
 * Sets the calling thread's nice value (-20 runs first .. 19 runs last); returns the value it had. Throws RangeError
 * for a value outside that range, and the OS's error (EACCES) when it refuses: a value below the current one needs
 * CAP_SYS_NICE (root, `docker run --cap-add SYS_NICE`) or a high enough RLIMIT_NICE.
 */
export function setEventLoopNice(nice: number): number {
  if (!Number.isInteger(nice) || nice < -20 || nice > 19) throw new RangeError(`nice must be an integer from -20 to 19, got ${nice}`);
  const before = getPriority();
  setPriority(nice);
  return before;
}
