// Ed25519 signing commitments computed ahead of time on a worker thread: pairs (r, R = r·B) with r uniform in
// [1, L), for the presigner's hot path. The worker uses @noble/ed25519's fixed-base multiplication (≈0.15 ms a pair).
// Invariants: a commitment is handed out at most once (take() removes it); the pool never blocks: empty means undefined;
// a failed worker only stops refills.

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { GROUP_ORDER } from './ed25519-scalar.js';

/** One commitment: the secret nonce r (32 bytes little-endian) and its point R = r·B (32 bytes, RFC 8032 encoding). */
export interface Commitment {
  readonly r: Uint8Array;
  readonly R: Uint8Array;
}

export interface CommitmentSource {
  /** A fresh commitment, or undefined when none is ready. */
  take(): Commitment | undefined;
}

export interface CommitmentPoolOptions {
  /** Commitments kept ready. Default 1024. */
  capacity?: number;
  /** Refill when fewer than this are ready. Default capacity / 2. */
  refillBelow?: number;
  /** Commitments per worker round trip. Default 16 (≈2.5 ms of worker time: short bursts leave the CPUs to trading). */
  chunk?: number;
  /** Told once if the worker fails (signing then falls back to deterministic signatures when the pool runs dry). */
  onError?: (error: unknown) => void;
}

/**
 * Worker body (CommonJS, evaluated; imports noble from the URL in workerData). Per request of n commitments it answers
 * one buffer of n × 64 bytes: r little-endian ‖ R. It lowers its own thread's priority where the OS allows, so refills
 * take idle CPU rather than the trading thread's.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { randomBytes } = require('node:crypto');
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  if (tid > 0) require('node:os').setPriority(tid, 19);
} catch {}
const L = BigInt(workerData.order);
import(workerData.noble).then((ed) => {
  parentPort.on('message', (n) => {
    const out = new Uint8Array(n * 64);
    for (let i = 0; i < n; i++) {
      let r = 0n;
      while (r === 0n) r = BigInt('0x' + randomBytes(64).toString('hex')) % L;
      const R = ed.Point.BASE.multiply(r).toBytes();
      for (let j = 0, v = r; j < 32; j++, v >>= 8n) out[i * 64 + j] = Number(v & 255n);
      out.set(R, i * 64 + 32);
    }
    parentPort.postMessage(out, [out.buffer]);
  });
  parentPort.postMessage('ready');
});
`;

const NOBLE_URL = pathToFileURL(createRequire(import.meta.url).resolve('@noble/ed25519')).href;

export class CommitmentPool implements CommitmentSource {
  private readonly ready: Commitment[] = [];
  private readonly capacity: number;
  private readonly refillBelow: number;
  private readonly chunk: number;
  private readonly worker: Worker;
  private requested = false;
  private failed = false;
  private closed = false;
  private readonly firstFill: Promise<void>;

  constructor(opts: CommitmentPoolOptions = {}) {
    this.capacity = opts.capacity ?? 1024;
    this.refillBelow = opts.refillBelow ?? this.capacity / 2;
    this.chunk = opts.chunk ?? 16;
    if (!Number.isInteger(this.capacity) || this.capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${this.capacity}`);
    // Latency-insensitive, short-lived garbage, a live set of ≈2 MB (noble's base-point table): small generations keep
    // the thread's memory flat (without an old-generation cap V8 let it grow ≈2 MB a minute). Running out fails the
    // worker, and signing falls back to deterministic.
    const resourceLimits = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 };
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { noble: NOBLE_URL, order: GROUP_ORDER.toString() }, resourceLimits });
    this.worker.unref();
    let filled!: () => void;
    this.firstFill = new Promise((resolve) => (filled = resolve));
    this.worker.on('message', (m: Uint8Array | 'ready') => {
      if (m === 'ready') return this.refill();
      this.requested = false;
      for (let o = 0; o < m.length; o += 64) this.ready.push({ r: m.subarray(o, o + 32), R: m.subarray(o + 32, o + 64) });
      filled();
      this.refill();
    });
    this.worker.on('error', (e) => {
      this.failed = true;
      filled();
      if (!this.closed) opts.onError?.(e);
    });
  }

  /** Commitments ready now. */
  get size(): number {
    return this.ready.length;
  }

  /** Resolves once the first chunk arrived (or the worker failed). */
  whenFilled(): Promise<void> {
    return this.firstFill;
  }

  take(): Commitment | undefined {
    const c = this.ready.pop();
    if (this.ready.length < this.refillBelow) this.refill();
    return c;
  }

  /** Stops the worker and wipes the unused commitments. */
  async close(): Promise<void> {
    this.closed = true;
    for (const c of this.ready.splice(0)) c.r.fill(0);
    await this.worker.terminate();
  }

  private refill(): void {
    if (this.requested || this.failed || this.closed || this.ready.length >= this.capacity) return;
    this.requested = true;
    this.worker.postMessage(Math.min(this.chunk, this.capacity - this.ready.length));
  }
}
