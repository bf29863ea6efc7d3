// The chaos suite's fault kinds: each injects one fault through the proxy, the venue or the daemon process, then heals it.
// Invariant: inject() returns only once the fault is healed (the proxy forwards again, the venue and the daemon run).

import { isAction } from '../../support/fault-proxy.js';
import { HTTP_TIMEOUT_MS, type World } from './world.js';

/** Seeded choices (mulberry32), so a run's fault schedule is reproducible. */
export class Rng {
  constructor(private state: number) {}

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  shuffled<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}

export interface Injection {
  /** False when the fault found nothing to act on (no matching request in its window): not counted as injected. */
  readonly hit: boolean;
  readonly detail: string;
  /** When the heal began (epoch ms); recovery is timed from here. Default: when inject() returned. */
  readonly healedAtMs?: number;
}

/** Which injection of its kind this is (1, 2, ...), and whether to use the kind's long form (when it has one). */
export interface Occurrence {
  readonly nth: number;
  readonly long: boolean;
}

export interface FaultKind {
  readonly name: string;
  /** How it is made, for the report. */
  readonly how: string;
  /** True when `long` changes the fault (a stall or outage past the client's timeouts and the disconnect grace). */
  readonly hasLongForm?: boolean;
  inject(world: World, rng: Rng, at: Occurrence): Promise<Injection>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the proxy's rule hit `hits` requests or `windowMs` passed; returns the hits. */
async function hitsWithin(world: World, hits: number, windowMs: number): Promise<number> {
  const deadline = Date.now() + windowMs;
  while (world.proxy.hits < hits && Date.now() < deadline) await sleep(20);
  return world.proxy.hits;
}

export const FAULT_KINDS: readonly FaultKind[] = [
  {
    name: 'drop',
    how: 'every open connection (HTTP keep-alive and WebSocket) reset (RST), and the next 2 HTTP requests reset unanswered',
    async inject(world) {
      world.proxy.setHttp({ fault: { kind: 'reset' }, hits: 2 });
      world.proxy.resetAll();
      const hits = await hitsWithin(world, 2, 2000);
      world.proxy.heal();
      return { hit: true, detail: `${hits} requests reset` };
    },
  },
  {
    name: 'stall',
    how: 'the venue\u2019s WebSocket bytes held back (sockets open) and HTTP requests held unanswered for 1.5-4 s (6-8 s long), then delivered',
    hasLongForm: true,
    async inject(world, rng, { long }) {
      const ms = long ? rng.int(6000, 8000) : rng.int(1500, 4000);
      world.proxy.setHttp({ fault: { kind: 'stall' } });
      world.proxy.setWs({ kind: 'stall' });
      await sleep(ms);
      const hits = world.proxy.hits;
      world.proxy.heal();
      return { hit: true, detail: `${ms} ms, ${hits} requests held` };
    },
  },
  {
    name: 'http-5xx',
    how: 'the next 3 HTTP requests answered 500, 502 or 503 (in turn) without reaching the venue',
    async inject(world, _rng, { nth }) {
      const status = [500, 502, 503][nth % 3]!;
      world.proxy.setHttp({ fault: { kind: 'status', status }, hits: 3 });
      const hits = await hitsWithin(world, 3, 4000);
      world.proxy.heal();
      return { hit: hits > 0, detail: `${hits} answered ${status}` };
    },
  },
  {
    name: 'http-429',
    how: 'the next 3 HTTP requests answered 429 with Retry-After: 1 without reaching the venue',
    async inject(world) {
      world.proxy.setHttp({ fault: { kind: 'status', status: 429, retryAfterS: 1 }, hits: 3 });
      const hits = await hitsWithin(world, 3, 4000);
      world.proxy.heal();
      return { hit: hits > 0, detail: `${hits} answered 429` };
    },
  },
  {
    name: 'applied-unanswered',
    how: 'the next signed action forwarded (the venue applies it), then its answer dropped: in turn connection reset, no answer until the client times out, or 502',
    async inject(world, _rng, { nth }) {
      const answer = (['reset', 'silent', 502] as const)[nth % 3]!;
      world.proxy.setHttp({ fault: { kind: 'applied', answer }, match: isAction, hits: 1 });
      const hits = await hitsWithin(world, 1, 5000);
      if (hits > 0 && answer === 'silent') await sleep(HTTP_TIMEOUT_MS + 500);
      world.proxy.heal();
      return { hit: hits > 0, detail: `answer ${answer}` };
    },
  },
  {
    name: 'latency',
    how: '100-600 ms added to every HTTP request and every WebSocket chunk (both directions) for 3 s',
    async inject(world, rng) {
      const ms = rng.int(100, 600);
      world.proxy.setHttp({ fault: { kind: 'delay', ms } });
      world.proxy.setWs({ kind: 'delay', ms });
      await sleep(3000);
      world.proxy.heal();
      return { hit: true, detail: `${ms} ms for 3 s` };
    },
  },
  {
    name: 'outage',
    how: 'connections refused (the proxy stops listening, open ones reset) for 2-6 s (11-13 s long: past the 10 s disconnect grace)',
    hasLongForm: true,
    async inject(world, rng, { long }) {
      const ms = long ? rng.int(11_000, 13_000) : rng.int(2000, 6000);
      await world.proxy.outage();
      await sleep(ms);
      await world.proxy.restore();
      return { hit: true, detail: `${ms} ms` };
    },
  },
  {
    name: 'venue-restart-state',
    how: 'the venue stopped (connections refused) and started again on its port serving the same engine (orders, positions, fills kept)',
    async inject(world, rng) {
      const ms = rng.int(500, 3000);
      await world.restartVenue(true);
      await sleep(ms);
      await world.proxy.restore();
      return { hit: true, detail: `down ${ms} ms` };
    },
  },
  {
    name: 'venue-restart-fresh',
    how: 'the venue stopped and a new one (empty engine; the account given its former equity as collateral) started on its port',
    async inject(world, rng) {
      const ms = rng.int(500, 3000);
      await world.restartVenue(false);
      await sleep(ms);
      await world.proxy.restore();
      return { hit: true, detail: `down ${ms} ms` };
    },
  },
  {
    name: 'daemon-kill9',
    how: 'the daemon killed with SIGKILL, then started again on the same config and journal',
    async inject(world) {
      await world.killDaemon();
      const healedAtMs = Date.now();
      await world.startDaemon();
      return { hit: true, detail: 'killed and restarted', healedAtMs };
    },
  },
];
