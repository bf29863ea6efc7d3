// Client-side token bucket: callers wait (in arrival order) until a token is free.
// Invariant: never more than `burst` requests at once and `perSecond` sustained, measured on the injected clock.

import type { Clock } from '../core/clock.js';

export interface RateLimit {
  /** Sustained requests per second. */
  perSecond: number;
  /** Bucket size. Default: one second's worth (at least 1). */
  burst?: number;
}

export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class TokenBucket {
  private readonly burst: number;
  private tokens: number;
  private atMs: number;
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;

  constructor(
    private readonly limit: RateLimit,
    private readonly clock: Clock,
    private readonly sleep: Sleep = realSleep,
  ) {
    if (!(limit.perSecond > 0)) throw new RangeError('perSecond must be > 0');
    this.burst = limit.burst ?? Math.max(1, limit.perSecond);
    this.tokens = this.burst;
    this.atMs = clock.nowMs();
  }

  /** Takes a token now if one is free and nobody waits; false otherwise (then use `take`). */
  tryTake(): boolean {
    if (this.waiting > 0) return false;
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Resolves once a token was taken; waiters are served first come, first served. */
  take(): Promise<void> {
    this.waiting++;
    const turn = this.tail.then(() => this.acquire()).finally(() => this.waiting--);
    this.tail = turn;
    return turn;
  }

  private refill(): void {
    const now = this.clock.nowMs();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.atMs) / 1000) * this.limit.perSecond);
    this.atMs = now;
  }

  private async acquire(): Promise<void> {
    this.refill();
    while (this.tokens < 1) {
      await this.sleep(Math.ceil(((1 - this.tokens) / this.limit.perSecond) * 1000));
      this.refill();
    }
    this.tokens -= 1;
  }
}
