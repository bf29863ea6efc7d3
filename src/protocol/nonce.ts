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
  /**
   * How far ahead of the clock a saved mark reaches, in ns; bounds how often the store is written and how far ahead of
   * the clock the first nonce after a restart can be. Default 10 s.
   */
  reserveNs?: bigint;
}

const DEFAULT_RESERVE_NS = 10_000_000_000n;
/** Least reservation beyond the nonce itself (1 ms of nonces) while the clock is behind the mark, so the store is not written per nonce. */
const MIN_STEP_NS = 1_000_000n;

/**
 * Monotonic nonce generator for one signer: `max(now, last + 1)`, resuming above the persisted mark. A saved mark
 * reaches `reserveNs` beyond the clock, not beyond the nonce: a restart before the clock passed the mark starts just
 * above it and reserves from the clock again, so restarts never push nonces further ahead than about `reserveNs`.
 * The mark is renewed ahead of need (once the clock is within half a window of it, after the current call) so the
 * hot path rarely writes.
 * Create one per signer and store in a process (NonceSources): a second source would start above the first's mark
 * while the first keeps issuing below it.
 */
export class NonceSource {
  readonly signer: string;
  private readonly clock: Clock;
  private readonly store: NonceStore;
  private readonly reserveNs: bigint;
  /** reserveNs / 2, computed once (next() is on the signing path). */
  private readonly renewWithinNs: bigint;
  private last: bigint;
  private reserved: bigint;
  private renewing = false;

  constructor(opts: NonceSourceOptions) {
    this.signer = opts.signer;
    this.clock = opts.clock;
    this.store = opts.store;
    this.reserveNs = opts.reserveNs ?? DEFAULT_RESERVE_NS;
    this.renewWithinNs = this.reserveNs / 2n;
    const persisted = this.store.load(this.signer);
    this.last = persisted ?? 0n;
    this.reserved = this.last;
  }

  /** The next nonce (epoch ns); strictly greater than every nonce this signer used before. */
  next(): bigint {
    const now = this.clock.nowNs();
    const n = now > this.last ? now : this.last + 1n;
    if (n > U64_MAX) throw new PerpbotError('NONCE_EXHAUSTED', 'nonce would exceed u64');
    if (n > this.reserved) this.reserve(n);
    else if (!this.renewing && this.reserved - now < this.renewWithinNs) {
      this.renewing = true;
      setImmediate(this.renew);
    }
    this.last = n;
    return n;
  }

  /**
   * Renews the reservation now when less than half of it is left, as next() does while signing: called on a timer, it
   * keeps nonces reserved for an idle signer (cancels can still be signed when the store fails). Throws the store's error.
   */
  keepReserved(): void {
    if (this.reserved - this.clock.nowNs() < this.renewWithinNs) this.reserve(this.last);
  }

  /** How far the latest nonce is ahead of the clock, ns (0 when the clock is ahead). */
  leadNs(): bigint {
    const lead = this.last - this.clock.nowNs();
    return lead > 0n ? lead : 0n;
  }

  /** Makes a mark >= `n` durable: `reserveNs` past the clock, and never less than a small step past `n`. */
  private reserve(n: bigint): void {
    const fromClock = this.clock.nowNs() + this.reserveNs;
    const least = n + MIN_STEP_NS;
    const wanted = fromClock > least ? fromClock : least;
    const mark = wanted > U64_MAX ? U64_MAX : wanted;
    this.store.save(this.signer, mark);
    this.reserved = mark;
  }

  /** Renews the reservation outside the caller's turn; a failing store is left to the next call that needs it. */
  private readonly renew = (): void => {
    this.renewing = false;
    try {
      this.reserve(this.last);
    } catch {
      // next() saves synchronously once the reservation runs out, and throws that error to its caller.
    }
  };
}

/** The nonce sources of one process over one store: one per signer, made on first use. */
export class NonceSources {
  private readonly sources = new Map<string, NonceSource>();

  constructor(private readonly opts: Omit<NonceSourceOptions, 'signer'>) {}

  /** The source of `signer` (the same one for every caller). */
  of(signer: string): NonceSource {
    let source = this.sources.get(signer);
    if (!source) this.sources.set(signer, (source = new NonceSource({ ...this.opts, signer })));
    return source;
  }
}
