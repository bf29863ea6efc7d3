// Reads a recording as a stream: the header at once, the events block by block (one block's bytes in memory at a
// time), a damaged or incomplete last block dropped. Invariant: events come in file order, exactly as they were
// appended; a block that passed its CRC yet does not decode is an error, never skipped.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { constants as zlibConstants, inflateRawSync } from 'node:zlib';
import { BlockDecoder } from './codec.js';
import { RECORDING_FORMAT_VERSION, type RecordedEvent, type RecordingHeader, type RecordingReader } from './events.js';
import { RecordingError } from './errors.js';
import {
  BLOCK_EVENTS,
  BLOCK_HEADER,
  CODEC_DEFLATE_RAW,
  CODEC_NONE,
  checkHeader,
  crcMatches,
  FILE_MAGIC,
  FRAME_BYTES,
  type Frame,
  PREAMBLE_BYTES,
  readFrame,
} from './format.js';

const SCAN_CHUNK_BYTES = 1 << 20;
const BLOCK_MAGIC_BYTES = Buffer.from('PBLK', 'latin1');

/** Reads `bytes.length` bytes at `offset` (fewer at the end of the file); returns how many. */
function readAt(fd: number, bytes: Buffer, offset: number): number {
  let got = 0;
  while (got < bytes.length) {
    const n = readSync(fd, bytes, got, bytes.length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** A whole block (frame, payload, CRC) at `offset` of a `size`-byte file: its frame and payload, else undefined. */
function wholeBlock(fd: number, offset: number, size: number, frameBytes: Buffer): { frame: Frame; payload: Buffer } | undefined {
  if (readAt(fd, frameBytes, offset) < FRAME_BYTES) return undefined;
  const frame = readFrame(frameBytes);
  if (!frame || offset + FRAME_BYTES + frame.payloadBytes > size) return undefined;
  const payload = Buffer.allocUnsafe(frame.payloadBytes);
  if (readAt(fd, payload, offset + FRAME_BYTES) < frame.payloadBytes || !crcMatches(frameBytes, payload)) return undefined;
  return { frame, payload };
}

/** The offset of the first whole block after `from`, or undefined when none is left (the damage is the file's tail). */
function nextWholeBlock(fd: number, from: number, size: number): number | undefined {
  const chunk = Buffer.allocUnsafe(SCAN_CHUNK_BYTES + BLOCK_MAGIC_BYTES.length - 1);
  const frameBytes = Buffer.allocUnsafe(FRAME_BYTES);
  for (let start = from; start < size; start += SCAN_CHUNK_BYTES) {
    const got = readAt(fd, chunk, start);
    for (let i = chunk.subarray(0, got).indexOf(BLOCK_MAGIC_BYTES); i >= 0; i = chunk.subarray(0, got).indexOf(BLOCK_MAGIC_BYTES, i + 1)) {
      if (wholeBlock(fd, start + i, size, frameBytes)) return start + i;
    }
  }
  return undefined;
}

/** The block being read: where it starts and ends (bytes), its events and how many were handed out. */
interface BlockPosition {
  start: number;
  end: number;
  events: number;
  read: number;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * One pass over a recording's events, a block decoded at a time (a class, not a generator: an event costs no resumption
 * and no result object). The object next() returns is the same each call: read its value before calling again.
 */
class EventIterator implements IterableIterator<RecordedEvent> {
  private fd: number | undefined;
  private size = 0;
  private block: BlockPosition | undefined;
  private decoder: BlockDecoder | undefined;
  private readonly frameBytes = Buffer.allocUnsafe(FRAME_BYTES);
  private payload = Buffer.allocUnsafe(0);
  /** Inside a block: decoder.next() gives its next event. */
  private decoding = false;
  private finished = false;
  private readonly result: IteratorYieldResult<RecordedEvent> = { done: false, value: undefined as unknown as RecordedEvent };

  constructor(
    private readonly rec: FileRecording,
    private offset: number,
  ) {}

  [Symbol.iterator](): IterableIterator<RecordedEvent> {
    return this;
  }

  next(): IteratorResult<RecordedEvent> {
    if (this.finished) return DONE;
    try {
      for (;;) {
        if (this.decoding) {
          const e = this.decoded();
          if (e !== undefined) {
            this.block!.read++;
            this.result.value = e;
            return this.result;
          }
          this.decoding = false;
          this.offset = this.block!.end;
          this.block!.start = this.offset;
          this.block!.events = 0;
        }
        if (!this.startBlock()) {
          this.return();
          return DONE;
        }
      }
    } catch (err) {
      this.return();
      throw err;
    }
  }

  return(): IteratorResult<RecordedEvent> {
    this.finished = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    return DONE;
  }

  private decoded(): RecordedEvent | undefined {
    try {
      return this.decoder!.next();
    } catch (err) {
      if (err instanceof RecordingError) throw new RecordingError(`${this.rec.path}: block at byte ${this.offset}: ${err.message}`, { cause: err });
      throw err;
    }
  }

  /** Starts decoding the block at `offset`; false at the end of the file or of its whole blocks (a damaged tail is dropped). */
  private startBlock(): boolean {
    const rec = this.rec;
    if (this.fd === undefined) {
      this.fd = openSync(rec.path, 'r');
      this.size = fstatSync(this.fd).size;
      this.block = rec.startPass(this.size);
      this.decoder = new BlockDecoder(rec.header.markets.map((m) => m.symbol));
    }
    const { fd, size, offset, frameBytes } = this;
    const block = this.block!;
    if (offset >= size) return false;
    const frame = readAt(fd, frameBytes, offset) === FRAME_BYTES ? readFrame(frameBytes) : undefined;
    const end = frame ? offset + FRAME_BYTES + frame.payloadBytes : Infinity;
    if (frame && end <= size) {
      if (this.payload.length < frame.payloadBytes) this.payload = Buffer.allocUnsafe(frame.payloadBytes);
      const body = this.payload.subarray(0, frame.payloadBytes);
      readAt(fd, body, offset + FRAME_BYTES);
      if (crcMatches(frameBytes, body)) {
        this.decoder!.start(rec.inflate(frame, body, offset), frame.eventCount, frame.baseRecvNs);
        block.start = offset;
        block.end = end;
        block.events = frame.eventCount;
        block.read = 0;
        this.decoding = true;
        return true;
      }
    }
    const next = nextWholeBlock(fd, offset + 1, size);
    if (next !== undefined) throw new RecordingError(`${rec.path}: damaged block at byte ${offset} (the next whole block starts at byte ${next})`);
    rec.dropTail(offset);
    block.start = size;
    block.events = 0;
    return false;
  }
}

class FileRecording implements RecordingReader {
  droppedTailBytes = 0;
  private block: BlockPosition = { start: 0, end: 0, events: 0, read: 0 };

  constructor(
    readonly path: string,
    readonly header: RecordingHeader,
    private readonly dataOffset: number,
    public sizeBytes: number,
  ) {}

  /** Bytes read so far, the current block's counted by the share of its events handed out. */
  get readBytes(): number {
    const b = this.block;
    return b.events > 0 ? b.start + ((b.end - b.start) * b.read) / b.events : b.start;
  }

  events(): IterableIterator<RecordedEvent> {
    return new EventIterator(this, this.dataOffset);
  }

  /** Starts a pass over the file (events() calls it on its first next()): its block counter, reset. */
  startPass(size: number): BlockPosition {
    this.sizeBytes = size;
    this.droppedTailBytes = 0;
    this.block = { start: 0, end: 0, events: 0, read: 0 };
    return this.block;
  }

  /** The pass met a damaged or incomplete last block at `offset`: it is dropped. */
  dropTail(offset: number): void {
    this.droppedTailBytes = this.sizeBytes - offset;
  }

  inflate(frame: Frame, body: Buffer, offset: number): Buffer {
    if (frame.kind !== BLOCK_EVENTS || frame.codec !== CODEC_DEFLATE_RAW)
      throw new RecordingError(
        `${this.path}: block at byte ${offset} has kind ${frame.kind} and codec ${frame.codec}; events blocks are kind ${BLOCK_EVENTS}, codec ${CODEC_DEFLATE_RAW}`,
      );
    let raw: Buffer;
    try {
      // One output chunk the size of the block: no chunks joined into a copy.
      raw = inflateRawSync(body, { maxOutputLength: frame.rawBytes + 1, chunkSize: Math.max(zlibConstants.Z_MIN_CHUNK, frame.rawBytes + 1) });
    } catch (e) {
      throw new RecordingError(`${this.path}: block at byte ${offset} does not decompress: ${(e as Error).message}`, { cause: e });
    }
    if (raw.length !== frame.rawBytes)
      throw new RecordingError(`${this.path}: block at byte ${offset} decompresses to ${raw.length} bytes, its frame says ${frame.rawBytes}`);
    return raw;
  }
}

/**
 * Opens the recording at `path` and reads its header. Throws RecordingError when the file cannot be read, is not a
 * recording, has another format version, or a missing, damaged or invalid header (naming the field).
 */
export function readRecording(path: string): RecordingReader {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new RecordingError(`${path}: cannot open the recording: ${(e as Error).message}`, { cause: e });
  }
  try {
    const size = fstatSync(fd).size;
    const pre = Buffer.alloc(PREAMBLE_BYTES);
    if (readAt(fd, pre, 0) < PREAMBLE_BYTES || !pre.subarray(0, FILE_MAGIC.length).equals(FILE_MAGIC))
      throw new RecordingError(`${path}: not a perpbot recording (it does not start with ${JSON.stringify(FILE_MAGIC.toString('latin1'))})`);
    const version = pre.readUInt32LE(FILE_MAGIC.length);
    if (version !== RECORDING_FORMAT_VERSION)
      throw new RecordingError(`${path}: format version ${version}; this perpbot reads version ${RECORDING_FORMAT_VERSION} (docs/recording.md)`);
    const found = wholeBlock(fd, PREAMBLE_BYTES, size, Buffer.allocUnsafe(FRAME_BYTES));
    if (!found || found.frame.kind !== BLOCK_HEADER || found.frame.codec !== CODEC_NONE)
      throw new RecordingError(`${path}: the header block is missing or damaged`);
    let json: unknown;
    try {
      json = JSON.parse(found.payload.toString('utf8'));
    } catch (e) {
      throw new RecordingError(`${path}: the header is not JSON: ${(e as Error).message}`, { cause: e });
    }
    return new FileRecording(path, checkHeader(json, path), PREAMBLE_BYTES + FRAME_BYTES + found.payload.length, size);
  } finally {
    closeSync(fd);
  }
}
