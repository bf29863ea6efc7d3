import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRecordings } from '../../../src/backtest/data.js';
import { readRecording } from '../../../src/backtest/recording/reader.js';
import { SYNTHETIC_START_MS, syntheticRecording } from '../../../src/backtest/recording/synthetic.js';
import { RecordingWriter } from '../../../src/backtest/recording/writer.js';

describe('recordings replayed as one', () => {
  it('tell the share of their bytes read (a block’s bytes counted by its events handed out), up to 1 at the end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-data-'));
    const paths: string[] = [];
    for (const [i, startTimeMs] of [SYNTHETIC_START_MS, SYNTHETIC_START_MS + 60_000].entries()) {
      const path = join(dir, `d${i}.rec`);
      const source = syntheticRecording({ seed: 1, durationMs: 30_000, symbols: ['BTC-USD'], startTimeMs });
      const w = RecordingWriter.create(path, source.header, { blockBytes: 4096 });
      for (const e of source.events()) w.append(e);
      await w.close();
      paths.push(path);
    }
    const data = openRecordings(paths, readRecording);
    expect(data.fractionRead()).toBe(0);
    const seen: number[] = [];
    for (const _ of data.events) seen.push(data.fractionRead()!);
    expect(seen.every((f, i) => f > 0 && f <= 1 && (i === 0 || f >= seen[i - 1]!))).toBe(true);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.at(-1)).toBe(1);
    const firstSize = statSync(paths[0]!).size;
    const total = firstSize + statSync(paths[1]!).size;
    expect(seen).toContain(firstSize / total);
  });

  it('refuse a file that starts before the previous one ended, naming it, and chain the others file after file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-data-'));
    const write = async (name: string, startTimeMs: number) => {
      const path = join(dir, name);
      const source = syntheticRecording({ seed: 1, durationMs: 5_000, symbols: ['BTC-USD'], startTimeMs });
      const w = RecordingWriter.create(path, source.header);
      for (const e of source.events()) w.append(e);
      await w.close();
      return path;
    };
    const a = await write('a.rec', SYNTHETIC_START_MS);
    const b = await write('b.rec', SYNTHETIC_START_MS + 10_000);
    const early = await write('early.rec', SYNTHETIC_START_MS + 1_000);
    const count = (path: string) => [...readRecording(path).events()].length;
    expect([...openRecordings([a, b], readRecording).events].length).toBe(count(a) + count(b));
    expect(() => [...openRecordings([a, early], readRecording).events]).toThrow(/early\.rec.*starts at \d+ ns, before the previous file ended/);
  });
});
