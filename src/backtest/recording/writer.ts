// Streams recorded events to a file: events are encoded into a block, a block is closed by size or by a timer,
// compressed off the main thread and written in order, each with one write. Invariants: blocks reach the file in the
// order they were closed; with `flushIntervalMs` set, a process killed at any moment leaves every event older than
// that interval (plus one block's compression) in the file; after the first write error, events are counted, not kept.

import { closeSync, fsync, openSync, write, writeSync } from 'node:fs';
import { deflateRaw } from 'node:zlib';
import { stringifyJson } from '../../core/json.js';
import { BlockEncoder } from './codec.js';
import type { RecordedEvent, RecordingHeader } from './events.js';
import { RecordingError } from './errors.js';
import { BLOCK_EVENTS, BLOCK_HEADER, block, CODEC_DEFLATE_RAW, CODEC_NONE, checkHeader, preamble } from './format.js';

export interface RecordingWriterOptions {
  /** Closes the open block at least this often, ms of wall time (a live recording). Default: by size only. */
  flushIntervalMs?: number;
  /** A block is closed once its encoded events reach this many bytes. Default 1 MiB. */
  blockBytes?: number;
  /** zlib level of the blocks' compression, 1 (fast) to 9 (small). Default 6. */
  level?: number;
  /** Called once, with the first write error; the writer then keeps nothing. */
  onError?: (e: RecordingError) => void;
}

const DEFAULT_BLOCK_BYTES = 1 << 20;
/** The flush interval of live recordings: what a recorder killed at any moment can lose, ms. */
export const LIVE_FLUSH_INTERVAL_MS = 500;

export class RecordingWriter {
  private readonly encoder: BlockEncoder;
  private readonly blockBytes: number;
  private readonly level: number;
  private readonly timer: NodeJS.Timeout | undefined;
  private written: Promise<void> = Promise.resolve();
  private queued = 0;
  private closed = false;
  /** Events handed to append. */
  events = 0;
  /** Events appended after a write error (not kept). */
  droppedEvents = 0;
  /** Bytes written to the file so far. */
  bytes = 0;
  /** The first write error, if any. */
  error: RecordingError | undefined;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    readonly header: RecordingHeader,
    private readonly opts: RecordingWriterOptions,
  ) {
    this.encoder = new BlockEncoder(new Map(header.markets.map((m, i) => [m.symbol, i])));
    this.blockBytes = opts.blockBytes ?? DEFAULT_BLOCK_BYTES;
    this.level = opts.level ?? 6;
    if (opts.flushIntervalMs !== undefined) {
      this.timer = setInterval(() => this.flush(), opts.flushIntervalMs);
      this.timer.unref();
    }
  }

  /**
   * Creates `path` (never overwriting a file) and writes the preamble and `header`. Throws RecordingError when the file
   * exists or cannot be created, or for a bad header field.
   */
  static create(path: string, header: RecordingHeader, opts: RecordingWriterOptions = {}): RecordingWriter {
    checkHeader(header, path);
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'EEXIST' ? 'the file exists (a recording is never overwritten; choose another name)' : (e as Error).message;
      throw new RecordingError(`${path}: cannot create the recording: ${why}`, { cause: e });
    }
    const writer = new RecordingWriter(path, fd, header, opts);
    const json = Buffer.from(stringifyJson(header), 'utf8');
    const head = Buffer.concat([
      preamble(),
      block({ kind: BLOCK_HEADER, codec: CODEC_NONE, payloadBytes: json.length, rawBytes: json.length, eventCount: 0, baseRecvNs: 0n }, json),
    ]);
    try {
      writeSync(fd, head);
    } catch (e) {
      closeSync(fd);
      throw new RecordingError(`${path}: cannot write the header: ${(e as Error).message}`, { cause: e });
    }
    writer.bytes = head.length;
    return writer;
  }

  /** Blocks closed but not yet in the file. */
  get pendingBlocks(): number {
    return this.queued;
  }

  /** Adds `e` to the open block. Throws RecordingError for a symbol the header does not list, or after close(). */
  append(e: RecordedEvent): void {
    if (this.closed) throw new RecordingError(`${this.path}: append after close`);
    this.events++;
    if (this.error) {
      this.droppedEvents++;
      return;
    }
    if (!this.encoder.fits(e.recvNs)) this.flush();
    this.encoder.append(e);
    if (this.encoder.bytes >= this.blockBytes) this.flush();
  }

  /** Closes the open block (if it has events) and queues it for writing. */
  flush(): void {
    const enc = this.encoder;
    if (enc.count === 0 || this.error) return;
    const raw = Buffer.from(enc.contents());
    const frame = { kind: BLOCK_EVENTS, codec: CODEC_DEFLATE_RAW, rawBytes: raw.length, eventCount: enc.count, baseRecvNs: enc.baseRecvNs };
    enc.reset();
    const compressed = new Promise<Buffer>((resolve, reject) => deflateRaw(raw, { level: this.level }, (err, out) => (err ? reject(err) : resolve(out))));
    this.queued++;
    this.written = this.written.then(async () => {
      if (this.error) return;
      try {
        const payload = await compressed;
        const bytes = block({ ...frame, payloadBytes: payload.length }, payload);
        await new Promise<void>((resolve, reject) => write(this.fd, bytes, (err) => (err ? reject(err) : resolve())));
        this.bytes += bytes.length;
      } catch (e) {
        this.fail(e);
      } finally {
        this.queued--;
      }
    });
  }

  /** Resolves once every block closed so far is in the file (or the writer failed). */
  drained(): Promise<void> {
    return this.written;
  }

  /** Writes what is left, syncs and closes the file. Idempotent; never rejects (see `error`). */
  async close(): Promise<void> {
    if (this.closed) return this.written;
    clearInterval(this.timer);
    this.flush();
    this.closed = true;
    this.written = this.written.then(async () => {
      try {
        if (!this.error) await new Promise<void>((resolve, reject) => fsync(this.fd, (err) => (err ? reject(err) : resolve())));
      } catch (e) {
        this.fail(e);
      }
      try {
        closeSync(this.fd);
      } catch (e) {
        this.fail(e);
      }
    });
    return this.written;
  }

  private fail(e: unknown): void {
    if (this.error) return;
    this.error = new RecordingError(`${this.path}: write failed: ${(e as Error).message}`, { cause: e });
    this.opts.onError?.(this.error);
  }
}
