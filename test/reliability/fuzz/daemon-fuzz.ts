// The daemon side of the fuzz suite: `perpbot run` (child process) trades through the mutating proxy in front of a
// local venue; once it is ready, its inbound side gets mutated HTTP answers and WebSocket frames.
// Invariants: the daemon keeps running and answers /livez; every unusable input shows in its metrics.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { startVenue } from '../../../src/venue-sim/server/index.js';
import { ROOT, sample, startDaemonProcess, waitForStatus } from '../../../bench/support/daemon-process.js';
import { MutatingProxy, type AnswerRow, type FrameRow } from './mutating-proxy.js';
import { Prng } from './prng.js';

const FRAME_KINDS = ['binary', 'malformed', 'schema', 'venueError', 'unrouted'] as const;

export interface MetricDeltas {
  framesInvalid: Record<(typeof FRAME_KINDS)[number], number>;
  httpAnswersInvalid: number;
  wsReconnects: number;
  topicsRefused: number;
  submits: Record<'accepted' | 'rejected' | 'unknown' | 'rate_limited', number>;
}

export interface DaemonFuzzResult {
  seed: number;
  answers: AnswerRow[];
  frames: FrameRow[];
  answersSent: number;
  framesSent: number;
  snapshotsInjected: number;
  requestsWhileFuzzing: number;
  regenerated: number;
  deltas: MetricDeltas;
  /** Exit code or signal of the daemon if it ended during the run; null while it kept running. */
  exited: number | string | null;
  livezAfter: number;
  /** The daemon's stderr and its fatal or uncaught-error log lines. */
  crashLines: string[];
  /** Messages of its error-level log lines, with their counts. */
  errorLogs: Record<string, number>;
  seconds: number;
}

async function metrics(base: string): Promise<MetricDeltas> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const n = (name: string, labels: Record<string, string> = {}) => sample(text, name, labels) ?? 0;
  return {
    framesInvalid: Object.fromEntries(FRAME_KINDS.map((kind) => [kind, n('perpbot_ws_frames_invalid_total', { kind })])) as MetricDeltas['framesInvalid'],
    httpAnswersInvalid: n('perpbot_http_answers_invalid_total'),
    wsReconnects: n('perpbot_ws_reconnects_total'),
    topicsRefused: n('perpbot_ws_topics_refused_total'),
    submits: {
      accepted: n('perpbot_submits_total', { outcome: 'accepted' }),
      rejected: n('perpbot_submits_total', { outcome: 'rejected' }),
      unknown: n('perpbot_submits_total', { outcome: 'unknown' }),
      rate_limited: n('perpbot_submits_total', { outcome: 'rate_limited' }),
    },
  };
}

function minus(a: MetricDeltas, b: MetricDeltas): MetricDeltas {
  return {
    framesInvalid: Object.fromEntries(FRAME_KINDS.map((k) => [k, a.framesInvalid[k] - b.framesInvalid[k]])) as MetricDeltas['framesInvalid'],
    httpAnswersInvalid: a.httpAnswersInvalid - b.httpAnswersInvalid,
    wsReconnects: a.wsReconnects - b.wsReconnects,
    topicsRefused: a.topicsRefused - b.topicsRefused,
    submits: {
      accepted: a.submits.accepted - b.submits.accepted,
      rejected: a.submits.rejected - b.submits.rejected,
      unknown: a.submits.unknown - b.submits.unknown,
      rate_limited: a.submits.rate_limited - b.submits.rate_limited,
    },
  };
}

function countMessages(lines: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of lines) {
    const msg = /"msg":"([^"]*)"/.exec(l)?.[1] ?? l.slice(0, 80);
    out[msg] = (out[msg] ?? 0) + 1;
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The metrics once the daemon has read everything sent (two scrapes 1.5 s apart agree; at most 60 s). */
async function settled(base: string): Promise<MetricDeltas> {
  let last = await metrics(base);
  for (let i = 0; i < 40; i++) {
    await sleep(1500);
    const now = await metrics(base);
    if (JSON.stringify(now.framesInvalid) === JSON.stringify(last.framesInvalid) && now.httpAnswersInvalid === last.httpAnswersInvalid) return now;
    last = now;
  }
  return last;
}

export async function fuzzDaemon(seed: number, targets: { answers: number; frames: number; maxSeconds: number }): Promise<DaemonFuzzResult> {
  const started = Date.now();
  const venue = await startVenue({ seed: 7 });
  const proxy = await MutatingProxy.start(venue.port, new Prng(seed));
  const dataDir = mkdtempSync(join(tmpdir(), 'perpbot-fuzz-'));
  const doc = parseDocument(readFileSync(join(ROOT, 'config/default.yaml'), 'utf8'));
  doc.set('venue', { mode: 'remote', url: proxy.url, wsUrl: proxy.wsUrl, dialect: 'v1', network: 'testnet', startTimeoutMs: 0 });
  // Reads are not held back by the client's own budget: the run is bounded by the daemon's work, not by 50 requests a second.
  doc.setIn(['http', 'ordersPerSecond'], 5000);
  doc.setIn(['http', 'ordersBurst'], 5000);
  // A request the daemon gives up on (timeout) never reads its answer: on a loaded machine 10 s can pass; 60 s does not.
  doc.setIn(['http', 'timeoutMs'], 60_000);
  doc.setIn(['log', 'level'], 'error');
  doc.setIn(['telemetry', 'statusIntervalMs'], 0);
  const config = join(dataDir, 'fuzz.yaml');
  writeFileSync(config, doc.toString());
  const d = startDaemonProcess(['--config', config], { PERPBOT_METRICS_PORT: '0', PERPBOT_DATA_DIR: dataDir });
  let exited: number | string | null = null;
  void d.exited.then((code) => (exited = code));
  try {
    const [, base] = await d.line(/metrics\s+(http:\/\/127\.0\.0\.1:\d+)\/metrics/);
    await waitForStatus(`${base}/readyz`, 200, 60_000);
    const before = await metrics(base!);

    proxy.fuzzing = true;
    const deadline = Date.now() + targets.maxSeconds * 1000;
    let tick = 0;
    const sent = () => ({
      answers: [...proxy.answers.values()].reduce((n, r) => n + r.sent, 0),
      frames: [...proxy.frames.values()].reduce((n, r) => n + r.sent, 0),
    });
    while (exited === null && Date.now() < deadline) {
      const s = sent();
      if (s.answers >= targets.answers && s.frames >= targets.frames) break;
      proxy.inject(s.frames < targets.frames ? 3 : 0, s.answers < targets.answers && tick++ % 2 === 0);
      await sleep(10);
    }
    proxy.fuzzing = false;
    const deltas = exited === null ? minus(await settled(base!), before) : minus(before, before);
    const livezAfter = exited === null ? (await fetch(`${base}/livez`)).status : 0;
    const s = sent();
    return {
      seed,
      answers: [...proxy.answers.values()],
      frames: [...proxy.frames.values()],
      answersSent: s.answers,
      framesSent: s.frames,
      snapshotsInjected: proxy.snapshotsInjected,
      requestsWhileFuzzing: proxy.requestsWhileFuzzing,
      regenerated: proxy.regenerated,
      deltas,
      exited,
      livezAfter,
      crashLines: [...d.stderr, ...d.stdout.filter((l) => /"level":60|uncaught/i.test(l))].slice(0, 40),
      errorLogs: countMessages(d.stdout.filter((l) => l.includes('"level":50'))),
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    d.kill();
    await d.exited;
    await proxy.close();
    await venue.close();
  }
}
