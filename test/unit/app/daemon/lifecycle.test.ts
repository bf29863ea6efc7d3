import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Daemon, StopSummary } from '../../../../src/app/daemon/daemon.js';
import { untilStopped } from '../../../../src/app/daemon/lifecycle.js';
import { createLogger } from '../../../../src/telemetry/index.js';

const ROOT = resolve(import.meta.dirname, '../../../..');
const log = createLogger({ level: 'silent' });
const baseline = { SIGTERM: process.listenerCount('SIGTERM'), SIGINT: process.listenerCount('SIGINT') };

function fakeDaemon(stop: () => Promise<StopSummary>): Daemon & { reasons: string[] } {
  const reasons: string[] = [];
  return { venueUrl: '', metricsUrl: '', readiness: () => ({ ready: true, reasons: [] }), reasons, stop: (reason) => (reasons.push(reason), stop()) };
}

/** An exit that records its code instead of ending the test process. */
function recordingExit(): { codes: number[]; exit: (code: number) => never } {
  const codes: number[] = [];
  return { codes, exit: ((code: number) => void codes.push(code)) as (code: number) => never };
}

afterEach(() => {
  for (const s of ['SIGTERM', 'SIGINT'] as const) for (const l of process.listeners(s).slice(baseline[s])) process.off(s, l);
});

describe('daemon lifecycle', () => {
  it('a signal stops the daemon once; exit status 0 when no order was left; handlers are removed', async () => {
    const daemon = fakeDaemon(async () => ({ leftOpen: 0, timedOut: false }));
    const { codes, exit } = recordingExit();
    const done = untilStopped(daemon, 10_000, log, exit);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await done).toBe(0);
    expect(daemon.reasons).toEqual(['signal SIGTERM']);
    expect(codes).toEqual([]);
    expect(process.listenerCount('SIGTERM')).toBe(baseline.SIGTERM);
    expect(process.listenerCount('SIGINT')).toBe(baseline.SIGINT);
  });

  it('exit status 1 when orders were left open or the cancel wait timed out', async () => {
    for (const summary of [
      { leftOpen: 2, timedOut: false },
      { leftOpen: 0, timedOut: true },
    ]) {
      const done = untilStopped(
        fakeDaemon(async () => summary),
        10_000,
        log,
        recordingExit().exit,
      );
      process.emit('SIGINT', 'SIGINT');
      expect(await done).toBe(1);
    }
  });

  it('a second signal exits at once (130) while the first stop is still running', () => {
    const daemon = fakeDaemon(() => new Promise(() => undefined));
    const { codes, exit } = recordingExit();
    void untilStopped(daemon, 10_000, log, exit);
    process.emit('SIGINT', 'SIGINT');
    expect(codes).toEqual([]);
    process.emit('SIGTERM', 'SIGTERM');
    expect(codes).toEqual([130]);
    expect(daemon.reasons).toEqual(['signal SIGINT']);
  });

  it('past the deadline the process exits with 1', () => {
    vi.useFakeTimers();
    try {
      const { codes, exit } = recordingExit();
      void untilStopped(
        fakeDaemon(() => new Promise(() => undefined)),
        30,
        log,
        exit,
      );
      process.emit('SIGTERM', 'SIGTERM');
      vi.advanceTimersByTime(29);
      expect(codes).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(codes).toEqual([1]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('an uncaught error is logged with its origin and the process exits 1 (built CLI modules, child process)', () => {
    const script = `
      const { exitOnUncaught } = await import(${JSON.stringify(join(ROOT, 'dist/src/app/daemon/lifecycle.js'))});
      const { createLogger } = await import(${JSON.stringify(join(ROOT, 'dist/src/telemetry/index.js'))});
      exitOnUncaught(createLogger({ level: 'info' }));
      setTimeout(() => { throw new Error('boom in a timer'); });
      setTimeout(() => process.exit(0), 5000);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    const record = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { level: string; msg: string; origin: string; err: { message: string } };
    expect(record).toMatchObject({ level: 'fatal', msg: 'uncaught error: exiting', origin: 'uncaughtException', err: { message: 'boom in a timer' } });
  });
});
