// Venue engine throughput and per-operation latency on a realistic mix: 55% passive adds, 30% cancels,
// 15% marketable IOC orders, one market, 64 makers and 16 takers. Invariant: seeded; no Math.random, no wall clock in the engine.

import { performance } from 'node:perf_hooks';
import { Engine, type EngineEvent, type OrderActionItem } from '../src/venue-sim/engine/index.js';
import { median, report } from './lib.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const OPS_PER_RUN = Number(process.env.BENCH_OPS ?? 1_000_000);
const WARMUP_OPS = Number(process.env.BENCH_WARMUP ?? 800_000); // fills every account's 5000-row histories: steady state
const SYMBOL = 'BTC-USD';
const MID_TICKS = 500_000; // 50 000.0 USD at tick 0.1
const TICK = 0.1;
const LOT = 0.0001;
const MAKERS = Array.from({ length: Number(process.env.BENCH_MAKERS ?? 64) }, (_, i) => `Maker${String(i).padStart(3, '0')}1111111111111111111111111111111111`);
const TAKERS = Array.from({ length: Number(process.env.BENCH_TAKERS ?? 16) }, (_, i) => `Taker${String(i).padStart(3, '0')}1111111111111111111111111111111111`);
/** ids are 44-character flat strings like the base58 text of a sha256 hash: a fixed prefix and a base-58 counter */
const ID_CODES = Array.from('5KJvsngHeMpm884wtkJNzQGaCErckhHJBGFsvd3VyK5q', (c) => c.charCodeAt(0));
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function makeId(n: number): string {
  for (let i = 43; i >= 36; i--) {
    ID_CODES[i] = B58.charCodeAt(n % 58);
    n = Math.floor(n / 58);
  }
  return String.fromCharCode(...ID_CODES);
}

/** xorshift32: the bench's own seeded generator. */
class Rand {
  constructor(private s: number) {}
  next(): number {
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

class BenchClock {
  ns = 1_700_000_000_000_000_000n;
  nowNs(): bigint {
    return this.ns;
  }
}

interface Workload {
  engine: Engine;
  clock: BenchClock;
  rand: Rand;
  live: string[];
  liveOwner: string[];
  index: Map<string, number>;
  seq: number;
  ops: { adds: number; cancels: number; marketable: number; fills: number; events: number; closed: number };
}

function setup(): Workload {
  const clock = new BenchClock();
  const engine = new Engine({ clock, seed: 42, historyLimit: Number(process.env.BENCH_HISTORY ?? 5000) });
  for (const a of [...MAKERS, ...TAKERS]) engine.faucet(a, 1e9);
  engine.drainEvents();
  return {
    engine,
    clock,
    rand: new Rand(0x9e3779b9),
    live: [],
    liveOwner: [],
    index: new Map(),
    seq: 0,
    ops: { adds: 0, cancels: 0, marketable: 0, fills: 0, events: 0, closed: 0 },
  };
}

function forget(w: Workload, id: string): void {
  const i = w.index.get(id);
  if (i === undefined) return;
  const lastId = w.live.pop()!;
  const lastOwner = w.liveOwner.pop()!;
  if (lastId !== id) {
    w.live[i] = lastId;
    w.liveOwner[i] = lastOwner;
    w.index.set(lastId, i);
  }
  w.index.delete(id);
}

function consume(w: Workload, events: EngineEvent[]): void {
  w.ops.events += events.length;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.type === 'orderUpdate' && e.status === 'filled' && e.maker) forget(w, e.orderId);
    else if (e.type === 'fill') w.ops.fills++;
    else if (e.type === 'positionClosed') w.ops.closed++;
  }
}

/** Builds the next operation; returns [account, items, ids]. */
/** kind of the op nextOp built last: 0 passive add, 1 cancel, 2 marketable */
let lastKind = 0;

function nextOp(w: Workload): [string, OrderActionItem[], string[] | undefined] {
  const r = w.rand;
  const u = r.next();
  if (u < 0.3 && w.live.length > 0) {
    const i = r.int(w.live.length);
    const id = w.live[i]!;
    const owner = w.liveOwner[i]!;
    forget(w, id);
    w.ops.cancels++;
    lastKind = 1;
    return [owner, [{ cancel: { c: SYMBOL, oid: id } }], undefined];
  }
  const id = makeId(w.seq++);
  if (u < 0.85) {
    const isBuy = r.next() < 0.5;
    const depth = Math.floor(-Math.log(1 - r.next()) * 8); // concentrated near the top of book
    const ticks = isBuy ? MID_TICKS - 1 - depth : MID_TICKS + 1 + depth;
    const lots = 2 + r.int(19);
    w.ops.adds++;
    lastKind = 0;
    return [
      MAKERS[r.int(MAKERS.length)]!,
      [{ order: { c: SYMBOL, b: isBuy, px: Math.round(ticks) / 10, sz: (lots * 10000 * LOT) / 10000, r: false, t: { limit: { tif: 'GTC' } } } }],
      [id],
    ];
  }
  const isBuy = r.next() < 0.5;
  const lots = 6 + r.int(25);
  const ticks = isBuy ? MID_TICKS + 40 : MID_TICKS - 40;
  w.ops.marketable++;
  lastKind = 2;
  return [
    TAKERS[r.int(TAKERS.length)]!,
    [{ order: { c: SYMBOL, b: isBuy, px: (ticks * TICK * 10) / 10, sz: (lots * 10000 * LOT) / 10000, r: false, t: { limit: { tif: 'IOC' } } } }],
    [id],
  ];
}

const CHUNK = 32;

/**
 * Runs `n` operations in chunks: the chunk's requests are built first, then only the engine calls
 * (applyOrderAction + drainEvents) are timed, then the bench's own bookkeeping runs untimed.
 * Returns seconds spent inside the engine.
 */
const kindTimeUs = [0, 0, 0];
const kindCount = [0, 0, 0];

function run(w: Workload, n: number, lat: Float64Array | null): number {
  const accounts = new Array<string>(CHUNK);
  const items = new Array<OrderActionItem[]>(CHUNK);
  const ids = new Array<string[] | undefined>(CHUNK);
  const kinds = new Array<number>(CHUNK).fill(0);
  const results = new Array<ReturnType<Engine['applyOrderAction']>>(CHUNK);
  const events = new Array<EngineEvent[]>(CHUNK);
  const engine = w.engine;
  let engineMs = 0;
  for (let done = 0; done < n; done += CHUNK) {
    const k = Math.min(CHUNK, n - done);
    for (let i = 0; i < k; i++) {
      [accounts[i], items[i], ids[i]] = nextOp(w);
      kinds[i] = lastKind;
    }
    if (lat === null) {
      const t0 = performance.now();
      for (let i = 0; i < k; i++) {
        const idList = ids[i];
        results[i] = engine.applyOrderAction(accounts[i]!, items[i]!, idList === undefined ? undefined : { ids: idList });
        events[i] = engine.drainEvents();
      }
      engineMs += performance.now() - t0;
    } else {
      for (let i = 0; i < k; i++) {
        const idList = ids[i];
        const t0 = performance.now();
        results[i] = engine.applyOrderAction(accounts[i]!, items[i]!, idList === undefined ? undefined : { ids: idList });
        events[i] = engine.drainEvents();
        const us = (performance.now() - t0) * 1000;
        lat[done + i] = us;
        kindTimeUs[kinds[i]!]! += us;
        kindCount[kinds[i]!]!++;
        engineMs += us / 1000;
      }
    }
    for (let i = 0; i < k; i++) {
      const s = results[i]!.statuses[0]!;
      const idList = ids[i];
      if (idList !== undefined && ('resting' in s || 'working' in s)) {
        w.index.set(idList[0]!, w.live.length);
        w.live.push(idList[0]!);
        w.liveOwner.push(accounts[i]!);
      }
      consume(w, events[i]!);
    }
    w.clock.ns += BigInt(k * 1000);
  }
  return engineMs / 1000;
}

function main(): void {
  const w = setup();
  run(w, WARMUP_OPS, null);
  const rates: number[] = [];
  const p50: number[] = [];
  const p99: number[] = [];
  const p999: number[] = [];
  const heap: number[] = [];
  const before = { ...w.ops };
  for (let r = 0; r < RUNS; r++) {
    rates.push(OPS_PER_RUN / run(w, OPS_PER_RUN, null));
    const lat = new Float64Array(OPS_PER_RUN / 2);
    run(w, lat.length, lat);
    lat.sort();
    p50.push(lat[Math.floor(lat.length * 0.5)]!);
    p99.push(lat[Math.floor(lat.length * 0.99)]!);
    p999.push(lat[Math.floor(lat.length * 0.999)]!);
    heap.push(process.memoryUsage().heapUsed / 2 ** 20);
  }
  const total = RUNS * OPS_PER_RUN * 1.5;
  report('engine', 'ops_per_s', median(rates), 'ops/s');
  report('engine', 'p50_us', median(p50), 'us');
  report('engine', 'p99_us', median(p99), 'us');
  report('engine', 'p999_us', median(p999), 'us');
  report('engine', 'heap_used_mb', median(heap), 'MiB');
  ['passive_add', 'cancel', 'marketable'].forEach((name, k) => report('engine', `mean_us_${name}`, kindTimeUs[k]! / kindCount[k]!, 'us'));
  report('engine', 'fills_per_op', (w.ops.fills - before.fills) / total, 'fills');
  report('engine', 'events_per_op', (w.ops.events - before.events) / total, 'events');
  report('engine', 'resting_orders', w.live.length, 'orders');
  report('engine', 'closed_positions_per_op', (w.ops.closed - before.closed) / total, 'positions');
}

main();
