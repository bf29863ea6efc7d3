// The time the simulated venue runs on: a clock, an RxJS scheduler and timed work, either the replay's virtual timeline
// (VirtualTime) or the machine's own time (RealTime: paper trading on a live market stream).
// Invariants: work queued for one time runs in the order it was queued, never before its time; RealTime never reads a
// clock other than the one it was given.

import { asyncScheduler, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';
import { systemClock, type Clock } from '../core/clock.js';

/** What the simulated venue needs of time: now, and work queued at a later time. */
export interface SimTime extends Clock, SchedulerLike {
  /** Now, ns since the time's origin. */
  readonly nowRelNs: number;
  /**
   * Queues `run` at `atNs` (ns since the origin, not before now). `drain` tells a replay what of the bot's pending
   * work must run before its time moves on (virtual time only; real time lets the event loop decide).
   */
  at(atNs: number, run: () => void, drain: number): void;
}

interface Timed {
  readonly atNs: number;
  readonly run: () => void;
}

/** The machine's time as a SimTime: one timer for the earliest queued work; close() drops what is still queued. */
export class RealTime implements SimTime {
  readonly originNs: bigint;
  private readonly queue: Timed[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAtNs = Number.POSITIVE_INFINITY;
  private closed = false;

  constructor(
    private readonly clock: Clock = systemClock(),
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {
    this.originNs = clock.nowNs();
  }

  get nowRelNs(): number {
    return Number(this.clock.nowNs() - this.originNs);
  }

  nowNs(): bigint {
    return this.clock.nowNs();
  }

  nowMs(): number {
    return this.clock.nowMs();
  }

  now(): number {
    return this.scheduler.now();
  }

  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delayMs?: number, state?: T): Subscription {
    return this.scheduler.schedule(work, delayMs, state);
  }

  at(atNs: number, run: () => void, _drain: number): void {
    if (this.closed) return;
    const item = { atNs, run };
    const q = this.queue;
    // After every item due at the same time or earlier: equal times run in the order queued.
    let i = q.length;
    while (i > 0 && q[i - 1]!.atNs > atNs) i--;
    q.splice(i, 0, item);
    this.arm();
  }

  /** Drops the queued work and the timer. */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    const first = this.queue[0];
    if (first === undefined || first.atNs >= this.timerAtNs) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAtNs = first.atNs;
    this.timer = setTimeout(() => this.runDue(), Math.max(0, (first.atNs - this.nowRelNs) / 1e6));
  }

  private runDue(): void {
    this.timer = undefined;
    this.timerAtNs = Number.POSITIVE_INFINITY;
    const nowNs = this.nowRelNs;
    while (!this.closed && this.queue.length > 0 && this.queue[0]!.atNs <= nowNs) this.queue.shift()!.run();
    this.arm();
  }
}
