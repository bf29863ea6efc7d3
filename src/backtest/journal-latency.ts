// The round trips a live session journaled (request time, answer time of each batch the venue answered), as the
// `journal` latency model reads them. Invariant: the journal is opened read-only and closed before this returns.

import { Journal } from '../store/index.js';
import type { JournalLatencySource, RoundTrips } from './models.js';

const NS_PER_MS = 1_000_000n;

/** Request epoch ms and round trip ms of each answered live batch in the journal at `path`; throws JournalError when it cannot be read. */
export function journalRoundTrips(path: string): RoundTrips {
  const journal = Journal.open(path, { readOnly: true });
  try {
    const trips = journal.batchRoundTrips().filter((t) => t.answeredNs >= t.atNs);
    const atMs = new Float64Array(trips.length);
    const rttMs = new Float64Array(trips.length);
    trips.forEach((t, i) => {
      atMs[i] = Number(t.atNs / NS_PER_MS) + Number(t.atNs % NS_PER_MS) / 1e6;
      rttMs[i] = Number(t.answeredNs - t.atNs) / 1e6;
    });
    return { atMs, rttMs };
  } finally {
    journal.close();
  }
}

/** The `journal` latency model's source on `time` (the replay's, or real time when paper trading). */
export function journalLatencySource(time: { now(): number }): JournalLatencySource {
  return { nowMs: () => time.now(), roundTrips: journalRoundTrips };
}
