import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { canDedicateCpu, dedicateCpu, parseCpuList } from '../../../src/latency/dedicated-cpu.js';

const SCHED_IDLE = 5;

interface ThreadInfo {
  tid: number;
  cpus: number[];
  policy: number;
  /** User + system CPU time, clock ticks. */
  cpuTicks: number;
}

function threads(): ThreadInfo[] {
  const out: ThreadInfo[] = [];
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const status = readFileSync(`/proc/self/task/${tid}/status`, 'utf8');
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
      out.push({
        tid: Number(tid),
        cpus: parseCpuList(/^Cpus_allowed_list:\s*(\S+)$/m.exec(status)![1]!),
        policy: Number(fields[38]),
        cpuTicks: Number(fields[11]) + Number(fields[12]),
      });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

const allowed = process.platform === 'linux' ? threads().find((t) => t.tid === process.pid)!.cpus : [];

describe('parseCpuList', () => {
  it('reads ranges and single CPUs; refuses anything else', () => {
    expect(parseCpuList('0-3,6\n')).toEqual([0, 1, 2, 3, 6]);
    expect(parseCpuList('1')).toEqual([1]);
    expect(() => parseCpuList('0-')).toThrow(/malformed CPU list/);
  });
});

describe.skipIf(process.platform !== 'linux')('dedicateCpu where it cannot work', () => {
  it('refuses a CPU the process may not use with DEDICATED_CPU, changing nothing', async () => {
    await expect(dedicateCpu(4095)).rejects.toMatchObject({
      code: 'DEDICATED_CPU',
      message: `dedicated CPU: CPU 4095 is not among the process's CPUs ${allowed.join(',')}`,
    });
    expect(threads().find((t) => t.tid === process.pid)!.cpus).toEqual(allowed);
  });
});

describe.skipIf(allowed.length === 0 || !canDedicateCpu(allowed[0]!))('dedicateCpu (real taskset and chrt)', () => {
  const cpu = allowed[0]!;

  it('pins the event loop to the CPU, spins a SCHED_IDLE thread there, moves the others off it, and undoes it all on close', async () => {
    const dedicated = await dedicateCpu(cpu, { resweepMs: 50 });
    try {
      const before = threads();
      const main = before.find((t) => t.tid === process.pid)!;
      expect(main.cpus).toEqual([cpu]);
      const spinners = before.filter((t) => t.policy === SCHED_IDLE);
      expect(spinners.map((t) => t.cpus)).toEqual([[cpu]]);
      for (const t of before) if (t.tid !== main.tid && t.tid !== spinners[0]!.tid) expect(t.cpus).not.toContain(cpu);

      // A thread started now inherits the event loop's CPU; the resweep moves it.
      const late = new Worker('require("node:worker_threads").parentPort.once("message", () => process.exit(0))', { eval: true });
      await new Promise((r) => late.once('online', r));
      await new Promise((r) => setTimeout(r, 300));
      const after = threads();
      const newcomers = after.filter((t) => !before.some((b) => b.tid === t.tid));
      expect(newcomers.length).toBeGreaterThan(0);
      for (const t of newcomers) expect(t.cpus).not.toContain(cpu);
      // It really spins (as SCHED_IDLE it only gets the CPU's idle time: other test processes may hold it a while).
      const spun = () => threads().find((t) => t.tid === spinners[0]!.tid)!.cpuTicks > spinners[0]!.cpuTicks;
      for (let i = 0; i < 100 && !spun(); i++) await new Promise((r) => setTimeout(r, 100));
      expect(spun()).toBe(true);
      late.postMessage('exit');
    } finally {
      await dedicated.close();
    }
    const restored = threads();
    expect(restored.filter((t) => t.policy === SCHED_IDLE)).toEqual([]);
    for (const t of restored) expect(t.cpus).toEqual(allowed);
  });

  it('refuses a CPU the process may not use, changing nothing', async () => {
    await expect(dedicateCpu(Math.max(...allowed) + 1)).rejects.toThrow(/is not among the process's CPUs/);
    for (const t of threads()) expect(t.cpus).toEqual(allowed);
  });
});
