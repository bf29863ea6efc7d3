// One WebSocket connection to the venue: (re)subscribe held topics, per-topic confirmation, backoff with jitter,
// data-age (freshness) of every topic, staleness and idle watchdogs.
// Invariants: unusable frames are counted and logged once per kind, never thrown into sinks; at most 100 topics held;
// a topic is fresh only while its connection is open, heard from within silenceMs, and the topic is confirmed;
// frames are routed in arrival order, none dropped or merged, in slices of at most SLICE_MS between event-loop turns,
// and none while a control command is being read (core/command-hold.ts).

import {
  BehaviorSubject,
  asyncScheduler,
  distinctUntilChanged,
  type Observable,
  type SchedulerAction,
  type SchedulerLike,
  type Subscription as RxSubscription,
} from 'rxjs';
import { performance } from 'node:perf_hooks';
import { WebSocket, type RawData } from 'ws';
import { systemClock, type Clock } from '../core/clock.js';
import { dataHeld } from '../core/command-hold.js';
import { parseJson } from '../core/json.js';
import { PerpbotError, ValidationError } from '../core/errors.js';
import type { Dialect } from '../core/types.js';
import { inboundCodecFor, type InboundCodec } from '../protocol/inbound.js';
import { MAX_SUBSCRIPTIONS, topicsOf, type StreamMessage, type Subscription } from '../protocol/v1/stream.js';
import { backoffDelayMs, type BackoffOptions } from '../core/backoff.js';
import { FrameErrors, type FrameErrorKind } from './frame-errors.js';
import { FrameQueue } from './frame-queue.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { Watchdog } from '../core/rx.js';

export type ConnectionState = 'connecting' | 'open' | 'backingOff' | 'closed';
export type MessageSink = (message: StreamMessage) => void;
/** Told once when the venue refused the topic; the connection no longer holds it. */
export type RefusalSink = (error: SubscriptionRefusedError) => void;
/** Told whenever a held topic turns fresh or stale (with why). */
export type HealthSink = (topic: string, fresh: boolean, reason: string) => void;

/** The venue refused a topic (answered an error, or left it out of its confirmation). */
export class SubscriptionRefusedError extends PerpbotError {
  constructor(
    readonly topic: string,
    reason: string,
  ) {
    super('SUBSCRIPTION_REFUSED', `the venue refused topic ${topic}: ${reason}`);
  }
}

export interface WsConnectionOptions {
  /** WebSocket URL of the venue (the local venue serves `/ws`). */
  url: string;
  /** Wire dialect of the venue's messages; either way sinks receive v1-model messages. Default `v1`. */
  dialect?: Dialect;
  /** Timers of backoff, staleness and idle detection. Default: asyncScheduler. */
  scheduler?: SchedulerLike;
  /** [0, 1) source of the backoff jitter. Default Math.random. */
  random?: () => number;
  /** Reconnect backoff. Default 1 s doubling to 30 s (venue-protocol §9.1). */
  backoff?: BackoffOptions;
  /**
   * Silence (ms) of a topic the venue publishes periodically after which it is stale and subscribed again;
   * undefined = none (the topic is judged by its connection's silence only). Default: see defaultStaleAfterMs.
   */
  staleAfterMs?: (topic: string) => number | undefined;
  /**
   * Nothing at all (data, pong) heard for this long (ms) makes every topic of the connection stale. A WebSocket
   * ping is sent every silenceMs / 3 while open, so a quiet topic on a live connection stays fresh. Default 3 000.
   */
  silenceMs?: number;
  /** No frame at all (data, ping or pong) for this long (ms) drops and reopens the connection. Default 10 000. */
  idleTimeoutMs?: number;
  /** Opening handshake limit, ms. Default 10 000. */
  handshakeTimeoutMs?: number;
  /** Stamps each frame's arrival (frameArrivalNs). Default: the system clock. */
  clock?: Pick<Clock, 'nowNs'>;
  logger?: Logger;
  /** Told of every topic's freshness change. */
  onHealth?: HealthSink;
}

/** Default of WsConnectionOptions.silenceMs. */
const DEFAULT_SILENCE_MS = 3_000;

/**
 * Longest run of frame routing before the event loop gets a turn, ms of performance.now() (the event loop's real time,
 * whatever clock stamps the frames). The ws library hands over every frame of
 * a socket read at once (up to 32 reads of 64 KiB): a backlog would be routed before any timer or other socket (a kill,
 * a cancel) is served. Past this, frames wait with the socket paused and are routed in slices of this length, one per
 * event-loop turn (setImmediate), each keeping its arrival time; market data lags while commands go first.
 */
const SLICE_MS = 0.5;

/**
 * Staleness defaults of the topics with a fixed cadence (ticker 200 ms, l2snapshot 200 ms: `silenceMs`;
 * frontendContext 2 s: 5 s). The other topics (l2delta, trades, account, risk) speak only on change; the
 * connection's pings judge them.
 */
export function defaultStaleAfterMs(topic: string, silenceMs = DEFAULT_SILENCE_MS): number | undefined {
  if (topic.startsWith('ticker.') || topic.startsWith('l2snapshot.')) return silenceMs;
  if (topic === 'frontendContext') return Math.max(silenceMs, 5_000);
  return undefined;
}

export interface ConnectionStats {
  /** Valid messages received. */
  messages: number;
  /** Successful opens (the first one included). */
  opens: number;
  /** Topics subscribed again because they went silent. */
  staleResubscribes: number;
  /** Connections dropped because nothing at all arrived for idleTimeoutMs. */
  idleDrops: number;
  /** Topics the venue refused. */
  refusedTopics: number;
  /** Times every topic of a connection went stale because nothing at all was heard for silenceMs. */
  silences: number;
  /** Unusable frames by kind. */
  invalidFrames: Readonly<Record<FrameErrorKind, number>>;
}

interface TopicEntry {
  readonly subscription: Subscription;
  readonly sink: MessageSink;
  readonly refused: RefusalSink | undefined;
  readonly dog: Watchdog | undefined;
  /** Text of the last frame routed to the topic (warm() decodes it again). */
  lastFrame: string | undefined;
  /** Confirmed by the venue since the last (re)subscribe and not silent on its own cadence. */
  live: boolean;
  /** What was last reported (onHealth). */
  fresh: boolean;
}

/** A request awaiting its answer: the venue answers subscribe and unsubscribe messages in order. */
type Pending = { readonly topics: readonly string[] } | { readonly topics: undefined };

/** What one frame stands for in the model (see InboundCodec.decodeStream). */
export type Decoded = StreamMessage | readonly StreamMessage[];

function isList(decoded: Decoded): decoded is readonly StreamMessage[] {
  return Array.isArray(decoded);
}

/** The single topic a subscription object opens; throws RangeError for a batched account subscription. */
export function topicOf(subscription: Subscription): string {
  const topics = topicsOf(subscription);
  if (topics.length !== 1) throw new RangeError('subscribe one account per subscription object');
  return topics[0]!;
}

export class WsConnection {
  private readonly stateSubject = new BehaviorSubject<ConnectionState>('connecting');
  /** connecting → open → backingOff → connecting ...; `closed` after close(). Replays the current state. */
  readonly state$: Observable<ConnectionState> = this.stateSubject.pipe(distinctUntilChanged());
  private readonly topics = new Map<string, TopicEntry>();
  private readonly scheduler: SchedulerLike;
  private readonly logger: Logger;
  private readonly errors: FrameErrors;
  private readonly idle: Watchdog;
  private readonly inbound: InboundCodec;
  private readonly silence: Watchdog;
  private readonly counters = { messages: 0, opens: 0, staleResubscribes: 0, idleDrops: 0, refusedTopics: 0, silences: 0 };
  private readonly awaiting: Pending[] = [];
  /** Topics subscribed while open, sent together at the end of the tick. */
  private unsent: string[] = [];
  private readonly silenceMs: number;
  private pinger: RxSubscription | undefined;
  /** Nothing heard for silenceMs (cleared by the next frame or pong). */
  private silent = false;
  private ws: WebSocket | undefined;
  private attempt = 0;
  private reconnect: RxSubscription | undefined;
  private closed = false;
  private readonly clock: Pick<Clock, 'nowNs'>;
  private routingNs: bigint | undefined;
  /** Received and not yet routed, oldest first; not empty only while the socket is paused (at most about one read). */
  private readonly waiting = new FrameQueue();
  /** The close that followed the waiting frames, told once they are routed (no frame follows a close). */
  private closeAfterWaiting: WebSocket | undefined;
  /** End (performance.now() ms) of the slice open now; undefined when none is (a nextSlice is scheduled exactly while one is). */
  private sliceEndMs: number | undefined;
  /** The scheduler's now when the slice open now began: the watchdogs' time of every frame routed in it (one read a slice). */
  private sliceNowMs = 0;
  private readonly nextSliceBound = () => this.nextSlice();

  constructor(private readonly opts: WsConnectionOptions) {
    this.scheduler = opts.scheduler ?? asyncScheduler;
    this.clock = opts.clock ?? systemClock();
    this.logger = opts.logger ?? silentLogger;
    this.errors = new FrameErrors(this.logger, opts.url);
    this.inbound = inboundCodecFor(opts.dialect ?? 'v1');
    this.idle = new Watchdog(opts.idleTimeoutMs ?? 10_000, this.scheduler, () => this.dropIdle());
    this.silenceMs = opts.silenceMs ?? DEFAULT_SILENCE_MS;
    if (!(this.silenceMs > 0)) throw new RangeError(`silenceMs must be > 0, got ${this.silenceMs}`);
    this.silence = new Watchdog(this.silenceMs, this.scheduler, (ms) => this.onSilence(ms));
    this.connect();
  }

  get state(): ConnectionState {
    return this.stateSubject.value;
  }

  /** Clock ns at which the frame being routed now arrived (read it from a sink); undefined outside routing. */
  get frameArrivalNs(): bigint | undefined {
    return this.routingNs;
  }

  get topicCount(): number {
    return this.topics.size;
  }

  get stats(): ConnectionStats {
    return { ...this.counters, invalidFrames: { ...this.errors.counts } };
  }

  /**
   * Holds `subscription`'s topic and routes its messages to `sink`; `refused` hears if the venue refuses it. Topics
   * subscribed in one tick travel in one subscribe message. Returns the topic. Throws RangeError when full or held.
   */
  subscribe(subscription: Subscription, sink: MessageSink, refused?: RefusalSink): string {
    const topic = topicOf(subscription);
    if (this.topics.has(topic)) throw new RangeError(`topic ${topic} is already held`);
    if (this.topics.size >= MAX_SUBSCRIPTIONS) throw new RangeError(`a connection holds at most ${MAX_SUBSCRIPTIONS} topics`);
    const staleMs = this.opts.staleAfterMs ? this.opts.staleAfterMs(topic) : defaultStaleAfterMs(topic, this.silenceMs);
    const dog = staleMs === undefined ? undefined : new Watchdog(staleMs, this.scheduler, () => this.onStale(topic));
    this.topics.set(topic, { subscription, sink, refused, dog, lastFrame: undefined, live: false, fresh: false });
    this.opts.onHealth?.(topic, false, 'subscribing');
    if (this.state === 'open') {
      this.unsent.push(topic);
      if (this.unsent.length === 1) queueMicrotask(() => this.sendUnsent());
    }
    return topic;
  }

  /** Stops routing `topic` and unsubscribes it on the venue. */
  unsubscribe(topic: string): void {
    const entry = this.topics.get(topic);
    if (!entry) return;
    entry.dog?.stop();
    this.topics.delete(topic);
    if (this.state !== 'open') return;
    const i = this.unsent.indexOf(topic);
    if (i >= 0) this.unsent.splice(i, 1);
    else this.sendUnsubscribe(topic);
  }

  /**
   * Parses and decodes the last frame routed to `topic` again, routing and counting nothing (keep-warm rehearsals).
   * Returns what it decoded to; undefined without a frame.
   */
  warm(topic: string): Decoded | undefined {
    const text = this.topics.get(topic)?.lastFrame;
    return text === undefined ? undefined : this.parse(text);
  }

  /** Unsubscribes and subscribes `topic` again (the venue then sends its snapshot first). */
  resubscribe(topic: string): void {
    if (!this.topics.has(topic) || this.state !== 'open' || this.unsent.includes(topic)) return;
    this.sendUnsubscribe(topic);
    this.sendSubscribe([topic]);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.waiting.clear();
    this.closeAfterWaiting = undefined;
    this.reconnect?.unsubscribe();
    this.stopWatching();
    this.ws?.terminate();
    this.ws = undefined;
    this.stateSubject.next('closed');
    this.stateSubject.complete();
  }

  private connect(): void {
    this.stateSubject.next('connecting');
    // No permessage-deflate: ws inflates every compressed frame on zlib's thread pool, a round trip before the message.
    const ws = new WebSocket(this.opts.url, { handshakeTimeout: this.opts.handshakeTimeoutMs ?? 10_000, perMessageDeflate: false });
    this.ws = ws;
    ws.on('open', () => this.onOpen(ws));
    ws.on('message', (data, isBinary) => {
      if (ws !== this.ws) return;
      const arrivalNs = this.clock.nowNs();
      if (this.waiting.length === 0 && this.inSlice()) this.deliver(data, isBinary, arrivalNs);
      else this.wait(ws, data, isBinary, arrivalNs);
    });
    ws.on('ping', () => this.idle.touch());
    ws.on('pong', () => this.heard());
    ws.on('error', (e) => this.logger.info({ url: this.opts.url, error: e.message }, 'websocket error'));
    ws.on('close', () => (this.waiting.length === 0 ? this.onClose(ws) : (this.closeAfterWaiting = ws)));
  }

  /** Whether a frame arriving now may be routed at once: the slice open now (or opened by it) has time left. */
  private inSlice(): boolean {
    const nowMs = performance.now();
    if (this.sliceEndMs !== undefined) return nowMs <= this.sliceEndMs && !dataHeld();
    this.sliceEndMs = nowMs + SLICE_MS;
    this.sliceNowMs = this.scheduler.now();
    setImmediate(this.nextSliceBound);
    return !dataHeld();
  }

  private wait(ws: WebSocket, data: RawData, isBinary: boolean, arrivalNs: bigint): void {
    this.waiting.push(data, isBinary, arrivalNs);
    if (!ws.isPaused) ws.pause();
  }

  /** The event loop had its turn: routes waiting frames for one slice; once none waits, reads the socket again. */
  private nextSlice(): void {
    const waiting = this.waiting;
    if (waiting.length === 0) {
      this.sliceEndMs = undefined;
      return;
    }
    setImmediate(this.nextSliceBound);
    if (dataHeld()) return;
    const endMs = performance.now() + SLICE_MS;
    this.sliceEndMs = endMs;
    this.sliceNowMs = this.scheduler.now();
    do {
      const data = waiting.data();
      const isBinary = waiting.isBinary();
      const arrivalNs = waiting.arrivalNs();
      waiting.shift();
      this.deliver(data, isBinary, arrivalNs);
    } while (waiting.length > 0 && performance.now() <= endMs && !dataHeld());
    if (waiting.length > 0) return;
    const closed = this.closeAfterWaiting;
    this.closeAfterWaiting = undefined;
    if (closed !== undefined) this.onClose(closed);
    else this.ws?.resume();
  }

  private deliver(data: RawData, isBinary: boolean, arrivalNs: bigint): void {
    this.routingNs = arrivalNs;
    try {
      this.onFrame(data, isBinary);
    } finally {
      this.routingNs = undefined;
    }
  }

  private onOpen(ws: WebSocket): void {
    if (ws !== this.ws) return;
    this.attempt = 0;
    this.counters.opens++;
    this.stateSubject.next('open');
    this.idle.start();
    this.silent = false;
    this.silence.start();
    const pingMs = Math.max(1, Math.floor(this.silenceMs / 3));
    this.pinger = this.scheduler.schedule(
      function (this: SchedulerAction<WsConnection>, conn) {
        conn!.ping(ws);
        this.schedule(conn, pingMs);
      },
      pingMs,
      this,
    );
    if (this.topics.size > 0) this.sendSubscribe([...this.topics.keys()]);
  }

  private ping(ws: WebSocket): void {
    if (ws === this.ws && ws.readyState === WebSocket.OPEN) ws.ping();
  }

  private onClose(ws: WebSocket): void {
    if (ws !== this.ws) return;
    this.ws = undefined;
    this.stopWatching();
    this.awaiting.length = 0;
    this.unsent = [];
    // The state first: the topics' stale reason names it.
    if (!this.closed) this.stateSubject.next('backingOff');
    for (const [topic, entry] of this.topics) {
      entry.live = false;
      this.report(topic, entry);
    }
    if (this.closed) return;
    const delayMs = backoffDelayMs(this.attempt++, this.opts.backoff, this.opts.random);
    this.logger.info({ url: this.opts.url, delayMs: Math.round(delayMs), topics: this.topics.size }, 'websocket closed; reconnecting');
    this.reconnect = this.scheduler.schedule(() => this.connect(), delayMs);
  }

  private stopWatching(): void {
    this.idle.stop();
    this.silence.stop();
    this.pinger?.unsubscribe();
    this.pinger = undefined;
    for (const entry of this.topics.values()) entry.dog?.stop();
  }

  /** Any frame or pong: the connection is alive. */
  private heard(nowMs: number = this.scheduler.now()): void {
    this.idle.touch(nowMs);
    this.silence.touch(nowMs);
    if (!this.silent) return;
    this.silent = false;
    this.logger.info({ url: this.opts.url }, 'the venue is heard again');
    for (const [topic, entry] of this.topics) this.report(topic, entry);
  }

  private onFrame(data: RawData, isBinary: boolean): void {
    // The idle, silence and topic watchdogs (all on this.scheduler) take the slice's time: at most SLICE_MS old.
    const nowMs = this.sliceNowMs;
    this.heard(nowMs);
    if (isBinary) return this.errors.record('binary', 'binary frame');
    const text = data.toString();
    const decoded = this.parse(text);
    if (decoded === undefined) return;
    this.counters.messages++;
    if (isList(decoded)) for (const m of decoded) this.route(m, text, nowMs);
    else this.route(decoded, text, nowMs);
  }

  private route(message: StreamMessage, text: string, nowMs: number): void {
    switch (message.type) {
      case 'subscriptionResponse':
        return this.confirmed(message.topics);
      case 'unsubscribeResponse':
        this.awaiting.shift();
        return;
      case 'error':
        return this.venueError(message.error.message);
      default: {
        const entry = this.topics.get(message.topic);
        if (!entry) return this.errors.record('unrouted', message.topic);
        entry.dog?.touch(nowMs);
        entry.lastFrame = text;
        if (!entry.live) {
          entry.live = true;
          this.report(message.topic, entry);
        }
        entry.sink(message);
      }
    }
  }

  /**
   * One exact parse per frame (parseJson: plain JSON.parse unless the text holds a 16+ digit run, whose integers
   * beyond 2^53, e.g. ns timestamps, reach the u64 fields as decimal strings). Undefined for an unusable frame (counted).
   */
  private parse(text: string): Decoded | undefined {
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (e) {
      this.errors.record('malformed', (e as Error).message);
      return undefined;
    }
    try {
      return this.inbound.decodeStream(value);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      this.errors.record('schema', e.message);
      return undefined;
    }
  }

  /** The answer to the oldest subscribe: each topic it asked for and the venue left out is refused. */
  private confirmed(topics: readonly string[]): void {
    const asked = this.awaiting.shift()?.topics;
    if (asked === undefined) return;
    for (const topic of asked) {
      const entry = this.topics.get(topic);
      if (!entry) continue;
      if (!topics.includes(topic)) {
        this.refuse(topic, entry, 'left out of the subscription confirmation');
        continue;
      }
      entry.live = true;
      this.report(topic, entry);
    }
  }

  /**
   * An error answers the oldest request. A subscribe of several topics is sent again one topic per message (the
   * venue may refuse a whole message for one bad topic); a subscribe of one topic is refused with the error.
   */
  private venueError(text: string): void {
    const asked = this.awaiting.shift()?.topics;
    if (asked === undefined) return this.errors.record('venueError', text);
    const held = asked.filter((t) => this.topics.has(t));
    if (held.length === 1) return this.refuse(held[0]!, this.topics.get(held[0]!)!, text);
    for (const topic of held) this.sendSubscribe([topic]);
  }

  private refuse(topic: string, entry: TopicEntry, reason: string): void {
    this.counters.refusedTopics++;
    entry.dog?.stop();
    this.topics.delete(topic);
    const error = new SubscriptionRefusedError(topic, reason);
    (this.logger.error ?? this.logger.warn).call(this.logger, { url: this.opts.url, topic, reason }, 'the venue refused a subscription');
    this.opts.onHealth?.(topic, false, `refused: ${reason}`);
    entry.refused?.(error);
  }

  private sendUnsent(): void {
    const topics = this.unsent.filter((t) => this.topics.has(t));
    this.unsent = [];
    if (topics.length > 0 && this.state === 'open') this.sendSubscribe(topics);
  }

  private sendSubscribe(topics: string[]): void {
    const subscription = topics.map((t) => {
      const entry = this.topics.get(t)!;
      entry.live = false;
      this.report(t, entry);
      entry.dog?.start();
      return entry.subscription;
    });
    this.awaiting.push({ topics });
    this.send({ method: 'subscribe', subscription });
  }

  private sendUnsubscribe(topic: string): void {
    this.awaiting.push({ topics: undefined });
    this.send({ method: 'unsubscribe', topic });
  }

  private send(message: object): void {
    this.ws?.send(JSON.stringify(message));
  }

  /** Tells onHealth when the topic's freshness changed. */
  private report(topic: string, entry: TopicEntry): void {
    const fresh = entry.live && !this.silent && this.state === 'open';
    if (fresh === entry.fresh) return;
    entry.fresh = fresh;
    this.opts.onHealth?.(topic, fresh, fresh ? 'fresh' : this.staleReason(entry));
  }

  private staleReason(entry: TopicEntry): string {
    if (this.state !== 'open') return `connection ${this.state}`;
    if (this.silent) return `nothing heard from the venue for ${this.silenceMs} ms`;
    return entry.dog && entry.lastFrame !== undefined ? 'no message on its cadence' : 'awaiting confirmation';
  }

  private onStale(topic: string): void {
    const entry = this.topics.get(topic);
    if (!entry) return;
    this.counters.staleResubscribes++;
    this.logger.info({ url: this.opts.url, topic }, 'topic went silent; subscribing again');
    entry.live = false;
    this.report(topic, entry);
    this.resubscribe(topic);
  }

  private onSilence(silentMs: number): void {
    if (this.silent) return;
    this.silent = true;
    this.counters.silences++;
    this.logger.warn({ url: this.opts.url, silentMs }, 'nothing heard from the venue (data or pong); its topics are stale');
    for (const [topic, entry] of this.topics) this.report(topic, entry);
  }

  private dropIdle(): void {
    this.counters.idleDrops++;
    this.logger.warn({ url: this.opts.url }, 'no frame from the venue within the idle timeout; reconnecting');
    this.ws?.terminate();
  }
}
