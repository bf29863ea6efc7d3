import { describe, expect, it } from 'vitest';
import { FrameQueue } from '../../../src/client/frame-queue.js';

describe('FrameQueue', () => {
  it('gives frames back oldest first with their flags and arrival times, across refills', () => {
    const q = new FrameQueue();
    const taken: [string, boolean, bigint][] = [];
    const take = () => {
      taken.push([q.data().toString(), q.isBinary(), q.arrivalNs()]);
      q.shift();
    };
    q.push(Buffer.from('a'), false, 1n);
    q.push(Buffer.from('b'), true, 2n);
    take();
    q.push(Buffer.from('c'), false, 3n);
    expect(q.length).toBe(2);
    take();
    take();
    expect(q.length).toBe(0);
    q.push(Buffer.from('d'), false, 4n);
    take();
    expect(taken).toEqual([
      ['a', false, 1n],
      ['b', true, 2n],
      ['c', false, 3n],
      ['d', false, 4n],
    ]);
  });

  it('releases a routed frame at once and empties on clear', () => {
    const q = new FrameQueue();
    q.push(Buffer.from('a'), false, 1n);
    q.push(Buffer.from('b'), false, 2n);
    q.shift();
    expect((q as unknown as { frames: unknown[] }).frames[0]).toBeUndefined();
    q.clear();
    expect(q.length).toBe(0);
    q.push(Buffer.from('c'), false, 3n);
    expect(q.data().toString()).toBe('c');
  });
});
