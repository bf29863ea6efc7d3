// Synthetic recordings: deterministic to the byte for a seed and duration, in virtual time, shaped as the live port's
// streams (a snapshot first per market, then deltas; trades; tickers every 200 ms).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../../src/backtest/recording/events.js';
import { readRecording } from '../../../../src/backtest/recording/reader.js';
import { DENSE_FLOW, SYNTHETIC_START_MS, syntheticRecording, type SyntheticOptions } from '../../../../src/backtest/recording/synthetic.js';
import { RecordingWriter } from '../../../../src/backtest/recording/writer.js';

const dir = mkdtempSync(join(tmpdir(), 'perpbot-synthetic-'));
let n = 0;

async function file(opts: SyntheticOptions): Promise<string> {
  const path = join(dir, `s${n++}.rec`);
  const source = syntheticRecording(opts);
  const w = RecordingWriter.create(path, source.header, { blockBytes: 4096 });
  for (const e of source.events()) w.append(e);
  await w.close();
  return path;
}

describe('synthetic recording', () => {
  it('the same seed and duration give the same bytes; another seed other bytes', async () => {
    const opts = { seed: 7, durationMs: 20_000, symbols: ['BTC-USD', 'ETH-USD'] };
    const a = readFileSync(await file(opts));
    const b = readFileSync(await file(opts));
    expect(a.equals(b)).toBe(true);
    expect(a.equals(readFileSync(await file({ ...opts, seed: 8 })))).toBe(false);
  });

  it('starts each book with a snapshot, covers the duration in virtual time, and carries trades and tickers of every market', async () => {
    const path = await file({ seed: 1, durationMs: 30_000 });
    const r = readRecording(path);
    expect(r.header).toMatchObject({ venue: 'synthetic', seed: 1, startTimeMs: SYNTHETIC_START_MS, dialect: 'v1' });
    expect(r.header.markets.map((m) => m.symbol)).toEqual(['BTC-USD', 'ETH-USD', 'SOL-USD']);
    expect(r.header.markets[0]).toMatchObject({ tickSizeUsd: 0.1, makerFeeRate: 0.0002, takerFeeRate: 0.00035, fundingIntervalMs: 3_600_000 });
    const events: RecordedEvent[] = [...r.events()];
    const startNs = BigInt(SYNTHETIC_START_MS) * 1_000_000n;
    const firstBook = new Map<string, string>();
    const kinds = new Map<string, number>();
    let last = startNs;
    for (const e of events) {
      expect(e.recvNs >= last).toBe(true);
      last = e.recvNs;
      const symbol = e.kind === 'book' ? e.book.symbol : e.kind === 'trade' ? e.trade.symbol : e.ticker.symbol;
      if (e.kind === 'book' && !firstBook.has(symbol)) firstBook.set(symbol, e.book.kind);
      kinds.set(`${e.kind}.${symbol}`, (kinds.get(`${e.kind}.${symbol}`) ?? 0) + 1);
    }
    expect([...firstBook.values()]).toEqual(['snapshot', 'snapshot', 'snapshot']);
    expect(last - startNs).toBeLessThanOrEqual(30_000_000_000n);
    expect(last - startNs).toBeGreaterThan(29_000_000_000n);
    for (const s of ['BTC-USD', 'ETH-USD', 'SOL-USD']) {
      expect(kinds.get(`book.${s}`)).toBeGreaterThan(100);
      expect(kinds.get(`trade.${s}`)).toBeGreaterThan(5);
      // the initial ticker, then one every 200 ms
      expect(kinds.get(`ticker.${s}`)).toBe(1 + 30_000 / 200);
    }
    const marks = events.filter((e) => e.kind === 'ticker' && e.ticker.symbol === 'BTC-USD').map((e) => (e.kind === 'ticker' ? e.ticker.markPrice : 0));
    expect(marks.at(-1)).toBeGreaterThan(50_000);
  });

  it('takes a denser flow (more rounds, providers and levels), kept in the header; refuses a bad one naming the field', async () => {
    const count = (o: SyntheticOptions) => [...syntheticRecording(o).events()].filter((e) => e.kind === 'book').length;
    const base = { seed: 2, durationMs: 5_000, symbols: ['BTC-USD'] };
    expect(count({ ...base, flow: DENSE_FLOW })).toBeGreaterThan(20 * count(base));
    expect(readRecording(await file({ ...base, flow: DENSE_FLOW })).header.flow).toEqual(DENSE_FLOW);
    expect(readRecording(await file(base)).header.flow).toBeUndefined();
    expect(() => syntheticRecording({ ...base, flow: { ...DENSE_FLOW, intervalMs: 0 } })).toThrow(/flow\.intervalMs: must be an integer from 1 to 60000/);
    expect(() => syntheticRecording({ ...base, flow: { ...DENSE_FLOW, levels: 1.5 } })).toThrow(/flow\.levels/);
  });

  it('refuses a symbol the local venue does not list and a duration that is not positive', () => {
    expect(() => syntheticRecording({ seed: 1, durationMs: 1000, symbols: ['DOGE-USD'] })).toThrow(/symbols: DOGE-USD is not a market of the local venue/);
    expect(() => syntheticRecording({ seed: 1, durationMs: 0 })).toThrow(/duration/);
  });
});
