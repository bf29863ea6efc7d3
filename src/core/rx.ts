// Stream operators: silence detection (watchdog), latest-value conflation, light multicast, retry with backoff.
// Invariant: the timed ones run on an injected RxJS scheduler, so marble tests and backtests drive them in virtual time.

import {
  asyncScheduler,
  Observable,
  retry,
  Subscription,
  timer,
  type MonoTypeOperatorFunction,
  type OperatorFunction,
  type SchedulerLike,
  type Subscriber,
} from 'rxjs';
import { backoffDelayMs, type BackoffOptions } from './backoff.js';

/**
 * Calls `onStale(silentMs)` whenever `touch` was not called for `timeoutMs`, and again every `timeoutMs`
 * while the silence lasts. `touch` costs one clock read (no timer churn on the hot path).
 */
export class Watchdog {
  private last = 0;
  private action: Subscription | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly scheduler: SchedulerLike,
    private readonly onStale: (silentMs: number) => void,
  ) {}

  /** (Re)starts watching from now. */
  start(): void {
    this.stop();
    this.last = this.scheduler.now();
    this.arm(this.timeoutMs);
  }

  /** Notes activity at `nowMs` (default: the scheduler's now; pass it when several watchdogs of one scheduler are touched at once). */
  touch(nowMs: number = this.scheduler.now()): void {
    this.last = nowMs;
  }

  stop(): void {
    this.action?.unsubscribe();
    this.action = undefined;
  }

  private arm(delayMs: number): void {
    this.action = this.scheduler.schedule(() => this.check(), delayMs);
  }

  private check(): void {
    const now = this.scheduler.now();
    const silent = now - this.last;
    if (silent < this.timeoutMs) return this.arm(this.timeoutMs - silent);
    this.last = now;
    const action = this.action;
    this.onStale(silent);
    if (this.action === action) this.arm(this.timeoutMs);
  }
}

/** Emits the silence length (ms) each time the source stays quiet for `timeoutMs` (repeatedly while quiet). */
export function watchdog(timeoutMs: number, scheduler: SchedulerLike): OperatorFunction<unknown, number> {
  return (source) =>
    new Observable<number>((subscriber) => {
      const dog = new Watchdog(timeoutMs, scheduler, (ms) => subscriber.next(ms));
      dog.start();
      const sub = source.subscribe({
        next: () => dog.touch(),
        error: (e) => subscriber.error(e),
        complete: () => subscriber.complete(),
      });
      return () => {
        dog.stop();
        sub.unsubscribe();
      };
    });
}

/**
 * Latest-value conflation: after a burst of values (everything emitted before the delivery runs; by default a
 * microtask, so one socket read), delivers only the newest. A slow subscriber therefore sees fewer, newer values and
 * never holds up the producer. Completion waits for a pending delivery. With a `scheduler` (virtual time, tests) the
 * delivery is one action of it per burst; without, a bare queueMicrotask (no scheduler action on the frame path).
 */
export function conflate<T>(scheduler?: SchedulerLike): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      let latest: T | undefined;
      let scheduled = false;
      let completed = false;
      let action: Subscription | undefined;
      const deliver = () => {
        if (!scheduled) return;
        scheduled = false;
        action = undefined;
        subscriber.next(latest as T);
        if (completed) subscriber.complete();
      };
      const upstream = source.subscribe({
        next: (value) => {
          latest = value;
          if (scheduled) return;
          scheduled = true;
          if (!scheduler) return queueMicrotask(deliver);
          const scheduledAction = scheduler.schedule(deliver);
          if (scheduled) action = scheduledAction;
        },
        error: (e) => subscriber.error(e),
        complete: () => {
          completed = true;
          if (!scheduled) subscriber.complete();
        },
      });
      return () => {
        scheduled = false;
        action?.unsubscribe();
        upstream.unsubscribe();
      };
    });
}

/**
 * Hot, ref-counted multicast without a Subject (Subject.next allocates a closure per value, and
 * this sits on the frame path). The source is subscribed while anyone listens and unsubscribed
 * after; with `replayLatest`, a new subscriber first gets the newest value seen during that time.
 */
export function multicast<T>(replayLatest = false): MonoTypeOperatorFunction<T> {
  return (source) => {
    let subscribers: Subscriber<T>[] = [];
    let upstream: Subscription | undefined;
    let hasLatest = false;
    let latest: T | undefined;
    const reset = (): Subscriber<T>[] => {
      const current = subscribers;
      subscribers = [];
      upstream = undefined;
      hasLatest = false;
      latest = undefined;
      return current;
    };
    const observer = {
      next: (value: T) => {
        if (replayLatest) {
          latest = value;
          hasLatest = true;
        }
        const current = subscribers;
        for (let i = 0; i < current.length; i++) current[i]!.next(value);
      },
      error: (e: unknown) => {
        for (const s of reset()) s.error(e);
      },
      complete: () => {
        for (const s of reset()) s.complete();
      },
    };
    return new Observable<T>((subscriber) => {
      if (hasLatest) subscriber.next(latest as T);
      subscribers = [...subscribers, subscriber];
      if (!upstream) {
        upstream = new Subscription();
        upstream.add(source.subscribe(observer));
      }
      return () => {
        subscribers = subscribers.filter((s) => s !== subscriber);
        if (subscribers.length === 0 && upstream) {
          const u = upstream;
          reset();
          u.unsubscribe();
        }
      };
    });
  };
}

/**
 * Subscribes to the source again after each error, without end: `onRetry(error, attempt)` (attempt from 1) is told,
 * then backoffDelayMs(attempt - 1) passes on `scheduler`.
 */
export function retryWithBackoff<T>(
  backoff: BackoffOptions,
  onRetry: (error: Error, attempt: number) => void,
  scheduler: SchedulerLike = asyncScheduler,
  random?: () => number,
): MonoTypeOperatorFunction<T> {
  return retry({
    delay: (e: Error, attempt) => {
      onRetry(e, attempt);
      return timer(backoffDelayMs(attempt - 1, backoff, random), scheduler);
    },
  });
}
