// Bench `tick-to-trade`: in-process latency from the arrival of the WebSocket frame that changed the book to the signed
// request written to the socket, for one market and the built-in market maker against the local venue in its own process
// (fast synthetic market); also each stage's p50 on the way, and the heap allocated, the process CPU time and the event
// loop's CPU time per book change (load-independent; the process figure also counts the signing worker, V8's threads
// and, in the dedicated setups, the spinner that keeps the dedicated CPU busy, so the event loop's is the hot path's).
// Four setups, each 5 runs, interleaved, so each tuning's effect is measured alone: `dedicated` (the latency settings:
// keep-warm every 5 ms and the event loop on a CPU of its own, `latency.dedicatedCpu`; the headline metrics where the
// machine allows it), `dedicated_cold` (the CPU of its own without keep-warm; metrics `dedicated_cold_*`), `shared`
// (keep-warm only, the bot's threads on every CPU; metrics `shared_*`) and `untuned` (neither; metrics `untuned_*`).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { canDedicateCpu, dedicateCpu, otherCpus } from '../src/latency/dedicated-cpu.js';
import { tuneJitForTrading } from '../src/latency/jit.js';
import { startTrading } from '../src/app/trading.js';
import { HttpClient } from '../src/client/http.js';
import { connectVenue, type LiveVenue } from '../src/client/venue.js';
import { systemClock } from '../src/core/clock.js';
import type { Execution } from '../src/execution/engine.js';
import { SampleHistogram, type HistogramLike } from '../src/execution/metrics.js';
import { Keypair } from '../src/protocol/keys.js';
import { MemoryNonceStore, NonceSource } from '../src/protocol/nonce.js';
import type { MessageSigner } from '../src/protocol/presigner.js';
import { signRequest } from '../src/protocol/sign.js';
import { v1Codec } from '../src/protocol/v1/codec.js';
import { loadStrategies } from '../src/strategy/loader.js';
import { allocationMeter, median, report } from './lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const SYMBOL = 'BTC-USD';
const RUNS = 5;
const RUN_MS = 6000;
const WARMUP_MS = 2000;

/**
 * The venue stands in for a remote exchange, which never runs on the bot's CPUs.
 * - shared, untuned: it shares the CPUs with the bot, and loopback TCP wakes the reader on the writer's CPU: a bot thread woken
 *   by a venue frame then waits for the venue to leave that CPU. At nice 19 (the fallback) `perf sched` showed that
 *   in ≈3 % of ticks, up to 4 ms. Under SCHED_IDLE (chrt, where present) the kernel preempts the venue at once for the
 *   bot and counts its CPU as free; the venue still gets every idle cycle.
 * - dedicated: the bot's event loop has CPU 0 to itself, the venue runs on the other CPUs (with the bot's other
 *   threads) at normal priority.
 */
const CHRT = spawnSync('chrt', ['--idle', '0', 'true']).status === 0;
const DEDICATED_CPU = 0;
const DEDICATED = canDedicateCpu(DEDICATED_CPU);
const OTHER_CPUS = DEDICATED ? otherCpus(DEDICATED_CPU).join(',') : '';

type Placement = 'dedicated' | 'dedicated_cold' | 'shared' | 'untuned';
/** The setups on a CPU of their own (the others share every CPU with the venue). */
const ON_DEDICATED_CPU: ReadonlySet<Placement> = new Set(['dedicated', 'dedicated_cold']);
/** The setups with keep-warm on. */
const KEPT_WARM: ReadonlySet<Placement> = new Set(['dedicated', 'shared']);

/** The keep-warm interval of the tuned setups, ms (`latency.keepWarmMs`). */
const KEEP_WARM_MS = 5;

/**
 * The venue's command line: this build's, or `BENCH_T2T_VENUE` (the `cli.js` of another build), so that a comparison of
 * two builds (`--against`) can hold the venue, which stands in for a remote exchange, the same for both bots.
 */
const VENUE_CLI = process.env.BENCH_T2T_VENUE ?? join(here, '../src/cli.js');

/** Starts `perpbot venue` in a child process; resolves with its URLs once it listens. */
function startVenueProcess(seed: number, placement: Placement): Promise<{ url: string; wsUrl: string; child: ChildProcess }> {
  const config = join(tmpdir(), `perpbot-t2t-${process.pid}.yaml`);
  writeFileSync(config, 'flow:\n  makers: 2\n  levels: 5\n  takerProbability: 0.5\n  intervalMs: 20\n');
  const venue = [process.execPath, VENUE_CLI, 'venue', '--port', '0', '--seed', String(seed), '--config', config];
  const dedicated = ON_DEDICATED_CPU.has(placement);
  const command = dedicated ? ['taskset', '-c', OTHER_CPUS, ...venue] : CHRT ? ['chrt', '--idle', '0', ...venue] : venue;
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  if (!dedicated && !CHRT && child.pid !== undefined) setPriority(child.pid, 19);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening: (\S+) \(WebSocket (\S+)\)/.exec(line);
      if (m) resolve({ url: m[1]!, wsUrl: m[2]!, child });
    });
    child.on('exit', (code) => reject(new Error(`venue exited with ${code}`)));
  });
}

/** CPU time of the event-loop thread so far, µs (Linux: its schedstat); undefined where the kernel does not say. */
function eventLoopCpuUs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
  } catch {
    return undefined;
  }
}

/** Credits `key`'s account through the venue's signed faucet action. */
async function fund(url: string, key: Keypair): Promise<void> {
  const http = new HttpClient({ baseUrl: url });
  const nonce = new NonceSource({ signer: key.publicKey, clock: systemClock(), store: new MemoryNonceStore() }).next();
  const input = {
    actions: { type: 'faucet', user: key.publicKey, amount: 1_000_000 },
    account: key.publicKey,
    signer: key.publicKey,
    nonce,
    network: 'mainnet' as const,
    mode: 'raw' as const,
  };
  const outcome = await http.submit(signRequest(v1Codec, key, input));
  http.close();
  if (outcome.outcome !== 'accepted') throw new Error(`faucet: ${outcome.outcome}`);
}

/** Where a tick is on its way to the wire, as clock ns. */
interface Tick {
  readonly arrivalNs: bigint;
  /** The strategy's intent reached execution. */
  readonly intentNs: bigint;
  /** Execution planned it, risk approved and the commands were queued. */
  readonly executeNs: bigint;
  /** The batch was flushed and encoded; Ed25519 signing starts. */
  encodeNs?: bigint;
  /** Signed with its body built; handed to the HTTP client. */
  submitNs?: bigint;
}

const STAGES = ['intent', 'execute', 'encode', 'submit', 'written'] as const;
type Stage = (typeof STAGES)[number];

/**
 * Stage latencies from the frame's arrival, taken by wrapping the session's entry points (execution.submit, the
 * key's sign, the venue's submitter) and completed by the tick-to-trade observation of the same batch.
 */
class StageProbe implements HistogramLike {
  readonly stages = Object.fromEntries(STAGES.map((s) => [s, new SampleHistogram()])) as Record<Stage, SampleHistogram>;
  private tick: Tick | undefined;

  constructor(
    private readonly clock: { nowNs(): bigint },
    private readonly tickToTrade: SampleHistogram,
  ) {}

  wrap(execution: { submit: Execution['submit'] }, key: MessageSigner, venue: LiveVenue): void {
    const { clock } = this;
    const submit = execution.submit.bind(execution);
    execution.submit = (strategy, intent, seq) => {
      const intentNs = clock.nowNs();
      submit(strategy, intent, seq);
      if (intent.arrivalNs !== undefined) this.tick = { arrivalNs: intent.arrivalNs, intentNs, executeNs: clock.nowNs() };
    };
    const sign = key.sign.bind(key);
    key.sign = (message) => {
      if (this.tick && this.tick.encodeNs === undefined) this.tick.encodeNs = clock.nowNs();
      return sign(message);
    };
    const submitter = venue.submitter;
    const send = submitter.submit.bind(submitter);
    submitter.submit = (request, hooks) => {
      if (this.tick && this.tick.submitNs === undefined) this.tick.submitNs = clock.nowNs();
      return send(request, hooks);
    };
  }

  /** The tick-to-trade observation of a batch, written now: closes the current tick's stages. */
  observe(seconds: number): void {
    this.tickToTrade.observe(seconds);
    const tick = this.tick;
    if (tick?.encodeNs === undefined || tick.submitNs === undefined) return;
    this.tick = undefined;
    const since = (ns: bigint) => Number(ns - tick.arrivalNs) / 1e9;
    this.stages.intent.observe(since(tick.intentNs));
    this.stages.execute.observe(since(tick.executeNs));
    this.stages.encode.observe(since(tick.encodeNs));
    this.stages.submit.observe(since(tick.submitNs));
    this.stages.written.observe(seconds);
  }

  reset(): void {
    this.tickToTrade.reset();
    for (const s of STAGES) this.stages[s].reset();
  }
}

interface RunResult {
  p50: number;
  p99: number;
  samples: number;
  stages: Record<Stage, number>;
  allocKbPerTick: number;
  /** Process CPU time (user + system, every thread) per book change, µs. */
  cpuUsPerTick: number;
  /** CPU time of the event-loop thread per book change, µs (undefined where unknown). */
  mainCpuUsPerTick: number | undefined;
  collections: number;
  gcMs: number;
}

async function run(seed: number, placement: Placement): Promise<RunResult> {
  const venue = await startVenueProcess(seed, placement);
  const key = Keypair.generate();
  await fund(venue.url, key);
  const clock = systemClock();
  const histogram = new SampleHistogram();
  const probe = new StageProbe(clock, histogram);
  const strategies = await loadStrategies([
    { name: 'mm', module: 'market-maker', params: { symbol: SYMBOL, size: 0.001, maxPosition: 0.05, halfSpreadBps: 5, minIntervalMs: 0 } },
  ]);
  // 50× the default request rate: more sockets than the default 16, so that a slow answer does not hold actions back.
  const http = { rateLimit: { perSecond: 1000, burst: 1000 }, cancelRateLimit: { perSecond: 2000, burst: 2000 }, maxSockets: 64 };
  const session = await startTrading({
    venue: connectVenue({ url: venue.url, wsUrl: venue.wsUrl, dialect: 'v1', network: 'mainnet', clock, http }),
    dialect: 'v1',
    network: 'mainnet',
    key,
    nonceStore: new MemoryNonceStore(),
    strategies,
    metrics: { tickToTradeSeconds: probe },
    risk: { orderRate: { perSecond: 1000, burst: 1000 }, cancelRate: { perSecond: 2000, burst: 2000 }, maxOpenOrders: 1000 },
    ...(KEPT_WARM.has(placement) && { keepWarmMs: KEEP_WARM_MS }),
  });
  probe.wrap(session.execution, session.signer, session.venue);
  // After startTrading: its signing worker exists and moves off the CPU with the others.
  const dedicated = ON_DEDICATED_CPU.has(placement) ? await dedicateCpu(DEDICATED_CPU) : undefined;
  try {
    await new Promise((r) => setTimeout(r, WARMUP_MS));
    probe.reset();
    const deltasBefore = session.market.bookStats(SYMBOL)!.deltas;
    const meter = allocationMeter();
    const cpuBefore = process.cpuUsage();
    const mainBefore = eventLoopCpuUs();
    await new Promise((r) => setTimeout(r, RUN_MS));
    const cpu = process.cpuUsage(cpuBefore);
    const mainAfter = eventLoopCpuUs();
    const allocation = meter.stop();
    const ticks = session.market.bookStats(SYMBOL)!.deltas - deltasBefore;
    return {
      p50: histogram.quantile(0.5) * 1e6,
      p99: histogram.quantile(0.99) * 1e6,
      samples: histogram.count,
      stages: Object.fromEntries(STAGES.map((s) => [s, probe.stages[s].quantile(0.5) * 1e6])) as Record<Stage, number>,
      allocKbPerTick: allocation.bytes / 1024 / ticks,
      cpuUsPerTick: (cpu.user + cpu.system) / ticks,
      mainCpuUsPerTick: mainBefore === undefined || mainAfter === undefined ? undefined : (mainAfter - mainBefore) / ticks,
      collections: allocation.collections,
      gcMs: allocation.gcMs,
    };
  } finally {
    await dedicated?.close();
    await session.stop({ deadlineMs: 3000 });
    venue.child.kill('SIGTERM');
  }
}

/**
 * The setups run (`BENCH_T2T_SETUPS`, comma-separated; default all the machine allows). Every run shares this process's
 * JIT state and heap with the runs before it, so a comparison with a build that has fewer setups (`--against 6eed0b2`:
 * no dedicated_cold) is fair only with the same ones: `BENCH_T2T_SETUPS=dedicated,shared,untuned`.
 */
function chosenPlacements(): Placement[] {
  const possible: Placement[] = DEDICATED ? ['dedicated', 'dedicated_cold', 'shared', 'untuned'] : ['shared', 'untuned'];
  const asked = process.env.BENCH_T2T_SETUPS?.split(',').map((s) => s.trim());
  if (asked === undefined) return possible;
  const unknown = asked.filter((s) => !possible.includes(s as Placement));
  if (unknown.length > 0 || asked.length === 0) throw new Error(`BENCH_T2T_SETUPS: ${unknown.join(', ') || 'empty'}; this machine runs ${possible.join(', ')}`);
  return possible.filter((p) => asked.includes(p));
}

tuneJitForTrading();
const placements = chosenPlacements();
const results: Record<Placement, RunResult[]> = { dedicated: [], dedicated_cold: [], shared: [], untuned: [] };
for (let r = 0; r < RUNS; r++) for (const placement of placements) results[placement].push(await run(100 + r, placement));
const headline = results[placements[0]!];
const med = (rs: RunResult[], f: (x: RunResult) => number) => median(rs.map(f));
/** The event loop's CPU per tick, where every run knew it. */
function reportMainCpu(metric: string, rs: RunResult[]): void {
  const values = rs.map((x) => x.mainCpuUsPerTick).filter((v): v is number => v !== undefined);
  if (values.length === rs.length) report('tick-to-trade', metric, median(values), 'us');
}
report(
  'tick-to-trade',
  'p50_us',
  med(headline, (x) => x.p50),
  'us',
);
report(
  'tick-to-trade',
  'p99_us',
  med(headline, (x) => x.p99),
  'us',
);
report(
  'tick-to-trade',
  'samples',
  med(headline, (x) => x.samples),
  'samples',
);
for (const s of STAGES)
  report(
    'tick-to-trade',
    `stage_${s}_p50_us`,
    med(headline, (x) => x.stages[s]),
    'us',
  );
report(
  'tick-to-trade',
  'alloc_per_tick_kb',
  med(headline, (x) => x.allocKbPerTick),
  'KiB',
);
report(
  'tick-to-trade',
  'cpu_us_per_tick',
  med(headline, (x) => x.cpuUsPerTick),
  'us',
);
reportMainCpu('main_cpu_us_per_tick', headline);
report(
  'tick-to-trade',
  'gc_collections',
  med(headline, (x) => x.collections),
  'collections',
);
report(
  'tick-to-trade',
  'gc_ms',
  med(headline, (x) => x.gcMs),
  'ms',
);
report('tick-to-trade', 'dedicated_cpu', DEDICATED ? 1 : 0, 'bool');
report('tick-to-trade', 'keep_warm_ms', KEEP_WARM_MS, 'ms');
for (const p of placements.slice(1)) {
  report(
    'tick-to-trade',
    `${p}_p50_us`,
    med(results[p], (x) => x.p50),
    'us',
  );
  report(
    'tick-to-trade',
    `${p}_p99_us`,
    med(results[p], (x) => x.p99),
    'us',
  );
  report(
    'tick-to-trade',
    `${p}_samples`,
    med(results[p], (x) => x.samples),
    'samples',
  );
  report(
    'tick-to-trade',
    `${p}_alloc_per_tick_kb`,
    med(results[p], (x) => x.allocKbPerTick),
    'KiB',
  );
  report(
    'tick-to-trade',
    `${p}_cpu_us_per_tick`,
    med(results[p], (x) => x.cpuUsPerTick),
    'us',
  );
  reportMainCpu(`${p}_main_cpu_us_per_tick`, results[p]);
}
report('tick-to-trade', 'venue_sched_idle', CHRT ? 1 : 0, 'bool');
