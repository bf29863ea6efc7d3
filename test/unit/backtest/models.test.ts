import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalLatencySource } from '../../../src/backtest/journal-latency.js';
import { interpolatedRoundTripMs, latency } from '../../../src/backtest/models.js';
import { Journal } from '../../../src/store/index.js';
import { Prng } from '../../../src/venue-sim/engine/ids.js';

const T0_MS = 1_767_225_600_000;
const NS = 1_000_000n;

/** A journal whose live batches were requested at `atMs` and answered `rttMs` later. */
function journalWith(trips: [atMs: number, rttMs: number][]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'perpbot-latency-')), 'live.sqlite');
  const j = Journal.open(path);
  trips.forEach(([atMs, rttMs], i) => {
    const atNs = BigInt(atMs) * NS;
    const id = j.recordBatch({
      signer: 'S',
      account: 'A',
      nonceNs: BigInt(i + 1),
      path: '/order',
      message: new Uint8Array(),
      signature: 's',
      body: '{}',
      orderIds: [],
      atNs,
    });
    j.settleBatch(id, 'accepted', undefined, atNs + BigInt(Math.round(rttMs * 1e6)));
  });
  j.close();
  return path;
}

describe('journal latency', () => {
  it('interpolates the round trip linearly between the requests around now, the nearest outside them', () => {
    const trips = { atMs: Float64Array.from([1000, 2000, 4000]), rttMs: Float64Array.from([2, 4, 10]) };
    expect([0, 1000, 1500, 2000, 3000, 4000, 9000].map((t) => interpolatedRoundTripMs(trips, t))).toEqual([2, 2, 3, 4, 7, 10, 10]);
  });

  it('draws the share of the round trip the live session journaled at the replay time, in ns', () => {
    const path = journalWith([
      [T0_MS, 2],
      [T0_MS + 1000, 6],
    ]);
    let nowMs = T0_MS + 250;
    const entry = latency({ model: 'journal', path, share: 0.25 }, new Prng(1), 'backtest.latency.entry', journalLatencySource({ now: () => nowMs }));
    expect(entry()).toBe(750_000);
    nowMs = T0_MS + 5000;
    expect(entry()).toBe(1_500_000);
  });

  it('refuses a journal with no answered batch, a missing journal, and use without the replay time', () => {
    const empty = journalWith([]);
    const source = journalLatencySource({ now: () => T0_MS });
    expect(() => latency({ model: 'journal', path: empty, share: 0.5 }, new Prng(1), 'backtest.latency.entry', source)).toThrow(
      /backtest\.latency\.entry\.path: .*holds no answered live batch/,
    );
    expect(() => latency({ model: 'journal', path: join(tmpdir(), 'no-such-journal.sqlite'), share: 0.5 }, new Prng(1), 'k', source)).toThrow(/no journal at/);
    expect(() => latency({ model: 'journal', path: empty, share: 0.5 }, new Prng(1), 'backtest.latency.response')).toThrow(
      /backtest\.latency\.response\.model: journal latency needs the replay time/,
    );
  });
});
