// The frames a WebSocket connection received and has not routed yet, oldest first, in parallel arrays read from a head
// index: a backlog of 100,000 frames allocates no object per frame and shifts in O(1).
// Invariants: slots before the head hold nothing (routed frames are released at once); empty resets every array.

import type { RawData } from 'ws';

export class FrameQueue {
  private readonly frames: (RawData | undefined)[] = [];
  private readonly binary: boolean[] = [];
  private readonly arrivals: bigint[] = [];
  private head = 0;

  get length(): number {
    return this.frames.length - this.head;
  }

  push(data: RawData, isBinary: boolean, arrivalNs: bigint): void {
    this.frames.push(data);
    this.binary.push(isBinary);
    this.arrivals.push(arrivalNs);
  }

  /** The oldest frame's bytes (the queue must not be empty). */
  data(): RawData {
    return this.frames[this.head]!;
  }

  isBinary(): boolean {
    return this.binary[this.head]!;
  }

  /** When the oldest frame arrived, clock ns. */
  arrivalNs(): bigint {
    return this.arrivals[this.head]!;
  }

  /** Drops the oldest frame. */
  shift(): void {
    this.frames[this.head++] = undefined;
    if (this.head === this.frames.length) this.clear();
  }

  clear(): void {
    this.frames.length = 0;
    this.binary.length = 0;
    this.arrivals.length = 0;
    this.head = 0;
  }
}
