// WebSocket side of the local venue: subscribe/unsubscribe by topic, fan-out, keepalive, limits.
// Invariants: per topic, messages reach each subscriber in publish order, a snapshot first;
// a slow or silent client is dropped rather than slowing the venue; garbage never throws.

import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { stringifyJson } from '../../core/json.js';

export interface HubOptions {
  /** Server ping interval (ms). Default 30 000. */
  pingIntervalMs?: number;
  /** A client that has not answered a ping within this time (ms) is dropped. Default 10 000. */
  pongTimeoutMs?: number;
  /** Subscriptions per connection. Default 100. */
  maxSubscriptions?: number;
  /** A client whose unsent buffer exceeds this many bytes (checked after every send) is disconnected. Default 1 MiB. */
  maxBufferedBytes?: number;
  /** Inbound frames larger than this are refused. Default 64 KiB. */
  maxFrameBytes?: number;
}

/**
 * Resolves subscription objects to stream keys and provides each key's initial messages. A key is
 * a topic (`ticker.BTC-USD`), or a topic with a variant after `#` (`l2snapshot.BTC-USD#20`) when
 * subscribers of one topic need different payloads; messages always name the bare topic.
 */
export interface TopicSource {
  /** Stream keys for one subscription object, or an error message for an invalid one. */
  resolve(subscription: unknown): { topics: string[] } | { error: string };
  /** Messages (already serialized) a new subscriber of `key` receives first, in order. */
  initial(key: string): string[];
}

/** The topic a stream key publishes under (the key without its `#variant`). */
export function topicOfKey(key: string): string {
  const hash = key.indexOf('#');
  return hash < 0 ? key : key.slice(0, hash);
}

export interface HubStats {
  connections: number;
  garbageFrames: number;
  slowDisconnects: number;
  pongTimeouts: number;
}

interface Client {
  readonly ws: WebSocket;
  readonly topics: Set<string>;
  awaitingPong: boolean;
}

export class WsHub {
  private readonly subscribers = new Map<string, Set<Client>>();
  private readonly clients = new Set<Client>();
  private readonly opts: Required<HubOptions>;
  private readonly pingTimer: NodeJS.Timeout;
  private pongTimer: NodeJS.Timeout | undefined;
  readonly stats: HubStats = { connections: 0, garbageFrames: 0, slowDisconnects: 0, pongTimeouts: 0 };

  constructor(
    wss: WebSocketServer,
    private readonly source: TopicSource,
    opts: HubOptions = {},
    /** Called with an exception a frame's handling raised (a venue bug); the frame is answered with an error. */
    private readonly onInternalError: (e: unknown) => void = (e) => process.stderr.write(`ws hub internal error: ${(e as Error)?.stack ?? String(e)}\n`),
  ) {
    this.opts = {
      pingIntervalMs: opts.pingIntervalMs ?? 30_000,
      pongTimeoutMs: opts.pongTimeoutMs ?? 10_000,
      maxSubscriptions: opts.maxSubscriptions ?? 100,
      maxBufferedBytes: opts.maxBufferedBytes ?? 1024 * 1024,
      maxFrameBytes: opts.maxFrameBytes ?? 64 * 1024,
    };
    wss.on('connection', (ws: WebSocket, _req: IncomingMessage) => this.accept(ws));
    this.pingTimer = setInterval(() => this.pingAll(), this.opts.pingIntervalMs);
    this.pingTimer.unref();
  }

  /** True when at least one client listens to stream `key` (lets producers skip work). */
  hasSubscribers(key: string): boolean {
    return (this.subscribers.get(key)?.size ?? 0) > 0;
  }

  /** Sends `{type, data, topic}` to every subscriber of stream `key`; serialized once. */
  publish(key: string, type: string, data: unknown): void {
    const subs = this.subscribers.get(key);
    if (!subs || subs.size === 0) return;
    this.publishText(key, stringifyJson({ type, data, topic: topicOfKey(key) }));
  }

  /** Sends already serialized `text` to every subscriber of stream `key`. */
  publishText(key: string, text: string): void {
    const subs = this.subscribers.get(key);
    if (subs) for (const c of subs) this.send(c, text);
  }

  /** Stream keys with at least one subscriber. */
  activeTopics(): IterableIterator<string> {
    return this.subscribers.keys();
  }

  close(): void {
    clearInterval(this.pingTimer);
    if (this.pongTimer) clearTimeout(this.pongTimer);
    for (const c of this.clients) c.ws.terminate();
  }

  private accept(ws: WebSocket): void {
    const client: Client = { ws, topics: new Set(), awaitingPong: false };
    this.clients.add(client);
    this.stats.connections = this.clients.size;
    ws.on('pong', () => {
      client.awaitingPong = false;
    });
    ws.on('message', (data, isBinary) => {
      try {
        this.onFrame(client, data as Buffer, isBinary);
      } catch (e) {
        this.onInternalError(e);
        this.reply(client, { type: 'error', error: { message: 'internal error' } });
      }
    });
    ws.on('close', () => this.drop(client));
    ws.on('error', () => this.drop(client));
  }

  private drop(client: Client): void {
    if (!this.clients.delete(client)) return;
    for (const t of client.topics) this.unsubscribeTopic(client, t);
    this.stats.connections = this.clients.size;
  }

  /** Bytes queued for all clients and not yet handed to the kernel (the memory slow readers hold). */
  bufferedBytes(): number {
    let n = 0;
    for (const c of this.clients) n += c.ws.bufferedAmount;
    return n;
  }

  private send(client: Client, text: string): void {
    const ws = client.ws;
    if (ws.readyState !== 1) return;
    ws.send(text);
    if (ws.bufferedAmount > this.opts.maxBufferedBytes) {
      this.stats.slowDisconnects++;
      this.drop(client);
      ws.terminate();
    }
  }

  private reply(client: Client, message: object): void {
    this.send(client, JSON.stringify(message));
  }

  private garbage(client: Client, message: string): void {
    this.stats.garbageFrames++;
    this.reply(client, { type: 'error', error: { message } });
  }

  private onFrame(client: Client, data: Buffer, isBinary: boolean): void {
    if (isBinary) return this.garbage(client, 'binary frames are not supported');
    if (data.length > this.opts.maxFrameBytes) return this.garbage(client, `frame larger than ${this.opts.maxFrameBytes} bytes`);
    let msg: unknown;
    try {
      msg = JSON.parse(data.toString('utf8'));
    } catch {
      return this.garbage(client, 'malformed JSON');
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return this.garbage(client, 'expected a JSON object');
    const { method } = msg as { method?: unknown };
    if (method === 'subscribe') return this.onSubscribe(client, (msg as { subscription?: unknown }).subscription);
    if (method === 'unsubscribe') return this.onUnsubscribe(client, (msg as { topic?: unknown }).topic);
    if (method === 'ping') return this.reply(client, { type: 'pong' });
    this.garbage(client, `unknown method ${JSON.stringify(method ?? null)}`);
  }

  private onSubscribe(client: Client, subscription: unknown): void {
    if (!Array.isArray(subscription) || subscription.length === 0) return this.garbage(client, 'subscription must be a non-empty array');
    const requested: string[] = [];
    for (const s of subscription) {
      const r = this.source.resolve(s);
      if ('error' in r) return this.garbage(client, r.error);
      requested.push(...r.topics);
    }
    const added = [...new Set(requested)].filter((t) => !client.topics.has(t));
    if (client.topics.size + added.length > this.opts.maxSubscriptions) {
      return this.garbage(client, `at most ${this.opts.maxSubscriptions} subscriptions per connection`);
    }
    this.reply(client, { type: 'subscriptionResponse', topics: requested.map(topicOfKey) });
    for (const t of added) {
      for (const text of this.source.initial(t)) this.send(client, text);
      if (!this.clients.has(client)) return;
      client.topics.add(t);
      let set = this.subscribers.get(t);
      if (!set) this.subscribers.set(t, (set = new Set()));
      set.add(client);
    }
  }

  private onUnsubscribe(client: Client, topic: unknown): void {
    const keys = [...client.topics].filter((k) => topicOfKey(k) === topic);
    if (keys.length === 0) return this.garbage(client, `not subscribed to ${JSON.stringify(topic ?? null)}`);
    for (const k of keys) this.unsubscribeTopic(client, k);
    this.reply(client, { type: 'unsubscribeResponse', topic });
  }

  private unsubscribeTopic(client: Client, topic: string): void {
    client.topics.delete(topic);
    const set = this.subscribers.get(topic);
    if (!set) return;
    set.delete(client);
    if (set.size === 0) this.subscribers.delete(topic);
  }

  private pingAll(): void {
    for (const c of this.clients) {
      c.awaitingPong = true;
      c.ws.ping();
    }
    if (this.pongTimer) clearTimeout(this.pongTimer);
    this.pongTimer = setTimeout(() => this.dropSilent(), this.opts.pongTimeoutMs);
    this.pongTimer.unref();
  }

  private dropSilent(): void {
    for (const c of [...this.clients]) {
      if (!c.awaitingPong) continue;
      this.stats.pongTimeouts++;
      this.drop(c);
      c.ws.terminate();
    }
  }
}
