// Replay time: one clock, one RxJS scheduler and one queue of timed work, all on a virtual timeline that moves only when
// the replay pops the next item. Invariants: time never goes backwards; items due at the same time run in the order
// they were queued (ties broken by a sequence number), so a replay is deterministic.

import { Subscription, type SchedulerAction } from 'rxjs';
import type { SimTime } from './sim-time.js';

/** Something due at a time of the timeline; `drain` says what of the bot's pending work must run before time moves on (0: none). */
interface Entry {
  atNs: number;
  seq: number;
  run: () => void;
  drain: number;
  /** For scheduler actions: the action and the generation this entry was queued for (a rescheduled action drops older entries). */
  action: VirtualAction<unknown> | undefined;
  generation: number;
}

class VirtualAction<T> extends Subscription implements SchedulerAction<T> {
  generation = 0;
  state: T | undefined;

  constructor(
    private readonly time: VirtualTime,
    private readonly work: (this: SchedulerAction<T>, state?: T) => void,
  ) {
    super();
  }

  schedule(state?: T, delayMs = 0): Subscription {
    if (this.closed) return this;
    this.state = state;
    this.generation++;
    this.time.queueAction(this as VirtualAction<unknown>, delayMs);
    return this;
  }

  execute(): void {
    if (!this.closed) this.work.call(this, this.state);
  }
}

/**
 * The timeline: ns since `originNs` (a number, exact for 104 days), a Clock reading it and a SchedulerLike whose
 * actions are queued on it. Throws RangeError when asked to queue work in the past.
 */
export class VirtualTime implements SimTime {
  private heap: Entry[] = [];
  private seq = 0;
  /** ns since originNs */
  private t = 0;
  private readonly originMs: number;

  private readonly originSubMs: number;
  /** nowNs() of time `nowAt` (a bigint made once an instant, not once a call). */
  private nowBig: bigint;
  private nowAt = 0;
  /** The last rel() call's argument and answer (the events of one instant share their receive time). */
  private relIn: bigint;
  private relOut = 0;

  constructor(readonly originNs: bigint) {
    this.nowBig = originNs;
    this.relIn = originNs;
    this.originMs = Number(originNs / 1_000_000n);
    this.originSubMs = Number(originNs % 1_000_000n);
  }

  /** Now, ns since originNs. */
  get nowRelNs(): number {
    return this.t;
  }

  nowNs(): bigint {
    if (this.nowAt !== this.t) {
      this.nowBig = this.originNs + BigInt(this.t);
      this.nowAt = this.t;
    }
    return this.nowBig;
  }

  nowMs(): number {
    return this.originMs + Math.floor((this.originSubMs + this.t) / 1e6);
  }

  /** The scheduler's time, ms (fractional). */
  now(): number {
    return this.originMs + (this.originSubMs + this.t) / 1e6;
  }

  /** ns since originNs of an epoch-ns time. */
  rel(epochNs: bigint): number {
    if (epochNs !== this.relIn) {
      this.relOut = Number(epochNs - this.originNs);
      this.relIn = epochNs;
    }
    return this.relOut;
  }

  /** ns since originNs of an epoch-ms time (no bigint: the replay converts one a recorded event). */
  relMs(epochMs: number): number {
    return (epochMs - this.originMs) * 1e6 - this.originSubMs;
  }

  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delayMs = 0, state?: T): Subscription {
    return new VirtualAction<T>(this, work).schedule(state, delayMs);
  }

  queueAction(action: VirtualAction<unknown>, delayMs: number): void {
    const atNs = this.t + Math.max(0, Math.round(delayMs * 1e6));
    this.push({ atNs, seq: this.seq++, run: () => action.execute(), drain: 1, action, generation: action.generation });
  }

  /** Queues `run` at `atNs` (ns since origin, not before now); `drain` is handed back by runNext when it ran. */
  at(atNs: number, run: () => void, drain: number): void {
    if (atNs < this.t) throw new RangeError(`cannot queue work at ${atNs} ns, before now (${this.t} ns)`);
    this.push({ atNs, seq: this.seq++, run, drain, action: undefined, generation: 0 });
  }

  /** Time of the next live item, or undefined when none is queued. */
  nextAtNs(): number | undefined {
    this.dropStale();
    return this.heap[0]?.atNs;
  }

  /** Runs the next item (moving time to it) when it is due by `untilNs`; returns its drain, or -1 when none was due. */
  runNext(untilNs: number): number {
    this.dropStale();
    const top = this.heap[0];
    if (top === undefined || top.atNs > untilNs) return -1;
    this.pop();
    if (top.atNs > this.t) this.t = top.atNs;
    top.run();
    return top.drain;
  }

  /** Moves time to `atNs` (ns since origin) when that is later than now. */
  advanceTo(atNs: number): void {
    if (atNs > this.t) this.t = atNs;
  }

  /** Live items queued. */
  get size(): number {
    return this.heap.length;
  }

  private dropStale(): void {
    for (let top = this.heap[0]; top !== undefined; top = this.heap[0]) {
      const a = top.action;
      if (a === undefined || (!a.closed && a.generation === top.generation)) return;
      this.pop();
    }
  }

  private push(e: Entry): void {
    const h = this.heap;
    let i = h.length;
    h.push(e);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(e, h[p]!)) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = e;
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    let i = 0;
    const n = h.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && before(h[r]!, h[l]!) ? r : l;
      if (!before(h[c]!, last)) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = last;
  }
}

function before(a: Entry, b: Entry): boolean {
  return a.atNs < b.atNs || (a.atNs === b.atNs && a.seq < b.seq);
}
