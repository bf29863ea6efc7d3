// Wiring for execution integration tests: an Execution on the real local venue, in the venue's dialect and network,
// through the live venue adapter (its submitter, account queries and account stream; a hand-written risk gate) plus a
// counter of the order actions the venue applied, per account.
import type { Subscription } from 'rxjs';
import { AccountStreams } from '../../../src/account/account.js';
import { HttpClient } from '../../../src/client/http.js';
import { liveVenueOf, type LiveVenue } from '../../../src/client/venue.js';
import { WsPool } from '../../../src/client/ws-pool.js';
import type { VenueOrder } from '../../../src/core/account-data.js';
import type { LocalOrderStatus, OrderEvent } from '../../../src/core/intent.js';
import { Execution, type ExecutionOptions } from '../../../src/execution/engine.js';
import { accountFeeds } from '../../../src/execution/feeds.js';
import { codecFor } from '../../../src/protocol/codecs.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { MemoryNonceStore, NonceSource } from '../../../src/protocol/nonce.js';
import type { Venue } from '../../../src/venue-sim/server/index.js';
import type { OrderActionItem } from '../../../src/venue-sim/engine/types.js';
import { until } from '../../support/until.js';
import { FakeRisk } from '../../unit/execution/fakes.js';

export const stamp = () => ({ dataTimeMs: Date.now(), dataVersion: 1 });

/**
 * Counts the signed order requests the venue applied (after authentication), with their items, per account: one v1
 * order action, or one current transaction (whose actions the venue applies one by one, under the request's nonce).
 */
export class VenueTap {
  readonly actions: { account: string; nonce: bigint | undefined; items: OrderActionItem[] }[] = [];

  constructor(venue: Venue) {
    const engine = venue.engine;
    const apply = engine.applyOrderAction.bind(engine);
    engine.applyOrderAction = (account, items, ctx) => {
      const nonce = ctx?.nonce;
      const same = nonce === undefined ? undefined : this.actions.find((a) => a.account === account && a.nonce === nonce);
      if (same) same.items.push(...items);
      else this.actions.push({ account, nonce, items: [...items] });
      return apply(account, items, ctx);
    };
  }

  of(account: string): { account: string; items: readonly OrderActionItem[] }[] {
    return this.actions.filter((a) => a.account === account);
  }

  /** Item kinds of each action of `account` after the first `from` ones. */
  kinds(account: string, from = 0): string[][] {
    return this.of(account)
      .slice(from)
      .map((a) => a.items.map((i) => Object.keys(i)[0]!));
  }
}

/** Where the bot's HTTP and WebSocket connections go (default: the venue itself), e.g. through a CuttableProxy. */
export interface BotNet {
  httpUrl?: string;
  wsUrl?: string;
  /** HTTP request timeout, ms. */
  timeoutMs?: number;
  /** How long the client waits out HTTP 429s before it gives a request up, ms (HttpClientOptions.rateLimitMaxWaitMs). */
  rateLimitMaxWaitMs?: number;
}

export class Bot {
  readonly events: OrderEvent[] = [];
  readonly exec: Execution;
  /** The bot's side of the venue: the live adapter over its own HTTP client and WebSocket pool. */
  readonly live: LiveVenue;
  private readonly sub: Subscription;

  constructor(
    readonly venue: Venue,
    readonly key = Keypair.generate(),
    readonly risk = new FakeRisk(),
    over: Partial<ExecutionOptions> = {},
    net: BotNet = {},
  ) {
    const { dialect, network } = venue;
    const http = new HttpClient({
      baseUrl: net.httpUrl ?? venue.url,
      dialect,
      timeoutMs: net.timeoutMs,
      rateLimitMaxWaitMs: net.rateLimitMaxWaitMs,
      rateLimit: { perSecond: 1000, burst: 1000 },
      cancelRateLimit: { perSecond: 1000, burst: 1000 },
    });
    const pool = new WsPool({ url: net.wsUrl ?? venue.wsUrl, dialect, backoff: { initialMs: 20, maxMs: 100 } });
    this.live = liveVenueOf({ http, pool, dialect, network });
    const { clock } = this.live;
    const streams = new AccountStreams({ source: this.live.account, backoff: { initialMs: 20, maxMs: 100 } });
    const feeds = accountFeeds(streams, key.publicKey);
    this.exec = new Execution({
      codec: codecFor(dialect),
      network,
      key,
      nonces: new NonceSource({ signer: key.publicKey, clock, store: new MemoryNonceStore() }),
      submitter: this.live.submitter,
      queries: this.live.account,
      risk,
      clock,
      orderUpdates$: feeds.orderUpdates$,
      resync$: feeds.resync$,
      resolveDelaysMs: [20, 50, 100, 200],
      ...over,
    });
    this.sub = this.exec.events$().subscribe((e) => this.events.push(e));
  }

  get account(): string {
    return this.key.publicKey;
  }

  of(strategy: string): OrderEvent[] {
    return this.events.filter((e) => e.strategy === strategy);
  }

  /** The latest event of each order of `strategy`. */
  latest(strategy: string): OrderEvent[] {
    const by = new Map<string, OrderEvent>();
    for (const e of this.of(strategy)) by.set(e.orderId, e);
    return [...by.values()];
  }

  openAtVenue(): Promise<readonly VenueOrder[]> {
    return this.live.account.openOrders(this.account);
  }

  async close(opts?: Parameters<Execution['stop']>[0]) {
    const report = await this.exec.stop(opts);
    this.sub.unsubscribe();
    this.live.close();
    return report;
  }
}

const settledStatus = (s: LocalOrderStatus) => s !== 'pendingNew' && s !== 'pendingCancel' && s !== 'unknown';

/** Waits until every order of `strategy` the bot knows is settled (no pending state) and `n` of them rest. */
export async function resting(b: Bot, strategy: string, n: number): Promise<void> {
  await until(() => {
    const latest = b.latest(strategy);
    return latest.every((e) => settledStatus(e.status)) && latest.filter((e) => e.status === 'placed' || e.status === 'working').length === n;
  }, `${n} resting orders of ${strategy}`);
  await b.exec.whenIdle();
}
