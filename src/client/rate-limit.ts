// Client-side token bucket: callers wait (in arrival order) until a token is free; the venue's own back-pressure
// (HTTP 429 Retry-After) as a gate. Invariants: never more than `burst` requests at once and `perSecond` sustained,
// measured on the injected clock; while the gate is shut nothing is sent, and when it opens cancels go first.

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

/**
 * Holds requests back while the venue asked to wait (HTTP 429 with Retry-After). When the wait is over, the waiting
 * cancel-only requests are let through before every other request.
 */
export class RetryAfterGate {
  /** Epoch ms until which requests wait; 0 when open (the request path reads only this field). */
  private untilMs = 0;
  /** Identifies the current wait: a wait lengthened by a later 429 ignores the end of the earlier one. */
  private armed = 0;
  private cancels: (() => void)[] = [];
  private others: (() => void)[] = [];

  constructor(
    private readonly clock: Pick<Clock, 'nowMs'>,
    private readonly sleep: Sleep = realSleep,
  ) {}

  /** True while requests must wait. */
  get shut(): boolean {
    return this.untilMs !== 0;
  }

  /** Shuts the gate for `ms` from now (a shorter wait than the current one changes nothing). */
  pause(ms: number): void {
    const now = this.clock.nowMs();
    const until = now + ms;
    if (until <= this.untilMs) return;
    this.untilMs = until;
    const armed = ++this.armed;
    void this.sleep(ms).then(() => {
      if (armed === this.armed) this.open();
    });
  }

  /** Resolves once the gate is open; cancel-only requests are released first. */
  wait(cancelOnly: boolean): Promise<void> {
    if (!this.shut) return Promise.resolve();
    return new Promise((resolve) => (cancelOnly ? this.cancels : this.others).push(resolve));
  }

  /** Opens now, releasing every waiter (the client is closing). */
  open(): void {
    this.armed++;
    this.untilMs = 0;
    const cancels = this.cancels;
    const others = this.others;
    this.cancels = [];
    this.others = [];
    for (const resolve of cancels) resolve();
    for (const resolve of others) resolve();
  }
}
