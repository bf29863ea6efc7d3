import { Subject, of, queueScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { conflate, watchdog } from '../../../src/core/rx.js';

function scheduler() {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('watchdog (marbles)', () => {
  it('stays quiet while the source is active and fires after each silent period', () => {
    const ts = scheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('a 4ms b 4ms c 20ms |');
      // c at frame 10; silent from then on: fires at 20 and again at 30, completes with the source at 31.
      expectObservable(source.pipe(watchdog(10, ts))).toBe('20ms x 9ms y 0ms |', { x: 10, y: 10 });
    });
  });

  it('fires from subscription time when the source never emits', () => {
    const ts = scheduler();
    ts.run(({ cold, expectObservable }) => {
      expectObservable(cold('-').pipe(watchdog(5, ts)), '^ 12ms !').toBe('5ms x 4ms x', { x: 5 });
    });
  });
});

describe('conflate (marbles)', () => {
  it('delivers only the newest value of a burst, and every value when they are spread out', () => {
    const ts = scheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('(abc) 5ms d 5ms (ef) |');
      expectObservable(source.pipe(conflate(ts))).toBe('c 9ms d 5ms f 3ms |');
    });
  });

  it('completes only after the pending delivery; an error passes at once', () => {
    const ts = scheduler();
    ts.run(({ hot, expectObservable }) => {
      expectObservable(hot('(ab|)').pipe(conflate(ts))).toBe('(b|)');
      expectObservable(hot('(ab#)').pipe(conflate(ts))).toBe('#');
    });
  });

  it('drops a pending delivery when unsubscribed', () => {
    const ts = scheduler();
    ts.run(({ hot, expectObservable }) => {
      expectObservable(hot('a 5ms b').pipe(conflate(ts)), '^ 3ms !').toBe('a');
    });
  });

  it('without a scheduler, delivers the newest value of a synchronous burst in one microtask, and nothing after unsubscribe', async () => {
    const source = new Subject<number>();
    const seen: number[] = [];
    const sub = source.pipe(conflate()).subscribe((v) => seen.push(v));
    source.next(1);
    source.next(2);
    expect(seen).toEqual([]);
    await Promise.resolve();
    expect(seen).toEqual([2]);
    source.next(3);
    sub.unsubscribe();
    await Promise.resolve();
    expect(seen).toEqual([2]);
  });

  it('delivers every value with a scheduler that runs actions synchronously', () => {
    const seen: number[] = [];
    let done = false;
    of(1, 2, 3)
      .pipe(conflate(queueScheduler))
      .subscribe({ next: (v) => seen.push(v), complete: () => (done = true) });
    expect(seen).toEqual([1, 2, 3]);
    expect(done).toBe(true);
  });
});
