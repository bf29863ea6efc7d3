import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { setEventLoopNice } from '../../../src/latency/priority.js';

/** Nice value of thread `tid` of this process (field 19 of its stat, after the command name). */
function threadNice(tid: string): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

const original = getPriority();

describe('setEventLoopNice', () => {
  afterEach(() => {
    try {
      setPriority(original);
    } catch {
      // unprivileged: this thread keeps the lower priority for the rest of the file
    }
  });

  it.runIf(process.platform === 'linux' && original < 19)("sets the calling thread's nice value only and returns the one it had", () => {
    const nice = Math.min(19, original + 1);
    const tids = readdirSync('/proc/self/task');
    expect(tids.length).toBeGreaterThan(1);
    const before = Object.fromEntries(tids.map((t) => [t, threadNice(t)]));

    expect(setEventLoopNice(nice)).toBe(original);

    expect(getPriority()).toBe(nice);
    const changed = tids.filter((t) => threadNice(t) !== before[t]);
    expect(changed).toHaveLength(1);
    expect(threadNice(changed[0]!)).toBe(nice);
  });

  it('refuses a value outside -20..19 or not an integer, naming it', () => {
    for (const nice of [-21, 20, 0.5, Number.NaN]) expect(() => setEventLoopNice(nice)).toThrow(`got ${nice}`);
    expect(getPriority()).toBe(original);
  });
});
