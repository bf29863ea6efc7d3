// The recording file's framing (docs/recording.md): a file preamble, then blocks, each a fixed frame (sync marker, kind,
// lengths, event count, base receive time, CRC-32) and its payload; the first block holds the header as JSON.
// Invariants: every block is self-contained (decodable without any other block); a frame's CRC covers its fields and payload.

import { crc32 } from 'node:zlib';
import { DIALECTS, NETWORKS, symbolSchema } from '../../core/types.js';
import { array, literal, number, object, optional, parse, string } from '../../core/schema.js';
import { ValidationError } from '../../core/errors.js';
import { RECORDING_FORMAT_VERSION, type RecordingHeader } from './events.js';
import { RecordingError } from './errors.js';

/** "PERPREC" and a newline: the first 8 bytes of every recording. */
export const FILE_MAGIC = Buffer.from('PERPREC\n', 'latin1');
/** The preamble: the magic, then the format version (u32 LE). */
export const PREAMBLE_BYTES = 12;
/** "PBLK" read as a u32 LE: the first 4 bytes of every block frame. */
export const BLOCK_MAGIC = 0x4b4c4250;
export const FRAME_BYTES = 32;
export const BLOCK_HEADER = 1;
export const BLOCK_EVENTS = 2;
export const CODEC_NONE = 0;
export const CODEC_DEFLATE_RAW = 1;
/** Largest payload or raw block a reader accepts, bytes (a writer's blocks are far smaller). */
export const MAX_BLOCK_BYTES = 64 * 1024 * 1024;

export interface Frame {
  readonly kind: number;
  readonly codec: number;
  readonly payloadBytes: number;
  readonly rawBytes: number;
  readonly eventCount: number;
  /** The receive time the block's first event is relative to, clock ns. */
  readonly baseRecvNs: bigint;
}

/** The preamble of a version-`RECORDING_FORMAT_VERSION` file. */
export function preamble(): Buffer {
  const b = Buffer.alloc(PREAMBLE_BYTES);
  FILE_MAGIC.copy(b, 0);
  b.writeUInt32LE(RECORDING_FORMAT_VERSION, 8);
  return b;
}

/** Frame and payload in one buffer (one write: a crash leaves a block whole or detectably cut). */
export function block(frame: Frame, payload: Uint8Array): Buffer {
  const b = Buffer.allocUnsafe(FRAME_BYTES + payload.length);
  b.writeUInt32LE(BLOCK_MAGIC, 0);
  b.writeUInt8(frame.kind, 4);
  b.writeUInt8(frame.codec, 5);
  b.writeUInt16LE(0, 6);
  b.writeUInt32LE(payload.length, 8);
  b.writeUInt32LE(frame.rawBytes, 12);
  b.writeUInt32LE(frame.eventCount, 16);
  b.writeBigInt64LE(frame.baseRecvNs, 20);
  b.set(payload, FRAME_BYTES);
  b.writeUInt32LE(crc32(b.subarray(FRAME_BYTES), crc32(b.subarray(4, 28))), 28);
  return b;
}

/** The frame at the start of `bytes` (FRAME_BYTES long), or undefined when the sync marker or lengths are wrong. */
export function readFrame(bytes: Buffer): Frame | undefined {
  if (bytes.readUInt32LE(0) !== BLOCK_MAGIC) return undefined;
  const frame = {
    kind: bytes.readUInt8(4),
    codec: bytes.readUInt8(5),
    payloadBytes: bytes.readUInt32LE(8),
    rawBytes: bytes.readUInt32LE(12),
    eventCount: bytes.readUInt32LE(16),
    baseRecvNs: bytes.readBigInt64LE(20),
  };
  return frame.payloadBytes > MAX_BLOCK_BYTES || frame.rawBytes > MAX_BLOCK_BYTES ? undefined : frame;
}

/** True when the CRC in `frameBytes` matches its fields and `payload`. */
export function crcMatches(frameBytes: Buffer, payload: Uint8Array): boolean {
  return frameBytes.readUInt32LE(28) === crc32(payload, crc32(frameBytes.subarray(4, 28)));
}

const positive = () => number({ gt: 0 });
const marketSchema = object({
  symbol: symbolSchema,
  tickSizeUsd: positive(),
  lotSizeBase: positive(),
  minNotionalUsd: number({ min: 0 }),
  maxLeverage: positive(),
  makerFeeRate: optional(number({ min: -1, max: 1 })),
  takerFeeRate: optional(number({ min: -1, max: 1 })),
  fundingIntervalMs: optional(positive()),
});
const headerSchema = object({
  formatVersion: literal(RECORDING_FORMAT_VERSION),
  venue: string({ minLength: 1, maxLength: 2048 }),
  dialect: literal(...DIALECTS),
  network: literal(...NETWORKS),
  markets: array(marketSchema, { minLength: 1, maxLength: 10_000 }),
  startTimeMs: number({ integer: true, min: 0 }),
  seed: optional(number({ integer: true, min: 0, max: 2 ** 32 - 1 })),
  flow: optional(
    object({
      intervalMs: number({ integer: true, min: 1, max: 60_000 }),
      makers: number({ integer: true, min: 1, max: 100 }),
      levels: number({ integer: true, min: 1, max: 100 }),
    }),
  ),
});

/**
 * `value` checked as a header: RecordingError naming `source` and the field (`header.markets[0].tickSizeUsd: must be > 0`)
 * for a missing or bad one, or a symbol listed twice.
 */
export function checkHeader(value: unknown, source: string): RecordingHeader {
  let header: RecordingHeader;
  try {
    header = parse(headerSchema, value, 'header');
  } catch (e) {
    if (e instanceof ValidationError) throw new RecordingError(`${source}: ${e.message}`, { cause: e });
    throw e;
  }
  const seen = new Set<string>();
  header.markets.forEach((m, i) => {
    if (seen.has(m.symbol)) throw new RecordingError(`${source}: header.markets[${i}].symbol: ${m.symbol} is listed twice`);
    seen.add(m.symbol);
  });
  return header;
}
