// Topic → hot, ref-counted Observable over as many connections as the 100-subscription limit requires; the
// freshness of every held topic. Invariants: a topic is subscribed on the venue exactly while someone listens; each
// topic lives on one connection; a refused topic errors its observable and is not held.

import { BehaviorSubject, merge, Observable, Subject } from 'rxjs';
import { multicast } from '../core/rx.js';
import { MAX_SUBSCRIPTIONS, type StreamMessage, type Subscription } from '../protocol/v1/stream.js';
import { topicOf, WsConnection, type ConnectionStats, type Decoded, type WsConnectionOptions } from './ws-connection.js';

/** A held topic turned fresh (data or pongs within the bound, confirmed) or stale (with why). */
export interface TopicHealth {
  readonly topic: string;
  readonly fresh: boolean;
  readonly reason: string;
}

export interface WsPoolOptions extends WsConnectionOptions {
  /** Topics per connection before another one is opened. Default 100 (the venue's limit). */
  maxTopicsPerConnection?: number;
}

export class WsPool {
  private readonly conns: WsConnection[] = [];
  private readonly owners = new Map<string, WsConnection>();
  private readonly streams = new Map<string, Observable<StreamMessage>>();
  private readonly perConnection: number;
  private readonly stale = new Map<string, string>();
  private readonly health = new Subject<TopicHealth>();
  private readonly connectionList = new BehaviorSubject<readonly WsConnection[]>([]);
  /** The connections after each change of the set (the current set first); completes on close() (each then `closed`). */
  readonly connections$: Observable<readonly WsConnection[]> = this.connectionList.asObservable();
  /** Every freshness change of a held topic; a released or refused topic leaves the stale set (no longer watched). */
  readonly health$: Observable<TopicHealth> = this.health.asObservable();

  constructor(private readonly opts: WsPoolOptions) {
    this.perConnection = Math.min(opts.maxTopicsPerConnection ?? MAX_SUBSCRIPTIONS, MAX_SUBSCRIPTIONS);
  }

  /** Held topics that are not fresh now, with why. */
  staleTopics(): ReadonlyMap<string, string> {
    return this.stale;
  }

  /** The open connections, oldest first (each exposes `state$` and `stats`). */
  get connections(): readonly WsConnection[] {
    return this.conns;
  }

  /** Clock ns at which the frame being routed now arrived, on whichever connection; undefined outside routing. */
  get frameArrivalNs(): bigint | undefined {
    for (const c of this.conns) {
      const ns = c.frameArrivalNs;
      if (ns !== undefined) return ns;
    }
    return undefined;
  }

  /** Sum of every connection's counters. */
  get stats(): ConnectionStats {
    const total: ConnectionStats = {
      messages: 0,
      opens: 0,
      staleResubscribes: 0,
      idleDrops: 0,
      refusedTopics: 0,
      silences: 0,
      invalidFrames: { binary: 0, malformed: 0, schema: 0, venueError: 0, unrouted: 0 },
    };
    const frames = total.invalidFrames as Record<string, number>;
    for (const c of this.conns) {
      const s = c.stats;
      total.messages += s.messages;
      total.opens += s.opens;
      total.staleResubscribes += s.staleResubscribes;
      total.idleDrops += s.idleDrops;
      total.refusedTopics += s.refusedTopics;
      total.silences += s.silences;
      for (const [kind, n] of Object.entries(s.invalidFrames)) frames[kind]! += n;
    }
    return total;
  }

  /**
   * Hot, ref-counted messages of the subscription's topics (several for a batched account subscription). Errors
   * with SubscriptionRefusedError (code SUBSCRIPTION_REFUSED) when the venue refuses a topic.
   */
  topic$(subscription: Subscription): Observable<StreamMessage> {
    if (subscription.type === 'account' && typeof subscription.user !== 'string') {
      return merge(...subscription.user.map((user) => this.topic$({ type: 'account', user })));
    }
    const topic = topicOf(subscription);
    let stream = this.streams.get(topic);
    if (!stream) {
      stream = new Observable<StreamMessage>((subscriber) => {
        const conn = this.connectionWithRoom();
        conn.subscribe(
          subscription,
          (m) => subscriber.next(m),
          (e) => subscriber.error(e),
        );
        this.owners.set(topic, conn);
        return () => {
          this.owners.delete(topic);
          this.onHealth(topic, true, 'released');
          conn.unsubscribe(topic);
          this.release(conn);
        };
      }).pipe(multicast());
      this.streams.set(topic, stream);
    }
    return stream;
  }

  /** Asks the venue for the topic again (its snapshot comes first); a no-op for a topic nobody holds. */
  resubscribe(topic: string): void {
    this.owners.get(topic)?.resubscribe(topic);
  }

  /** Decodes the topic's last frame again, delivering and counting nothing (keep-warm); undefined without one. */
  warm(topic: string): Decoded | undefined {
    return this.owners.get(topic)?.warm(topic);
  }

  /** Closes every connection; connections$ then completes. */
  close(): void {
    for (const c of this.conns.splice(0)) c.close();
    this.connectionList.complete();
  }

  private connectionWithRoom(): WsConnection {
    let conn = this.conns.find((c) => c.topicCount < this.perConnection);
    if (!conn) {
      conn = new WsConnection({ ...this.opts, onHealth: (topic, fresh, reason) => this.onHealth(topic, fresh, reason) });
      this.conns.push(conn);
      this.connectionList.next([...this.conns]);
    }
    return conn;
  }

  private onHealth(topic: string, fresh: boolean, reason: string): void {
    if (fresh ? !this.stale.delete(topic) : this.stale.get(topic) === reason) return;
    if (!fresh) this.stale.set(topic, reason);
    this.health.next({ topic, fresh, reason });
  }

  /** Closes an emptied connection unless it is the last one. */
  private release(conn: WsConnection): void {
    if (conn.topicCount > 0 || this.conns.length === 1) return;
    this.conns.splice(this.conns.indexOf(conn), 1);
    conn.close();
    this.connectionList.next([...this.conns]);
  }
}
