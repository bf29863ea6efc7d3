// `npm run bench -- --against REF NAME...`: the named benches of a previous commit and of this tree in one invocation,
// alternating (base then head, head then base, and so on) for several rounds so machine noise and the order hit both
// alike; reports both medians and head/base.
// Invariant: the base is built from `git archive REF` in a temporary folder with this tree's node_modules; nothing here changes the tree.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, report, type Metric } from '../lib.js';

/** Rounds of base and head, the order flipped each round (each bench already reports medians of its own runs). */
const ROUNDS = Number(process.env.BENCH_AGAINST_ROUNDS ?? 3);

/** Builds `ref` of the repository at `root` into a temporary folder; returns it. */
function buildBase(root: string, ref: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-bench-base-'));
  execFileSync('sh', ['-c', `git -C "${root}" archive "${ref}" | tar -x -C "${dir}"`], { stdio: 'inherit' });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.build.json')], { stdio: 'inherit' });
  return dir;
}

/** Runs one bench file; returns its metrics (stderr passes through). */
function runOnce(file: string, flags: readonly string[]): Metric[] {
  const r = spawnSync(process.execPath, [...flags, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${file} exited with ${r.status}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Metric);
}

/** Runs `names` for base `ref` and for this tree (`headDist`: its dist/bench), prints `<metric>_base`, `<metric>_head` and `<metric>_head_over_base`. */
export function benchAgainst(root: string, headDist: string, ref: string, names: readonly string[], flagsOf: (name: string) => string[]): void {
  const base = buildBase(root, ref);
  try {
    for (const name of names) {
      const samples = { base: new Map<string, number[]>(), head: new Map<string, number[]>() };
      const units = new Map<string, string>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of round % 2 === 0 ? (['base', 'head'] as const) : (['head', 'base'] as const)) {
          const file = side === 'base' ? join(base, 'dist/bench', `${name}.js`) : join(headDist, `${name}.js`);
          for (const m of runOnce(file, flagsOf(name))) {
            units.set(m.metric, m.unit);
            samples[side].set(m.metric, [...(samples[side].get(m.metric) ?? []), m.value]);
          }
        }
      }
      for (const [metric, unit] of units) {
        const b = samples.base.get(metric);
        const h = samples.head.get(metric);
        if (!b || !h) continue;
        report(name, `${metric}_base`, median(b), unit);
        report(name, `${metric}_head`, median(h), unit);
        if (median(b) !== 0) report(name, `${metric}_head_over_base`, median(h) / median(b), 'ratio');
      }
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
