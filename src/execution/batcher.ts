// Batcher: commands approved by risk, collected for one tick, packed (cancels first, ≤ maxItems each), signed once (trusted encode).
// Invariants: one monotonic nonce per batch; sent exactly once, never re-signed; item k is command k; specs arrive checked (specProblem).

import type { Clock } from '../core/clock.js';
import type { Network } from '../core/types.js';
import type { DialectCodec, SignMode } from '../protocol/dialect.js';
import type { OrderItem } from '../protocol/orders.js';
import type { MessageSigner } from '../protocol/presigner.js';
import { signTrustedRequest, type SignedRequest } from '../protocol/sign.js';
import type { Submitter, SubmitOutcome } from '../venue/port.js';
import type { Timers } from './ports.js';
import { realTimers } from './ports.js';
import type { TrackedOrder } from './tracker.js';

export interface Command {
  /** `place` sends `order`; `cancel` cancels it (it must have an id). */
  readonly kind: 'place' | 'cancel';
  readonly order: TrackedOrder;
  /** Clock ns at which the data the intent was computed from arrived (its DataStamp.arrivalNs: tick-to-trade start), when known. */
  readonly arrivalNs: bigint | undefined;
}

export interface Batch {
  readonly commands: readonly Command[];
  readonly nonce: bigint;
  readonly request: SignedRequest;
  /** Clock ns when it was handed to the submitter. */
  readonly sentNs: bigint;
}

/** Where a batch's life is reported (the engine). */
export interface BatchSink {
  /** Last look at a command when its batch is packed; false drops it (the sink reports why). */
  admit(command: Command): boolean;
  /** Signed and handed to the submitter (the predicted ids are readable now). */
  signed(batch: Batch): void;
  /** The request's bytes reached the socket (only when the submitter reports it). */
  written(batch: Batch): void;
  settled(batch: Batch, outcome: SubmitOutcome): void;
  /** The command could not be encoded or signed (bad field); nothing was sent for it. */
  signFailed(command: Command, error: Error): void;
}

/**
 * When a tick's commands are flushed: `microtask` (default; as soon as the current task ends, the lowest latency),
 * `immediate` (after the event loop's pending I/O callbacks, so commands from several frames share a batch), or a
 * fixed delay in ms.
 */
export type FlushMode = 'microtask' | 'immediate' | { readonly delayMs: number };

export interface BatcherOptions {
  codec: DialectCodec;
  key: MessageSigner;
  /** Base58 public key of the traded account. */
  account: string;
  network: Network;
  mode: SignMode;
  nonces: { next(): bigint };
  submitter: Submitter;
  clock: Clock;
  sink: BatchSink;
  /** Items per signed batch. Default 100 (the venue's default limit). */
  maxItems?: number;
  flush?: FlushMode;
  timers?: Timers;
}

/** The item placing `order` (the first order of a basket places the whole basket). */
function placeItem(order: TrackedOrder): OrderItem {
  const b = order.basket;
  return b === undefined ? { kind: 'place', spec: order.spec, cloid: order.cloid } : { kind: 'basket', symbol: b.symbol, whenMark: b.whenMark, specs: b.specs };
}

export class Batcher {
  private queue: Command[] = [];
  private scheduled = false;
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private readonly maxItems: number;
  private readonly flushMode: FlushMode;
  private readonly timers: Timers;
  private readonly flushBound = () => this.flush();
  /** The signer of rehearse(): the key's MessageSigner.warm under its public key (undefined when the key has none). */
  private readonly warmKey: MessageSigner | undefined;
  private lastItems: readonly OrderItem[] | undefined;
  private lastNonce = 0n;

  constructor(private readonly opts: BatcherOptions) {
    this.maxItems = opts.maxItems ?? 100;
    if (!Number.isInteger(this.maxItems) || this.maxItems < 1) throw new RangeError(`maxItems must be a positive integer, got ${this.maxItems}`);
    this.flushMode = opts.flush ?? 'microtask';
    this.timers = opts.timers ?? realTimers;
    const { key } = opts;
    this.warmKey = key.warm && { publicKey: key.publicKey, sign: (message) => key.warm!(message) };
  }

  /** Commands waiting for the flush. */
  get queued(): number {
    return this.queue.length;
  }

  /** Batches submitted and not yet answered. */
  get pending(): number {
    return this.inFlight;
  }

  enqueue(command: Command): void {
    this.queue.push(command);
    if (this.scheduled) return;
    this.scheduled = true;
    const mode = this.flushMode;
    if (mode === 'microtask') queueMicrotask(this.flushBound);
    else if (mode === 'immediate') setImmediate(this.flushBound);
    else this.timers.set(this.flushBound, mode.delayMs);
  }

  /** Takes a not yet sent place of `order` out of the queue; true when it was there. */
  withdraw(order: TrackedOrder): boolean {
    const i = this.queue.findIndex((c) => c.order === order && c.kind === 'place');
    if (i < 0) return false;
    this.queue.splice(i, 1);
    return true;
  }

  /** Packs and sends everything queued now (also what the scheduled flush does). */
  flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    const queued = this.queue;
    this.queue = [];
    const admitted: Command[] = [];
    for (const c of queued) if (c.kind === 'cancel' && this.opts.sink.admit(c)) admitted.push(c);
    for (const c of queued) if (c.kind === 'place' && this.opts.sink.admit(c)) admitted.push(c);
    for (let i = 0; i < admitted.length; i += this.maxItems) this.send(admitted.slice(i, i + this.maxItems));
    this.settleIdle();
  }

  /** Resolves when nothing is queued and every batch was answered. */
  whenIdle(): Promise<void> {
    if (this.queue.length === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private send(commands: Command[]): void {
    const { sink, submitter, clock } = this.opts;
    let request: SignedRequest;
    let nonce: bigint;
    try {
      nonce = this.opts.nonces.next();
      request = this.sign(commands, nonce);
    } catch (e) {
      if (commands.length > 1) for (const c of commands) this.send([c]);
      else sink.signFailed(commands[0]!, e as Error);
      return;
    }
    const batch: Batch = { commands, nonce, request, sentNs: clock.nowNs() };
    this.inFlight++;
    const answer = submitter.submit(request, { onWritten: () => sink.written(batch) });
    sink.signed(batch);
    answer
      .catch((e: unknown): SubmitOutcome => ({ outcome: 'unknown', reason: `submit threw: ${(e as Error)?.message ?? String(e)}`, request }))
      .then((outcome) => {
        this.inFlight--;
        try {
          sink.settled(batch, outcome);
        } finally {
          this.settleIdle();
        }
      });
  }

  /**
   * A dry run of the last batch's way to the wire: its items encoded again and signed by the key's throwaway warm key;
   * the request is returned and sent nowhere. Nothing is queued, sent or counted; no nonce is drawn. Undefined before
   * the first batch or for a key without a warm path.
   */
  rehearse(): SignedRequest | undefined {
    if (this.lastItems === undefined || this.warmKey === undefined) return undefined;
    return this.signItems(this.lastItems, this.lastNonce, this.warmKey);
  }

  private sign(commands: readonly Command[], nonce: bigint): SignedRequest {
    const items: OrderItem[] = commands.map((c) =>
      c.kind === 'place' ? placeItem(c.order) : { kind: 'cancel', symbol: c.order.spec.symbol, orderId: c.order.cancelId! },
    );
    this.lastItems = items;
    this.lastNonce = nonce;
    return this.signItems(items, nonce, this.opts.key);
  }

  private signItems(items: readonly OrderItem[], nonce: bigint, key: MessageSigner): SignedRequest {
    const { codec, account, network, mode } = this.opts;
    return signTrustedRequest(codec, key, { actions: codec.orderActions(items), account, signer: key.publicKey, nonce, network, mode });
  }

  private settleIdle(): void {
    if (this.queue.length > 0 || this.inFlight > 0 || this.idleWaiters.length === 0) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
