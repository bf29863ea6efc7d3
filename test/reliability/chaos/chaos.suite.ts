// Chaos: faults between the daemon (default market maker) and the local venue, venue restarts and daemon kills; after
// each, once healed, every invariant must hold within RECOVERY_BOUND_MS. Invariant: any violation fails the suite.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../../bench/support/daemon-process.js';
import { FAULT_KINDS, Rng } from './faults.js';
import { CumulativeChecks, INVARIANTS, JournalReader, untilRecovered, type Finding } from './invariants.js';
import { DIALECT, World } from './world.js';

const PROFILE = process.env.PERPBOT_PROFILE === 'short' ? 'short' : 'full';
/** Faults to inject; `longEvery`: every this many of a kind that has a long form (stall, outage) is long. */
const PLAN = { short: { faults: 50, longEvery: 5 }, full: { faults: 300, longEvery: 4 } }[PROFILE];
/**
 * From a heal to a consistent sample where every invariant holds and the bot quotes again, ms: the WebSocket reconnect
 * backoff alone (1 s doubling to 30 s, with jitter) may wait up to 30 s after a long outage, then resubscribe and reconcile.
 */
const RECOVERY_BOUND_MS = 40_000;
/** The run stops early after this many faults in a row the bot did not recover from (it is broken; more says nothing new). */
const GIVE_UP_AFTER = 3;
const SEED = Number(process.env.PERPBOT_CHAOS_SEED ?? 20);

interface FaultRecord {
  readonly n: number;
  readonly kind: string;
  readonly long: boolean;
  readonly detail: string;
  readonly hit: boolean;
  readonly recoveredMs: number | null;
  /** Invariants the last sample before recovery still found broken (what recovery waited for). */
  readonly waitedFor: readonly string[];
  readonly findings: readonly Finding[];
}

function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function summarize(records: readonly FaultRecord[]) {
  return FAULT_KINDS.map((k) => {
    const of = records.filter((r) => r.kind === k.name);
    const injected = of.filter((r) => r.hit);
    const times = injected.flatMap((r) => (r.recoveredMs === null ? [] : [r.recoveredMs])).sort((a, b) => a - b);
    return {
      kind: k.name,
      how: k.how,
      injected: injected.length,
      missed: of.length - injected.length,
      recovered: times.length,
      recoverMedianMs: quantile(times, 0.5),
      recoverMaxMs: times.at(-1) ?? null,
      violations: injected.reduce((n, r) => n + r.findings.length, 0),
    };
  });
}

function table(rows: ReturnType<typeof summarize>, final: readonly Finding[]): string {
  const head = ['fault', 'injected', 'missed', 'recovered', 'recover p50 ms', 'recover max ms', 'violations'];
  const body = rows.map((r) => [r.kind, r.injected, r.missed, r.recovered, r.recoverMedianMs ?? '-', r.recoverMaxMs ?? '-', r.violations].map(String));
  const total = [
    'total',
    ...[1, 2, 3].map((i) => String(body.reduce((n, b) => n + Number(b[i]), 0))),
    '',
    '',
    String(rows.reduce((n, r) => n + r.violations, 0) + final.length),
  ];
  const all = [head, ...body, total];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n');
}

describe(`chaos (${PROFILE})`, () => {
  let world: World | undefined;
  let journal: JournalReader | undefined;
  afterAll(async () => {
    await world?.stop();
    journal?.close();
  });

  it(`${PLAN.faults} faults; every invariant holds within ${RECOVERY_BOUND_MS} ms of each heal`, async () => {
    const startedMs = Date.now();
    world = await World.start();
    journal = new JournalReader(world.journalPath);
    const cumulative = new CumulativeChecks(world, journal);
    const baseline = await untilRecovered(world, journal, 60_000);
    expect(baseline, 'before any fault').toHaveProperty('recoveredMs');

    const rng = new Rng(SEED);
    const records: FaultRecord[] = [];
    const count = new Map<string, number>();
    let round: typeof FAULT_KINDS = [];
    let injected = 0;
    let unrecoveredInARow = 0;
    while (injected < PLAN.faults && unrecoveredInARow < GIVE_UP_AFTER) {
      if (round.length === 0) round = rng.shuffled(FAULT_KINDS);
      const kind = round[0]!;
      round = round.slice(1);
      const nth = (count.get(kind.name) ?? 0) + 1;
      count.set(kind.name, nth);
      const long = kind.hasLongForm === true && nth % PLAN.longEvery === 0;
      const logMark = world.daemon.process.stderr.length;
      const daemonsBefore = world.daemons.length;
      const injection = await kind.inject(world, rng, { nth, long });
      const healedAtMs = injection.healedAtMs ?? Date.now();
      if (!injection.hit) {
        records.push({ n: records.length + 1, kind: kind.name, long, detail: injection.detail, hit: false, recoveredMs: null, waitedFor: [], findings: [] });
        continue;
      }
      injected++;
      const outcome = await untilRecovered(world, journal, RECOVERY_BOUND_MS - (Date.now() - healedAtMs));
      const recoveredMs = 'recoveredMs' in outcome ? Date.now() - healedAtMs : null;
      const findings = [...('findings' in outcome ? outcome.findings : []), ...(await cumulative.run())];
      unrecoveredInARow = recoveredMs === null ? unrecoveredInARow + 1 : 0;
      records.push({
        n: records.length + 1,
        kind: kind.name,
        long,
        detail: injection.detail,
        hit: true,
        recoveredMs,
        waitedFor: 'waitedFor' in outcome ? outcome.waitedFor.map((f) => `${f.invariant}: ${f.detail}`) : [],
        findings,
      });
      const waitedFor = 'waitedFor' in outcome ? [...new Set(outcome.waitedFor.map((f) => f.invariant))].join(', ') : '';
      process.stdout.write(
        `chaos ${injected}/${PLAN.faults} ${kind.name}${long ? ' (long)' : ''} ${injection.detail}: ${recoveredMs === null ? 'NOT RECOVERED' : `recovered in ${recoveredMs} ms`}${waitedFor ? ` (waited for: ${waitedFor})` : ''}${findings.length ? ` ${findings.length} violations` : ''}\n`,
      );
      for (const f of findings) process.stdout.write(`  ${f.invariant}: ${f.detail}\n`);
      // Evidence for a fault not recovered from: the daemon's warnings since it was injected.
      if (recoveredMs === null)
        for (const l of world.daemon.process.stderr
          .slice(world.daemons.length === daemonsBefore ? logMark : 0)
          .filter((l) => !l.startsWith('{"level":"info"'))
          .slice(-12))
          process.stdout.write(`  daemon: ${l.slice(0, 500)}\n`);
    }

    const end = await untilRecovered(world, journal, RECOVERY_BOUND_MS);
    const exit = await world.stopDaemon();
    const final = [
      ...('findings' in end ? end.findings : []),
      ...(await cumulative.run()),
      ...(exit === 0 ? [] : [{ invariant: 'unhandled-error' as const, detail: `the daemon exited ${exit} on SIGTERM` }]),
    ];
    const kinds = summarize(records);
    const durationS = (Date.now() - startedMs) / 1000;
    const violations = [
      ...records.flatMap((r) => r.findings.map((f) => ({ fault: r.n, kind: r.kind, ...f }))),
      ...final.map((f) => ({ fault: null, kind: 'end', ...f })),
    ];
    process.stdout.write(
      `\nchaos ${PROFILE} (${DIALECT} dialect): ${injected} faults in ${durationS.toFixed(0)} s, recovery bound ${RECOVERY_BOUND_MS} ms, seed ${SEED}\n${table(kinds, final)}\n` +
        (unrecoveredInARow >= GIVE_UP_AFTER ? `stopped early: ${GIVE_UP_AFTER} faults in a row not recovered\n` : '') +
        `violations by invariant: ${INVARIANTS.map((i) => `${i} ${violations.filter((v) => v.invariant === i).length}`).join(', ')}\n`,
    );
    mkdirSync(join(ROOT, 'reports'), { recursive: true });
    writeFileSync(
      join(ROOT, `reports/chaos-${PROFILE}${DIALECT === 'v1' ? '' : `-${DIALECT}`}.json`),
      `${JSON.stringify(
        {
          suite: 'chaos',
          profile: PROFILE,
          dialect: DIALECT,
          seed: SEED,
          recoveryBoundMs: RECOVERY_BOUND_MS,
          faultsPlanned: PLAN.faults,
          faultsInjected: injected,
          stoppedEarly: unrecoveredInARow >= GIVE_UP_AFTER,
          durationS,
          daemonStarts: world.daemons.length,
          venueEngines: world.engines.length,
          kinds,
          violationsByInvariant: Object.fromEntries(INVARIANTS.map((i) => [i, violations.filter((v) => v.invariant === i).length])),
          violations,
          faults: records,
        },
        null,
        2,
      )}\n`,
    );
    expect(violations.length, 'violations (listed above and in the report)').toBe(0);
    expect(injected).toBeGreaterThanOrEqual(PLAN.faults);
  });
});
