// Nonces: epoch nanoseconds, strictly increasing per signer, never reused across restarts.
// Invariant: a nonce is handed out only after a high-water mark >= it has been made durable.

import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import { PerpbotError } from '../core/errors.js';

/** Durable per-signer high-water marks (a file per signer now; the journal may replace it). */
export interface NonceStore {
  /** The persisted high-water mark of `signer`, or undefined when none was saved. */
  load(signer: string): bigint | undefined;
  /** Makes `highWaterNs` durable before returning. */
  save(signer: string, highWaterNs: bigint): void;
}

const U64_MAX = (1n << 64n) - 1n;

export class FileNonceStore implements NonceStore {
  constructor(private readonly dir: string) {}

  private file(signer: string): string {
    if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(signer)) throw new PerpbotError('NONCE_STORE', 'signer is not a base58 public key');
    return join(this.dir, `${signer}.nonce`);
  }

  load(signer: string): bigint | undefined {
    let text: string;
    try {
      text = readFileSync(this.file(signer), 'utf8').trim();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new PerpbotError('NONCE_STORE', `cannot read nonce high-water mark of ${signer}`, { cause: e });
    }
    if (!/^\d{1,20}$/.test(text)) throw new PerpbotError('NONCE_STORE', `corrupt nonce high-water mark for ${signer}: ${JSON.stringify(text.slice(0, 40))}`);
    return BigInt(text);
  }

  save(signer: string, highWaterNs: bigint): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const path = this.file(signer);
    const tmp = `${path}.${process.pid}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, `${highWaterNs}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  }
}

/** Keeps high-water marks in memory only (tests, backtests). */
export class MemoryNonceStore implements NonceStore {
  private readonly marks = new Map<string, bigint>();

  load(signer: string): bigint | undefined {
    return this.marks.get(signer);
  }

  save(signer: string, highWaterNs: bigint): void {
    this.marks.set(signer, highWaterNs);
  }
}

export interface NonceSourceOptions {
  signer: string;
  clock: Clock;
  store: NonceStore;
  /** How far ahead of the last nonce a saved mark reaches, in ns; bounds how often the store is written. Default 60 s. */
  reserveNs?: bigint;
}

/** Monotonic nonce generator for one signer: `max(now, last + 1)`. */
export class NonceSource {
  readonly signer: string;
  private readonly clock: Clock;
  private readonly store: NonceStore;
  private readonly reserveNs: bigint;
  private last: bigint;
  private reserved: bigint;

  constructor(opts: NonceSourceOptions) {
    this.signer = opts.signer;
    this.clock = opts.clock;
    this.store = opts.store;
    this.reserveNs = opts.reserveNs ?? 60_000_000_000n;
    const persisted = this.store.load(this.signer);
    this.last = persisted ?? 0n;
    this.reserved = this.last;
  }

  /** The next nonce (epoch ns); strictly greater than every nonce this signer used before. */
  next(): bigint {
    const now = this.clock.nowNs();
    const n = now > this.last ? now : this.last + 1n;
    if (n > U64_MAX) throw new PerpbotError('NONCE_EXHAUSTED', 'nonce would exceed u64');
    if (n > this.reserved) {
      const mark = n + this.reserveNs > U64_MAX ? U64_MAX : n + this.reserveNs;
      this.store.save(this.signer, mark);
      this.reserved = mark;
    }
    this.last = n;
    return n;
  }
}
