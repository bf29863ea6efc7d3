// `npm run bench -- --against REF NAME...`: the named benches of a previous commit and of this tree in one invocation,
// alternating (base then head, head then base, and so on) for several rounds so machine noise and the order hit both
// alike; reports both medians, head/base, and the least and greatest head/base of a single round (how far one round
// can be trusted on this machine).
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

/** head/base of each round where both sides reported `metric` and base is not 0. */
function roundRatios(base: readonly (number | undefined)[], head: readonly (number | undefined)[]): number[] {
  const out: number[] = [];
  for (let r = 0; r < base.length; r++) {
    const b = base[r];
    const h = head[r];
    if (b !== undefined && h !== undefined && b !== 0) out.push(h / b);
  }
  return out;
}

/**
 * Runs `names` for base `ref` and for this tree (`headDist`: its dist/bench), prints `<metric>_base`, `<metric>_head`,
 * `<metric>_head_over_base` (of the medians) and `<metric>_head_over_base_round_min` / `_round_max` (the rounds' own ratios).
 */
export function benchAgainst(root: string, headDist: string, ref: string, names: readonly string[], flagsOf: (name: string) => string[]): void {
  const base = buildBase(root, ref);
  try {
    for (const name of names) {
      /** Per side and metric, the value of each round (undefined where that round's run did not report it). */
      const samples = { base: new Map<string, (number | undefined)[]>(), head: new Map<string, (number | undefined)[]>() };
      const units = new Map<string, string>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of round % 2 === 0 ? (['base', 'head'] as const) : (['head', 'base'] as const)) {
          const file = side === 'base' ? join(base, 'dist/bench', `${name}.js`) : join(headDist, `${name}.js`);
          for (const m of runOnce(file, flagsOf(name))) {
            units.set(m.metric, m.unit);
            const values = samples[side].get(m.metric) ?? [];
            values[round] = m.value;
            samples[side].set(m.metric, values);
          }
        }
      }
      for (const [metric, unit] of units) {
        const byRound = { base: samples.base.get(metric) ?? [], head: samples.head.get(metric) ?? [] };
        const b = byRound.base.filter((v) => v !== undefined);
        const h = byRound.head.filter((v) => v !== undefined);
        if (b.length === 0 || h.length === 0) continue;
        report(name, `${metric}_base`, median(b), unit);
        report(name, `${metric}_head`, median(h), unit);
        if (median(b) !== 0) report(name, `${metric}_head_over_base`, median(h) / median(b), 'ratio');
        const ratios = roundRatios(byRound.base, byRound.head);
        if (ratios.length < 2) continue;
        report(name, `${metric}_head_over_base_round_min`, Math.min(...ratios), 'ratio');
        report(name, `${metric}_head_over_base_round_max`, Math.max(...ratios), 'ratio');
      }
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
