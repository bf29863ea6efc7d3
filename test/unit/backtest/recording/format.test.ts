// The recording format: writer and reader round-trip every event kind and value exactly, a torn or damaged last block is
// dropped while earlier damage is an error, and a bad header is refused naming the field.
import { appendFileSync, closeSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BookUpdate, Ticker, Trade } from '../../../../src/core/market-data.js';
import { RECORDING_FORMAT_VERSION, type RecordedEvent, type RecordingHeader } from '../../../../src/backtest/recording/events.js';
import { RecordingError } from '../../../../src/backtest/recording/errors.js';
import { BLOCK_HEADER, block, CODEC_NONE } from '../../../../src/backtest/recording/format.js';
import { readRecording } from '../../../../src/backtest/recording/reader.js';
import { RecordingWriter } from '../../../../src/backtest/recording/writer.js';

const dir = mkdtempSync(join(tmpdir(), 'perpbot-recording-'));
let n = 0;
const fresh = () => join(dir, `r${n++}.rec`);

const HEADER: RecordingHeader = {
  formatVersion: RECORDING_FORMAT_VERSION,
  venue: 'http://127.0.0.1:8080/api/v1',
  dialect: 'v1',
  network: 'testnet',
  markets: [
    { symbol: 'BTC-USD', tickSizeUsd: 0.1, lotSizeBase: 0.0001, minNotionalUsd: 10, maxLeverage: 50 },
    {
      symbol: 'ETH-USD',
      tickSizeUsd: 0.01,
      lotSizeBase: 0.001,
      minNotionalUsd: 0,
      maxLeverage: 25,
      makerFeeRate: -0.0001,
      takerFeeRate: 0.00035,
      fundingIntervalMs: 3_600_000,
    },
  ],
  startTimeMs: 1_767_225_600_000,
};
const T0 = 1_767_225_600_000_000_000n;
const KEY_A = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
const KEY_B = 'GjJyeC1r2RgkuoCWMyPYkCWSGSGLcz266EaAkLA27AhL';
/** Doubles no decimal coding holds: each must come back bit for bit. */
const EDGES = [
  0,
  -0,
  0.1 + 0.2,
  Number.MIN_VALUE,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  2 ** 53 + 2,
  1e-300,
  97_000.12345678912,
  -1.5,
];

function book(
  kind: 'snapshot' | 'delta',
  symbol: string,
  recvNs: bigint,
  bids: [number, number, number][],
  asks: [number, number, number][],
  venueTimeMs = 1_767_225_600_123,
): RecordedEvent {
  const level = ([price, size, orders]: [number, number, number]) => ({ price, size, orders });
  const b: BookUpdate = { kind, symbol, bids: bids.map(level), asks: asks.map(level), venueTimeMs, arrivalNs: recvNs };
  return { kind: 'book', recvNs, book: b };
}

function trade(recvNs: bigint, t: Partial<Trade> = {}): RecordedEvent {
  return {
    kind: 'trade',
    recvNs,
    trade: {
      symbol: 'BTC-USD',
      price: 97_000.1,
      size: 0.0123,
      takerSide: 'buy',
      timeMs: 1_767_225_600_200,
      maker: KEY_A,
      taker: KEY_B,
      liquidation: false,
      ...t,
    },
  };
}

function ticker(recvNs: bigint, t: Partial<Ticker> = {}): RecordedEvent {
  return {
    kind: 'ticker',
    recvNs,
    ticker: {
      symbol: 'ETH-USD',
      lastPrice: 3_500.01,
      markPrice: 3_500.02,
      oraclePrice: 3_499.99,
      fundingRate: 0.0000125,
      openInterest: 12.345,
      volume24h: 1_234.567,
      volume24hUsd: 4_320_987.65,
      high24hPrice: 3_600,
      low24hPrice: 3_400.5,
      venueTimeNs: recvNs - 1_500_000n,
      ...t,
    },
  };
}

/** Every kind, both sides of the book, empty sides, repeated and new strings, equal and far-apart times. */
function sample(): RecordedEvent[] {
  return [
    book(
      'snapshot',
      'BTC-USD',
      T0,
      [
        [97_000, 1.5, 3],
        [96_999.9, 0.0001, 1],
      ],
      [[97_000.1, 2, 0]],
    ),
    book('delta', 'BTC-USD', T0, [[96_999.9, 0, 0]], []),
    book('delta', 'ETH-USD', T0 + 1n, [], [[3_500.01, 10.001, 2]]),
    trade(T0 + 5_000n),
    trade(T0 + 5_000n, { takerSide: 'sell', liquidation: true, maker: KEY_B, taker: KEY_A, symbol: 'ETH-USD' }),
    ticker(T0 + 200_000_000n),
    ticker(T0 + 400_000_000n, { venueTimeNs: 0n, fundingRate: -0.0005 }),
    ticker(T0 + 400_000_000n, { venueTimeNs: 2n ** 63n - 1n }),
    book('snapshot', 'ETH-USD', T0 - 7n, [], [], 0),
    ...EDGES.map((x, i) => book('delta', 'BTC-USD', T0 + BigInt(i), [[x, x, x]], [[-x, x, 0]], x)),
    ...EDGES.map((x, i) => trade(T0 + BigInt(i), { price: x, size: x, timeMs: x })),
    ...EDGES.map((x, i) =>
      ticker(T0 + BigInt(i), {
        lastPrice: x,
        markPrice: x,
        oraclePrice: x,
        fundingRate: x,
        openInterest: x,
        volume24h: x,
        volume24hUsd: x,
        high24hPrice: x,
        low24hPrice: x,
      }),
    ),
    trade(-(2n ** 63n)),
    trade(2n ** 63n - 1n),
    trade(T0, { maker: 'ключ-ü', taker: '' }),
  ];
}

async function write(events: readonly RecordedEvent[], opts: { blockBytes?: number } = {}, path = fresh()): Promise<string> {
  const w = RecordingWriter.create(path, HEADER, opts);
  for (const e of events) w.append(e);
  await w.close();
  expect(w.error).toBeUndefined();
  return path;
}

function readAll(path: string): { events: RecordedEvent[]; dropped: number } {
  const r = readRecording(path);
  const events = [...r.events()];
  return { events, dropped: r.droppedTailBytes };
}

describe('recording round trip', () => {
  it('gives back every event kind and value exactly: bigint times, NaN, ±Infinity, -0, non-decimal doubles, unicode keys', async () => {
    const events = sample();
    const path = await write(events);
    const r = readRecording(path);
    expect(r.header).toEqual(HEADER);
    const back = [...r.events()];
    expect(back).toHaveLength(events.length);
    for (let i = 0; i < events.length; i++) expect(back[i], `event ${i}`).toEqual(events[i]);
    expect(Object.is((back[10] as { book: BookUpdate }).book.bids[0]!.price, -0)).toBe(true);
    expect(r.droppedTailBytes).toBe(0);
  });

  it('with many small blocks (each self-contained) the events are the same', async () => {
    const events = [...sample(), ...sample(), ...sample()];
    const { events: back } = readAll(await write(events, { blockBytes: 64 }));
    expect(back).toEqual(events);
  });

  it('refuses a symbol the header does not list, and never overwrites a file', async () => {
    const path = await write([]);
    expect(() => RecordingWriter.create(path, HEADER)).toThrow(/the file exists/);
    const w = RecordingWriter.create(fresh(), HEADER);
    expect(() => w.append(trade(T0, { symbol: 'SOL-USD' }))).toThrow(/SOL-USD is not among the recording's markets/);
    await w.close();
  });
});

describe('write errors', () => {
  it('are reported once; later events are counted as dropped, and close still resolves', async () => {
    const errors: RecordingError[] = [];
    const w = RecordingWriter.create(fresh(), HEADER, { onError: (e) => errors.push(e) });
    // The descriptor taken away under the writer: its next write fails (EBADF), as a full or vanished disk would.
    closeSync((w as unknown as { fd: number }).fd);
    w.append(trade(T0));
    w.flush();
    await w.drained();
    w.append(trade(T0 + 1n));
    w.flush();
    await w.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/write failed/);
    expect(w.error).toBe(errors[0]);
    expect([w.events, w.droppedEvents]).toEqual([2, 1]);
  });
});

describe('crash safety', () => {
  it('drops a last block cut anywhere (a writer killed mid-write) and keeps every block before it', async () => {
    // Without the far-apart times (they start blocks of their own): each batch is one block.
    const first = sample().slice(0, -3);
    const second = sample().slice(0, -3);
    const path = fresh();
    const w = RecordingWriter.create(path, HEADER);
    for (const e of first) w.append(e);
    w.flush();
    await w.drained();
    const whole = readFileSync(path).length;
    for (const e of second) w.append(e);
    await w.close();
    const full = readFileSync(path);
    for (const cut of [whole + 1, whole + 20, whole + 40, full.length - 1]) {
      const copy = fresh();
      writeFileSync(copy, full.subarray(0, cut));
      const { events, dropped } = readAll(copy);
      expect(events).toEqual(first);
      expect(dropped).toBe(cut - whole);
    }
  });

  it('drops a zero-filled or garbled tail; damage before a whole block is an error naming its byte', async () => {
    const path = await write(sample());
    const good = readFileSync(path).length;
    appendFileSync(path, Buffer.alloc(300));
    expect(readAll(path)).toEqual({ events: sample(), dropped: 300 });

    const twoBlocks = fresh();
    const w = RecordingWriter.create(twoBlocks, HEADER);
    for (const e of sample()) w.append(e);
    w.flush();
    await w.drained();
    const firstEnd = readFileSync(twoBlocks).length;
    for (const e of sample()) w.append(e);
    await w.close();
    const bytes = readFileSync(twoBlocks);
    bytes[firstEnd - 5]! ^= 0xff;
    writeFileSync(twoBlocks, bytes);
    const blocks = readRecording(twoBlocks).events();
    expect(() => [...blocks]).toThrow(RecordingError);
    expect(() => [...readRecording(twoBlocks).events()]).toThrow(/damaged block at byte \d+ \(the next whole block starts at byte \d+\)/);
    expect(good).toBeGreaterThan(0);
  });
});

describe('header validation', () => {
  const withHeader = (json: string) => {
    const path = fresh();
    const body = Buffer.from(json);
    const ok = readFileSync(writeEmpty());
    const headerStart = 12;
    // The preamble of a valid file, then a header block holding `json`.
    const frame = block({ kind: BLOCK_HEADER, codec: CODEC_NONE, payloadBytes: body.length, rawBytes: body.length, eventCount: 0, baseRecvNs: 0n }, body);
    writeFileSync(path, Buffer.concat([ok.subarray(0, headerStart), frame]));
    return path;
  };

  it('names the field at fault', () => {
    const bad = (patch: Record<string, unknown>) => withHeader(JSON.stringify({ ...HEADER, ...patch }));
    expect(() => readRecording(bad({ markets: [{ ...HEADER.markets[0], tickSizeUsd: 0 }] }))).toThrow(/header\.markets\[0\]\.tickSizeUsd: .*> 0/);
    expect(() => readRecording(bad({ dialect: 'v9' }))).toThrow(/header\.dialect/);
    expect(() => readRecording(bad({ markets: [] }))).toThrow(/header\.markets/);
    expect(() => readRecording(bad({ startTimeMs: undefined }))).toThrow(/header\.startTimeMs/);
    expect(() => readRecording(bad({ markets: [HEADER.markets[0], HEADER.markets[0]] }))).toThrow(/header\.markets\[1\]\.symbol: BTC-USD is listed twice/);
    expect(() => readRecording(withHeader('{not json'))).toThrow(/the header is not JSON/);
  });

  it('refuses a file that is not a recording, another format version, a missing header, a missing file', () => {
    const notOne = fresh();
    writeFileSync(notOne, 'hello world, this is text');
    expect(() => readRecording(notOne)).toThrow(/not a perpbot recording/);
    const v2 = fresh();
    const bytes = readFileSync(writeEmpty());
    bytes.writeUInt32LE(2, 8);
    writeFileSync(v2, bytes);
    expect(() => readRecording(v2)).toThrow(/format version 2; this perpbot reads version 1/);
    const cut = writeEmpty();
    truncateSync(cut, 20);
    expect(() => readRecording(cut)).toThrow(/header block is missing or damaged/);
    expect(() => readRecording(join(dir, 'nowhere.rec'))).toThrow(/cannot open the recording/);
    try {
      readRecording(notOne);
    } catch (e) {
      expect((e as RecordingError).code).toBe('RECORDING');
    }
  });

  it('the writer refuses a bad header before it creates the file', () => {
    const path = fresh();
    expect(() => RecordingWriter.create(path, { ...HEADER, network: 'moon' as 'testnet' })).toThrow(/header\.network/);
    expect(() => readFileSync(path)).toThrow(/ENOENT/);
  });
});

/** A recording with a header and no events (the header is written synchronously by create). */
function writeEmpty(): string {
  const path = fresh();
  void RecordingWriter.create(path, HEADER).close();
  return path;
}
