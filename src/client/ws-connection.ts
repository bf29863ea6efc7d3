// One WebSocket connection to the venue: (re)subscribe held topics, backoff with jitter, staleness and idle watchdogs.
// Invariants: unusable frames are counted and logged once per kind, never thrown into sinks; at most 100 topics held.

import { BehaviorSubject, asyncScheduler, distinctUntilChanged, type Observable, type SchedulerLike, type Subscription as RxSubscription } from 'rxjs';
import { WebSocket, type RawData } from 'ws';
import { systemClock, type Clock } from '../core/clock.js';
import { parseJson } from '../core/json.js';
import { ValidationError } from '../core/errors.js';
import type { Dialect } from '../core/types.js';
import { inboundCodecFor, type InboundCodec } from '../protocol/inbound.js';
import { MAX_SUBSCRIPTIONS, topicsOf, type StreamMessage, type Subscription } from '../protocol/v1/stream.js';
import { backoffDelayMs, type BackoffOptions } from './backoff.js';
import { FrameErrors, type FrameErrorKind } from './frame-errors.js';
import { silentLogger, type Logger } from './logger.js';
import { Watchdog } from './operators.js';

export type ConnectionState = 'connecting' | 'open' | 'backingOff' | 'closed';
export type MessageSink = (message: StreamMessage) => void;

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
  /** Silence (ms) after which a topic is subscribed again; undefined = never. Default: see defaultStaleAfterMs. */
  staleAfterMs?: (topic: string) => number | undefined;
  /** No frame at all (data or ping) for this long (ms) drops and reopens the connection. Default 45 000. */
  idleTimeoutMs?: number;
  /** Opening handshake limit, ms. Default 10 000. */
  handshakeTimeoutMs?: number;
  /** Stamps each frame's arrival (frameArrivalNs). Default: the system clock. */
  clock?: Pick<Clock, 'nowNs'>;
  logger?: Logger;
}

/** Staleness defaults: topics with a fixed cadence (ticker 200 ms, l2snapshot 200 ms, frontendContext 2 s). */
export function defaultStaleAfterMs(topic: string): number | undefined {
  if (topic.startsWith('ticker.') || topic.startsWith('l2snapshot.')) return 5_000;
  if (topic === 'frontendContext') return 10_000;
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
  /** Unusable frames by kind. */
  invalidFrames: Readonly<Record<FrameErrorKind, number>>;
}

interface TopicEntry {
  readonly subscription: Subscription;
  readonly sink: MessageSink;
  readonly dog: Watchdog | undefined;
  /** Text of the last frame routed to the topic (warm() decodes it again). */
  lastFrame: string | undefined;
}

/** What one frame stands for in the model (see InboundCodec.decodeStream). */
type Decoded = StreamMessage | readonly StreamMessage[];

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
  private readonly counters = { messages: 0, opens: 0, staleResubscribes: 0, idleDrops: 0 };
  private ws: WebSocket | undefined;
  private attempt = 0;
  private reconnect: RxSubscription | undefined;
  private closed = false;
  private readonly clock: Pick<Clock, 'nowNs'>;
  private routingNs: bigint | undefined;

  constructor(private readonly opts: WsConnectionOptions) {
    this.scheduler = opts.scheduler ?? asyncScheduler;
    this.clock = opts.clock ?? systemClock();
    this.logger = opts.logger ?? silentLogger;
    this.errors = new FrameErrors(this.logger, opts.url);
    this.inbound = inboundCodecFor(opts.dialect ?? 'v1');
    this.idle = new Watchdog(opts.idleTimeoutMs ?? 45_000, this.scheduler, () => this.dropIdle());
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

  /** Holds `subscription`'s topic and routes its messages to `sink`; returns the topic. Throws RangeError when full or held. */
  subscribe(subscription: Subscription, sink: MessageSink): string {
    const topic = topicOf(subscription);
    if (this.topics.has(topic)) throw new RangeError(`topic ${topic} is already held`);
    if (this.topics.size >= MAX_SUBSCRIPTIONS) throw new RangeError(`a connection holds at most ${MAX_SUBSCRIPTIONS} topics`);
    const staleMs = (this.opts.staleAfterMs ?? defaultStaleAfterMs)(topic);
    const dog = staleMs === undefined ? undefined : new Watchdog(staleMs, this.scheduler, () => this.onStale(topic));
    this.topics.set(topic, { subscription, sink, dog, lastFrame: undefined });
    if (this.state === 'open') this.sendSubscribe([topic]);
    return topic;
  }

  /** Stops routing `topic` and unsubscribes it on the venue. */
  unsubscribe(topic: string): void {
    const entry = this.topics.get(topic);
    if (!entry) return;
    entry.dog?.stop();
    this.topics.delete(topic);
    if (this.state === 'open') this.send({ method: 'unsubscribe', topic });
  }

  /** Parses and decodes the last frame routed to `topic` again, routing and counting nothing (keep-warm dry runs). */
  warm(topic: string): void {
    const text = this.topics.get(topic)?.lastFrame;
    if (text !== undefined) this.parse(text);
  }

  /** Unsubscribes and subscribes `topic` again (the venue then sends its snapshot first). */
  resubscribe(topic: string): void {
    if (!this.topics.has(topic) || this.state !== 'open') return;
    this.send({ method: 'unsubscribe', topic });
    this.sendSubscribe([topic]);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.reconnect?.unsubscribe();
    this.idle.stop();
    for (const entry of this.topics.values()) entry.dog?.stop();
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
      this.routingNs = this.clock.nowNs();
      try {
        this.onFrame(data, isBinary);
      } finally {
        this.routingNs = undefined;
      }
    });
    ws.on('ping', () => this.idle.touch());
    ws.on('error', (e) => this.logger.info({ url: this.opts.url, error: e.message }, 'websocket error'));
    ws.on('close', () => this.onClose(ws));
  }

  private onOpen(ws: WebSocket): void {
    if (ws !== this.ws) return;
    this.attempt = 0;
    this.counters.opens++;
    this.stateSubject.next('open');
    this.idle.start();
    if (this.topics.size > 0) this.sendSubscribe([...this.topics.keys()]);
  }

  private onClose(ws: WebSocket): void {
    if (ws !== this.ws) return;
    this.ws = undefined;
    this.idle.stop();
    for (const entry of this.topics.values()) entry.dog?.stop();
    if (this.closed) return;
    const delayMs = backoffDelayMs(this.attempt++, this.opts.backoff, this.opts.random);
    this.stateSubject.next('backingOff');
    this.logger.info({ url: this.opts.url, delayMs: Math.round(delayMs), topics: this.topics.size }, 'websocket closed; reconnecting');
    this.reconnect = this.scheduler.schedule(() => this.connect(), delayMs);
  }

  private onFrame(data: RawData, isBinary: boolean): void {
    this.idle.touch();
    if (isBinary) return this.errors.record('binary', 'binary frame');
    const text = data.toString();
    const decoded = this.parse(text);
    if (decoded === undefined) return;
    this.counters.messages++;
    if (isList(decoded)) for (const m of decoded) this.route(m, text);
    else this.route(decoded, text);
  }

  private route(message: StreamMessage, text: string): void {
    switch (message.type) {
      case 'subscriptionResponse':
      case 'unsubscribeResponse':
        return;
      case 'error':
        return this.errors.record('venueError', message.error.message);
      default: {
        const entry = this.topics.get(message.topic);
        if (!entry) return this.errors.record('unrouted', message.topic);
        entry.dog?.touch();
        entry.lastFrame = text;
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

  private sendSubscribe(topics: string[]): void {
    const subscription = topics.map((t) => {
      const entry = this.topics.get(t)!;
      entry.dog?.start();
      return entry.subscription;
    });
    this.send({ method: 'subscribe', subscription });
  }

  private send(message: object): void {
    this.ws?.send(JSON.stringify(message));
  }

  private onStale(topic: string): void {
    this.counters.staleResubscribes++;
    this.logger.info({ url: this.opts.url, topic }, 'topic went silent; subscribing again');
    this.resubscribe(topic);
  }

  private dropIdle(): void {
    this.counters.idleDrops++;
    this.logger.warn({ url: this.opts.url }, 'no frame from the venue within the idle timeout; reconnecting');
    this.ws?.terminate();
  }
}
