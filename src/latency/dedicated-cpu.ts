// A CPU of its own for the event loop (Linux, taskset and chrt from util-linux): the event-loop thread is pinned to
// it, every other thread of the process to the remaining CPUs, and a SCHED_IDLE thread spins on it so that it never
// idles. On a VM an idle vCPU is halted and the host runs other work on the core: the first tick after a quiet spell
// then ran 3-10× slower in every stage. The spinner is preempted at once whenever the event loop wakes.
// Invariants: the spinner never holds the CPU against a runnable thread of normal priority; close() restores the
// process's original affinity; threads started later are moved off the CPU at the next resweep (every 5 s).

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { PerpbotError } from '../core/errors.js';

export interface DedicatedCpu {
  readonly cpu: number;
  /** Stops the spinner and gives every thread the CPUs the process had before. */
  close(): Promise<void>;
}

/** How often threads started after dedicateCpu are looked for and moved off the dedicated CPU. */
const RESWEEP_MS = 5_000;

/** Worker body (CommonJS, evaluated): reports its thread id, then spins once told to. */
const SPINNER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { readlinkSync } = require('node:fs');
parentPort.once('message', () => {
  for (;;) {}
});
parentPort.postMessage(Number(readlinkSync('/proc/thread-self').split('/').pop()));
`;

/** The CPUs in a kernel CPU list such as `0-3,6`. */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new Error(`malformed CPU list ${JSON.stringify(list)}`);
    for (let c = Number(m[1]); c <= Number(m[2] ?? m[1]); c++) cpus.push(c);
  }
  return cpus;
}

function allowedCpus(task = 'self'): number[] {
  const m = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${task}/status`, 'utf8'));
  if (!m) throw new Error(`no Cpus_allowed_list in /proc/${task}/status`);
  return parseCpuList(m[1]!);
}

/** The process's CPUs other than `cpu`. */
export function otherCpus(cpu: number): number[] {
  return allowedCpus().filter((c) => c !== cpu);
}

/** Whether dedicateCpu(`cpu`) can work here: Linux, `cpu` and another among the process's CPUs, taskset and chrt present. */
export function canDedicateCpu(cpu: number): boolean {
  if (process.platform !== 'linux' || !allowedCpus().includes(cpu) || otherCpus(cpu).length === 0) return false;
  return ['taskset', 'chrt'].every((tool) => spawnSync(tool, ['--version']).status === 0);
}

function run(command: string, args: string[]): void {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  if (r.error) throw new PerpbotError('DEDICATED_CPU', `dedicated CPU: ${command} could not run (${r.error.message}); it comes with util-linux`);
  if (r.status !== 0) throw new PerpbotError('DEDICATED_CPU', `dedicated CPU: ${command} ${args.join(' ')} failed: ${r.stderr.trim() || `exit ${r.status}`}`);
}

/** Moves every thread of process `pid` to `cpus` (a taskset CPU list, e.g. "1,2"). Throws PerpbotError DEDICATED_CPU when taskset fails. */
export function pinProcess(pid: number | string, cpus: string): void {
  run('taskset', ['-a', '-p', '-c', cpus, String(pid)]);
}

/**
 * Gives `cpu` to the calling process's event loop (see the file header). Call it once the process has started its
 * worker threads. Throws PerpbotError DEDICATED_CPU when the platform, the tools or the CPU set do not allow it (nothing
 * is changed then).
 */
export async function dedicateCpu(cpu: number, opts: { resweepMs?: number; onSpinnerError?: (e: Error) => void } = {}): Promise<DedicatedCpu> {
  if (process.platform !== 'linux') throw new PerpbotError('DEDICATED_CPU', `dedicated CPU: Linux only, not ${process.platform}`);
  const allowed = allowedCpus();
  if (!allowed.includes(cpu)) throw new PerpbotError('DEDICATED_CPU', `dedicated CPU: CPU ${cpu} is not among the process's CPUs ${allowed.join(',')}`);
  if (allowed.length < 2) throw new PerpbotError('DEDICATED_CPU', 'dedicated CPU: the process has only one CPU; the other threads need another');
  const others = otherCpus(cpu).join(',');
  const pid = String(process.pid);

  const spinner = new Worker(SPINNER_SOURCE, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 8 } });
  spinner.unref();
  const spinnerTid = await new Promise<number>((resolve, reject) => {
    spinner.once('message', resolve);
    spinner.once('error', reject);
  });
  // Later the CPU only loses its spinner: the event loop stays pinned and keeps working.
  spinner.on('error', (e) => opts.onSpinnerError?.(e));
  const pinned = new Set([process.pid, spinnerTid]);
  try {
    pinProcess(pid, others);
    run('taskset', ['-p', '-c', String(cpu), pid]);
    run('taskset', ['-p', '-c', String(cpu), String(spinnerTid)]);
    run('chrt', ['--idle', '-p', '0', String(spinnerTid)]);
  } catch (e) {
    await spinner.terminate();
    spawnSync('taskset', ['-a', '-p', '-c', allowed.join(','), pid]);
    throw e;
  }
  spinner.postMessage('spin');

  const seen = new Set(readdirSync('/proc/self/task'));
  const resweep = setInterval(() => {
    for (const tid of readdirSync('/proc/self/task')) {
      if (seen.has(tid)) continue;
      seen.add(tid);
      if (pinned.has(Number(tid))) continue;
      try {
        if (allowedCpus(`self/task/${tid}`).includes(cpu)) run('taskset', ['-p', '-c', others, tid]);
      } catch {
        // the thread ended meanwhile
      }
    }
  }, opts.resweepMs ?? RESWEEP_MS);
  resweep.unref();

  return {
    cpu,
    async close() {
      clearInterval(resweep);
      await spinner.terminate();
      spawnSync('taskset', ['-a', '-p', '-c', allowed.join(','), pid]);
    },
  };
}
