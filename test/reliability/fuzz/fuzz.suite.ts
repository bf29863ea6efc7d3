// The fuzz suite (`npm run fuzz`): malformed HTTP requests and WebSocket frames against the local venue, and mutated
// HTTP answers and frames into the daemon's inbound side. Invariant: the seed is printed first; PERPBOT_FUZZ_SEED=<seed>
// replays a run; PERPBOT_PROFILE=short|full (default full) picks the counts.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../../bench/support/daemon-process.js';
import { fuzzDaemon, type DaemonFuzzResult } from './daemon-fuzz.js';
import { runSeed } from './prng.js';
import { fuzzVenue, type ClassRow, type VenueFuzzResult } from './venue-fuzz.js';

const PROFILE = process.env.PERPBOT_PROFILE === 'short' ? 'short' : 'full';
const SIZES = {
  short: { venueHttp: 2_000, venueWs: 2_000, daemonAnswers: 2_000, daemonFrames: 2_000, daemonMaxSeconds: 120 },
  full: { venueHttp: 10_000, venueWs: 10_000, daemonAnswers: 10_000, daemonFrames: 10_000, daemonMaxSeconds: 900 },
}[PROFILE];
const SEED = runSeed();

const report: { suite: 'fuzz'; profile: string; seed: number; replay: string; venue?: VenueFuzzResult; daemon?: DaemonFuzzResult } = {
  suite: 'fuzz',
  profile: PROFILE,
  seed: SEED,
  replay: `PERPBOT_FUZZ_SEED=${SEED} PERPBOT_PROFILE=${PROFILE} npm run fuzz`,
};

const out = (line = '') => process.stdout.write(`${line}\n`);

function table(headers: string[], rows: (string | number)[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: (string | number)[]) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join('  ');
  out(line(headers));
  for (const r of rows) out(line(r));
}

function classTable(title: string, rows: ClassRow[]): void {
  out(title);
  const sum = (k: keyof Omit<ClassRow, 'cls'>) => rows.reduce((n, r) => n + r[k], 0);
  const total: ClassRow = {
    cls: 'total',
    cases: sum('cases'),
    inputs: sum('inputs'),
    status2xx: sum('status2xx'),
    status4xx: sum('status4xx'),
    status5xx: sum('status5xx'),
    closed: sum('closed'),
    timeouts: sum('timeouts'),
  };
  table(
    ['class', 'connections', 'inputs', '2xx', '4xx', '5xx', 'venue closed', 'our wait ended'],
    [...rows, total].map((r) => [r.cls, r.cases, r.inputs, r.status2xx, r.status4xx, r.status5xx, r.closed, r.timeouts]),
  );
}

afterAll(() => {
  const dir = join(ROOT, 'reports');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `fuzz-${PROFILE}.json`), `${JSON.stringify(report, null, 2)}\n`);
  out(`fuzz: report written to reports/fuzz-${PROFILE}.json (replay: ${report.replay})`);
});

describe(`fuzz (${PROFILE}, seed ${SEED})`, () => {
  it(`venue: ${SIZES.venueHttp} malformed HTTP requests and ${SIZES.venueWs} malformed WebSocket frames: no 5xx, no exit, state hash unchanged`, async () => {
    out(`\nfuzz: seed ${SEED} (replay: ${report.replay})`);
    const r = (report.venue = await fuzzVenue(SEED, { httpRequests: SIZES.venueHttp, wsFrames: SIZES.venueWs }));
    out(`\nvenue, HTTP (${r.httpRequests} requests)`);
    classTable('', r.http);
    out(`\nvenue, WebSocket (${r.wsFrames} frames; handshake rows count upgrade requests)`);
    classTable('', r.ws);
    out(
      `\nvenue: state hash ${r.hashBefore === r.hashAfter ? 'unchanged' : 'CHANGED'} (${r.hashBefore.slice(0, 16)}…), internal errors ${r.internalErrors.length}, uncaught ${r.uncaught.length}, engine self-check problems ${r.selfCheck.length}, answering after the run: ${r.aliveAfter}, ${r.seconds.toFixed(1)} s`,
    );
    expect(r.httpRequests).toBeGreaterThanOrEqual(SIZES.venueHttp);
    expect(r.wsFrames).toBeGreaterThanOrEqual(SIZES.venueWs);
    expect([...r.http, ...r.ws].filter((row) => row.status5xx > 0)).toEqual([]);
    expect(r.internalErrors).toEqual([]);
    expect(r.uncaught).toEqual([]);
    expect(r.selfCheck).toEqual([]);
    expect(r.hashAfter).toBe(r.hashBefore);
    expect(r.aliveAfter).toBe(true);
  });

  it(`daemon: ${SIZES.daemonAnswers} mutated HTTP answers and ${SIZES.daemonFrames} mutated frames: it keeps running and counts each`, async () => {
    const r = (report.daemon = await fuzzDaemon(SEED, { answers: SIZES.daemonAnswers, frames: SIZES.daemonFrames, maxSeconds: SIZES.daemonMaxSeconds }));
    const invalidAnswers = r.answers.reduce((n, a) => n + a.invalid, 0);
    out(
      `\ndaemon, HTTP answers (${r.answersSent} mutated of ${r.requestsWhileFuzzing} requests; ${r.snapshotsInjected} account snapshots injected to make it reconcile)`,
    );
    table(['class', 'sent', 'unusable (must be counted)'], [...r.answers.map((a) => [a.cls, a.sent, a.invalid]), ['total', r.answersSent, invalidAnswers]]);
    const verdict = (k: keyof (typeof r.frames)[number]['verdicts']) => r.frames.reduce((n, f) => n + f.verdicts[k], 0);
    out(`\ndaemon, WebSocket frames (${r.framesSent} mutated; ${r.regenerated} mutations that decoded to control messages were not sent)`);
    table(
      ['class', 'sent', 'binary', 'malformed', 'schema', 'unrouted', 'reconnect', 'used as valid'],
      [
        ...r.frames.map((f) => [
          f.cls,
          f.sent,
          f.verdicts.binary,
          f.verdicts.malformed,
          f.verdicts.schema,
          f.verdicts.unrouted,
          f.verdicts.reconnect,
          f.verdicts.used,
        ]),
        ['total', r.framesSent, verdict('binary'), verdict('malformed'), verdict('schema'), verdict('unrouted'), verdict('reconnect'), verdict('used')],
      ],
    );
    const d = r.deltas;
    out('\ndaemon, metric deltas over the run (expected from the decoders in brackets)');
    table(
      ['metric', 'delta', 'expected'],
      [
        ['perpbot_http_answers_invalid_total', d.httpAnswersInvalid, invalidAnswers],
        ['perpbot_ws_frames_invalid_total{kind="binary"}', d.framesInvalid.binary, verdict('binary')],
        ['perpbot_ws_frames_invalid_total{kind="malformed"}', d.framesInvalid.malformed, verdict('malformed')],
        ['perpbot_ws_frames_invalid_total{kind="schema"}', d.framesInvalid.schema, verdict('schema')],
        ['perpbot_ws_frames_invalid_total{kind="unrouted"}', d.framesInvalid.unrouted, verdict('unrouted')],
        ['perpbot_ws_frames_invalid_total{kind="venueError"}', d.framesInvalid.venueError, 0],
        ['perpbot_ws_reconnects_total', d.wsReconnects, `>= ${verdict('reconnect')}`],
        ['perpbot_ws_topics_refused_total', d.topicsRefused, '-'],
        ['perpbot_submits_total{outcome="unknown"}', d.submits.unknown, '-'],
        ['perpbot_submits_total{outcome="accepted"}', d.submits.accepted, '-'],
      ],
    );
    out(
      `\ndaemon: exited ${r.exited ?? 'no'}, /livez after the run ${r.livezAfter}, ${r.seconds.toFixed(1)} s; error log lines: ${JSON.stringify(r.errorLogs)}`,
    );
    if (r.crashLines.length > 0) out(`daemon stderr / fatal lines:\n${r.crashLines.join('\n')}`);
    expect(r.exited).toBeNull();
    expect(r.livezAfter).toBe(200);
    expect(r.answersSent).toBeGreaterThanOrEqual(SIZES.daemonAnswers);
    expect(r.framesSent).toBeGreaterThanOrEqual(SIZES.daemonFrames);
    expect(d.httpAnswersInvalid).toBe(invalidAnswers);
    expect(d.framesInvalid).toEqual({
      binary: verdict('binary'),
      malformed: verdict('malformed'),
      schema: verdict('schema'),
      venueError: 0,
      unrouted: verdict('unrouted'),
    });
    expect(d.wsReconnects).toBeGreaterThanOrEqual(verdict('reconnect'));
  });
});
