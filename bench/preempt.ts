// Bench `preempt` (commands before data): while 100,000 l2Delta frames wait at the bot's WebSocket, how long a kill takes
// from the commander's connection established to the cancel's bytes handed to the venue's socket. Three processes: this
// one is the bot; the same file started with `venue-side` is the venue (the local venue behind a WebSocket front that can
// burst), with `commander` the user's `curl` (a fresh connection per kill). Each kill with the burst is followed by one
// without it: the control, what the machine allows (`*_no_backlog_*`). Two placements alternate run by run (PLACEMENTS).
// Invariants: the burst is queued (written by the venue side) before the command leaves; every process stamps with
// CLOCK_MONOTONIC (process.hrtime), so stamps compare across processes; values are medians over RUNS fresh triples.
// The probe (`kill_<step>_*`) splits each kill's way into PROBE_STEPS, medians over every trial of every run; where Linux
// schedstat is readable it also reports how long the bot's event-loop thread waited for a CPU during the kill.

import { fork, type ChildProcess } from 'node:child_process';
import { subscribe as subscribeChannel } from 'node:diagnostics_channel';
import { createServer, type IncomingMessage } from 'node:http';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { WebSocket, WebSocketServer } from 'ws';
import { startTrading, type TradingSession } from '../src/app/trading.js';
import { connectVenue, type LiveVenue } from '../src/client/venue.js';
import { systemClock } from '../src/core/clock.js';
import { canDedicateCpu, dedicateCpu, otherCpus, pinProcess } from '../src/latency/dedicated-cpu.js';
import { tuneJitForTrading } from '../src/latency/jit.js';
import { setEventLoopNice } from '../src/latency/priority.js';
import { Keypair } from '../src/protocol/keys.js';
import { MemoryNonceStore } from '../src/protocol/nonce.js';
import { killSwitchHandlers } from '../src/risk/index.js';
import { loadStrategies } from '../src/strategy/loader.js';
import { startControlServer } from '../src/telemetry/server.js';
import { startVenue } from '../src/venue-sim/server/index.js';
import { median, report } from './lib.js';
import { wsTextFrames } from './support/ws-frames.js';

const BENCH = 'preempt';
const SYMBOL = 'BTC-USD';
const BACKLOG = 100_000;
/** Fresh pairs of processes (PREEMPT_RUNS overrides, for a quick look). */
const RUNS = Number(process.env.PREEMPT_RUNS ?? 5);
/** The bot's `latency.eventLoopNice` (PREEMPT_NICE, e.g. -10; needs CAP_SYS_NICE); default: unchanged, as the daemon's default. */
const NICE = process.env.PREEMPT_NICE === undefined ? undefined : Number(process.env.PREEMPT_NICE);
/** Trials per run with the burst, each followed by one without it (the control); after one warm-up pair. */
const TRIALS = 10;
const TOKEN = 'preempt-bench';
/** No trial may take longer than this (a burst not drained, a cancel never written), ms. */
const TRIAL_TIMEOUT_MS = 60_000;

/**
 * The bot's placements, alternated run by run: `dedicated` (the daemon's latency settings, `latency.dedicatedCpu`: the
 * event loop on CPU 0 of its own; the venue side and the commander on the other CPUs, as a remote exchange and a user's
 * shell on another core; the headline metrics where the machine allows it) and `shared` (every process on every CPU;
 * metrics `shared_*`).
 */
type Placement = 'dedicated' | 'shared';
const DEDICATED_CPU = 0;
const DEDICATED = canDedicateCpu(DEDICATED_CPU);
const OTHER_CPUS = DEDICATED ? otherCpus(DEDICATED_CPU).join(',') : '';
/** Where to write every trial used, one JSON line each, for a closer look (PREEMPT_TRIALS_OUT; default: nowhere). */
const TRIALS_OUT = process.env.PREEMPT_TRIALS_OUT;
/** The placements to run (PREEMPT_PLACEMENTS, comma-separated, for a quick look at one). */
const PLACEMENTS = (process.env.PREEMPT_PLACEMENTS ?? 'dedicated,shared').split(',').map((p) => {
  if (p !== 'dedicated' && p !== 'shared') throw new Error(`PREEMPT_PLACEMENTS: unknown placement ${JSON.stringify(p)}`);
  return p;
});

/**
 * Nice value of the venue side: it stands in for a remote exchange, which never runs on the bot's CPUs. At nice 0,
 * writing the burst and running the engine, it held the bot's CPU (the bot's run-queue wait during a kill p50 10 ms);
 * SCHED_IDLE, or nice 19 with the bot at nice -10, starved it on a busy machine (a place never answered within a minute,
 * so its kill's cancel was never written). At 10 it yields the bot's CPU (about 1/10 of the bot's share) and still
 * answers. The commander runs at the default priority, as a user's curl would.
 */
const VENUE_NICE = 10;

/** Messages between the bot and the other two processes. */
type ToVenue = { kind: 'fund'; account: string } | { kind: 'burst' } | { kind: 'stop' };
type ToCommander = { kind: 'go'; control: string; botPid: number } | { kind: 'stop' };
type FromChild =
  | { kind: 'listening'; url: string; wsUrl: string }
  | { kind: 'funded' }
  | { kind: 'queued'; frames: number }
  | { kind: 'ready' }
  | { kind: 'sent'; sentNs: string; establishedNs: string; botWaitNs: string | undefined };

// ------------------------------------------------------------------ venue side

/**
 * BACKLOG deltas far from the traded prices (bids near 48 000, asks near 190 000; BTC trades near 97 000), so the book
 * they build never crosses and the market maker's quotes do not move: one in eight a delete. Stamped now.
 */
function burst(seed: number): Buffer {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const nowMs = Date.now();
  const texts: string[] = [];
  for (let i = 0; i < BACKLOG; i++) {
    const bid = i % 2 === 0;
    const px = (bid ? 480_000 - Math.floor(rnd() * 400) : 1_900_000 + Math.floor(rnd() * 400)) / 10;
    const sz = rnd() < 0.125 ? 0 : Math.round(rnd() * 10_000) / 1000;
    const level = JSON.stringify([{ px, sz, n: 1 }]);
    const levels = bid ? `[${level},[]]` : `[[],${level}]`;
    const book = `{"updateType":"delta","symbol":"${SYMBOL}","levels":${levels},"timestamp":${nowMs}}`;
    texts.push(`{"type":"l2Delta","data":{"book":${book}},"topic":"l2delta.${SYMBOL}"}`);
  }
  return wsTextFrames(texts);
}

/**
 * The local venue (its market flow on) behind a WebSocket front relaying every message both ways; on `burst` the front
 * writes BACKLOG deltas to the bot's market-data connection (built first: building them is no part of a trial).
 */
async function venueSide(seed: number): Promise<void> {
  setPriority(VENUE_NICE);
  const send = (m: FromChild) => process.send!(m);
  const venue = await startVenue({ port: 0, seed });
  const wss = new WebSocketServer({ noServer: true });
  /** The raw sockets of the bot's connections that subscribed to l2Delta. */
  const marketSockets = new Set<Socket>();
  const front = createServer();
  front.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, (down) => {
      const up = new WebSocket(venue.wsUrl, { perMessageDeflate: false });
      const early: string[] = [];
      up.on('open', () => {
        for (const m of early.splice(0)) up.send(m);
      });
      up.on('message', (data, isBinary) => down.send(data, { binary: isBinary }));
      down.on('message', (data) => {
        const text = data.toString();
        if (text.includes('"l2Delta"')) marketSockets.add(socket);
        if (up.readyState === WebSocket.OPEN) up.send(text);
        else early.push(text);
      });
      up.on('close', () => down.terminate());
      down.on('close', () => {
        marketSockets.delete(socket);
        up.terminate();
      });
      up.on('error', () => down.terminate());
      down.on('error', () => up.terminate());
    });
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  const { port } = front.address() as AddressInfo;
  let trial = 0;
  process.on('message', (m: ToVenue) => {
    if (m.kind === 'stop') {
      front.close();
      wss.close();
      void venue.close().then(() => process.exit(0));
    } else if (m.kind === 'fund') {
      venue.engine.faucet(m.account, 1_000_000);
      send({ kind: 'funded' });
    } else {
      const frames = burst(seed * 1000 + trial++);
      for (const s of marketSockets) s.write(frames);
      send({ kind: 'queued', frames: BACKLOG * marketSockets.size });
    }
  });
  send({ kind: 'listening', url: venue.url, wsUrl: `ws://127.0.0.1:${port}/ws` });
}

/**
 * Time the bot's event-loop thread has spent runnable but waiting for a CPU so far (Linux schedstat run_delay), ns;
 * undefined where schedstat is not readable.
 */
function runQueueWaitNs(pid: number): bigint | undefined {
  try {
    return BigInt(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]!);
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------ commander

/**
 * The commander as a user runs it (`curl -X POST -H 'Authorization: Bearer …' -d … /kill`): a process of its own, a
 * fresh connection per kill (TCP_NODELAY, as curl), the request written in one piece once connected. The clock starts
 * once its connect system call is made (on loopback the handshake completes within it: the bot can accept). Node's own
 * code before that call, about 0.4 ms in a process that connects once a second (curl's is a system call), is reported
 * apart (`commander_connect_call_*`) and not timed.
 */
function commanderSide(): void {
  const send = (m: FromChild) => process.send!(m);
  process.on('message', (m: ToCommander) => {
    if (m.kind === 'stop') return process.exit(0);
    const url = new URL(m.control);
    const body = '{"reason":"preempt bench"}';
    const request =
      `POST /kill HTTP/1.1\r\nHost: ${url.host}\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const botWaitNs = runQueueWaitNs(m.botPid);
    const sentNs = process.hrtime.bigint();
    const command = connect({ port: Number(url.port), host: url.hostname, noDelay: true });
    // Node makes the connect call for an IP address on the next tick (net's lookupAndConnect); this tick runs after it.
    let establishedNs = 0n;
    process.nextTick(() => (establishedNs = process.hrtime.bigint()));
    command.once('connect', () => command.end(request));
    command.on('data', () => undefined);
    command.on('error', () => undefined);
    // Told once the answer is in, so that no message to the bot competes with the kill.
    command.once('close', () => send({ kind: 'sent', sentNs: String(sentNs), establishedNs: String(establishedNs), botWaitNs: botWaitNs?.toString() }));
  });
  send({ kind: 'ready' });
}

// ------------------------------------------------------------------ bot side

/** One message of `child` matching `kind`. */
function next<K extends FromChild['kind']>(child: ChildProcess, kind: K): Promise<Extract<FromChild, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`a child process exited with ${code}`));
    const onMessage = (m: FromChild) => {
      if (m.kind !== kind) return;
      child.off('message', onMessage).off('exit', onExit);
      resolve(m as Extract<FromChild, { kind: K }>);
    };
    child.on('message', onMessage).once('exit', onExit);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, done: () => boolean, timeoutMs = TRIAL_TIMEOUT_MS, everyMs = 1): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

interface Trial {
  /** With the burst (else the same kill on a quiet connection: what the machine allows). */
  backlog: boolean;
  /** Kill's arrival to the cancel written, ms. */
  dispatchMs: number;
  /** Kill's arrival to the last frame of the burst applied to the book, ms (0 without one). */
  drainMs: number;
  /**
   * No order rested when the kill was handled (each was a place in flight, whose cancel waits for its id): the cancel
   * went out after the venue's answer, which this bench does not measure; the trial is left out.
   */
  deferred: boolean;
  /** The kill's way in PROBE_STEPS, ms each. */
  stepsMs: number[];
  /** The commander's connect() to its connect system call made (Node's own code in the commander, not timed), ms. */
  connectCallMs: number;
  /** A garbage collection ran between the kill's sending and its cancel's write. */
  waitedForGc: boolean;
  /**
   * Of dispatchMs, the time the bot's event-loop thread was runnable but not running (other processes had the CPUs),
   * ms; undefined where schedstat is not readable.
   */
  runQueueMs: number | undefined;
}

/**
 * The steps of a kill's way (the probe): the commander's connect to its connection accepted by the control server
 * (handshake, the bot's loop reaching the listening socket), to the request parsed (the commander's write, waiting
 * behind the backlog, HTTP parse), to the kill handler (token, body), to the cancel batch's signing (halt, cancel-all, encode), to
 * the signed batch handed to the submitter, to its bytes written.
 */
const PROBE_STEPS = ['accept', 'arrive', 'control', 'cancel', 'sign', 'write'] as const;

/** Book updates the market streams took in (applied, or dropped while a rebuild waited for its snapshot). */
function bookUpdates(session: TradingSession<LiveVenue>): number {
  const stats = session.market.bookStats(SYMBOL);
  return (stats?.deltas ?? 0) + (stats?.dropped ?? 0);
}

/** The market maker rests quotes the venue acknowledged: a cancel of them goes on the wire at once. */
function resting(session: TradingSession<LiveVenue>): boolean {
  return session.execution.openOrders('mm').some((o) => o.orderId !== undefined && (o.status === 'placed' || o.status === 'working'));
}

/** Every open order of the market maker is acknowledged (no place or replace in flight). */
function settled(session: TradingSession<LiveVenue>): boolean {
  return session.execution.openOrders('mm').every((o) => o.orderId !== undefined && (o.status === 'placed' || o.status === 'working'));
}

async function run(seed: number, placement: Placement): Promise<Trial[]> {
  const child = fork(fileURLToPath(import.meta.url), ['venue-side', String(seed)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const tell = (m: ToVenue) => child.send(m);
  const commander = fork(fileURLToPath(import.meta.url), ['commander'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const command = (m: ToCommander) => commander.send(m);
  await next(commander, 'ready');
  const { url, wsUrl } = await next(child, 'listening');
  if (placement === 'dedicated') for (const c of [child, commander]) pinProcess(c.pid!, OTHER_CPUS);
  const key = Keypair.generate();
  tell({ kind: 'fund', account: key.publicKey });
  await next(child, 'funded');
  const strategies = await loadStrategies([
    {
      name: 'mm',
      module: 'market-maker',
      // config/default.yaml's market maker.
      params: { symbol: SYMBOL, size: 0.001, halfSpreadBps: 5, levels: 2, levelSpacing: 1, maxPosition: 0.01, skew: 0.5, minIntervalMs: 250 },
    },
  ]);
  const clock = systemClock();
  const session = await startTrading({
    venue: connectVenue({ url, wsUrl, dialect: 'v1', network: 'mainnet', clock }),
    dialect: 'v1',
    network: 'mainnet',
    key,
    nonceStore: new MemoryNonceStore(),
    strategies,
    risk: { orderRate: { perSecond: 20, burst: 40 }, cancelRate: { perSecond: 50, burst: 100 } },
    keepWarmMs: 5,
  });
  // After startTrading: its signing worker exists and moves off the CPU with the others.
  const dedicated = placement === 'dedicated' ? await dedicateCpu(DEDICATED_CPU) : undefined;

  /** What one kill saw: when it was handled and when its cancels were written (process.hrtime ns). */
  interface Kill {
    readonly deferred: boolean;
    /** The control server parsed the request's head (its handler starts). */
    readonly requestNs: bigint;
    /** The control server accepted the command's connection. */
    readonly acceptedNs: bigint;
    /** The kill handler runs (token checked, body read). */
    readonly handledNs: bigint;
    /** The cancel batch's signing starts (halted, cancels planned and encoded). */
    signNs?: bigint;
    /** The signed batch is handed to the submitter. */
    submitNs?: bigint;
    writtenNs?: bigint;
    /** runQueueWaitNs at writtenNs. */
    waitNs?: bigint | undefined;
  }
  let requestNs = 0n;
  let acceptedNs = 0n;
  subscribeChannel('net.server.socket', () => {
    acceptedNs = process.hrtime.bigint();
  });
  subscribeChannel('http.server.request.start', () => {
    requestNs = process.hrtime.bigint();
  });
  /** Garbage collections (process.hrtime ns), to tell a kill that waited for one. */
  const gcs: { startNs: bigint; endNs: bigint }[] = [];
  const originNs = process.hrtime.bigint() - BigInt(Math.round(performance.now() * 1e6));
  const gcObserver = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const startNs = originNs + BigInt(Math.round(e.startTime * 1e6));
      gcs.push({ startNs, endNs: startNs + BigInt(Math.round(e.duration * 1e6)) });
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  /** Set by the kill: the next batch submitted is the one carrying its cancels. */
  let armed: Kill | undefined;
  const submitter = session.venue.submitter;
  const submit = submitter.submit.bind(submitter);
  submitter.submit = (request, hooks) => {
    const trial = armed;
    armed = undefined;
    if (trial === undefined) return submit(request, hooks);
    trial.submitNs = process.hrtime.bigint();
    return submit(request, {
      onWritten: () => {
        trial.writtenNs = process.hrtime.bigint();
        trial.waitNs = runQueueWaitNs(process.pid);
        hooks?.onWritten?.();
      },
    });
  };
  const signer = session.signer as { sign(message: Uint8Array): Uint8Array };
  const sign = signer.sign.bind(signer);
  signer.sign = (message) => {
    if (armed !== undefined) armed.signNs = process.hrtime.bigint();
    return sign(message);
  };
  const gate = killSwitchHandlers(session.risk);
  let pending: Kill | undefined;
  // POST /kill as the daemon serves it: the halt cancels every resting order (the session's rule).
  const control = await startControlServer({
    port: 0,
    token: TOKEN,
    metrics: { contentType: 'text/plain', text: async () => '' },
    ready: () => ({ ready: true, reasons: [] }),
    status: () => ({}),
    kill: (reason) => {
      const handledNs = process.hrtime.bigint();
      armed = pending = { deferred: !resting(session), acceptedNs, requestNs, handledNs };
      return gate.kill(reason);
    },
    resume: (reason) => gate.resume(reason),
  });

  const trials: Trial[] = [];
  // Set as the daemon sets it, after the other processes started (they keep the default priority).
  const niceBefore = NICE === undefined ? undefined : setEventLoopNice(NICE);
  try {
    // A warm-up pair, then TRIALS pairs: with the burst, and without it.
    for (let t = 0; t <= 2 * TRIALS + 1; t++) {
      const backlog = t % 2 === 0;
      // Quoting with nothing in flight: a kill then finds resting orders unless a requote starts within the trial.
      await until('the market maker quoting', () => resting(session) && settled(session));
      const before = bookUpdates(session);
      pending = undefined;
      let frames = 0;
      if (backlog) {
        tell({ kind: 'burst' });
        frames = (await next(child, 'queued')).frames;
      }
      const sent = next(commander, 'sent');
      command({ kind: 'go', control: control.url, botPid: process.pid });
      await until('the cancel written', () => pending?.writtenNs !== undefined);
      const { sentNs, establishedNs, botWaitNs } = await sent;
      if (frames !== (backlog ? BACKLOG : 0)) throw new Error(`the burst went to ${frames / BACKLOG} market-data connections, not one`);
      await until('the burst applied', () => bookUpdates(session) - before >= frames);
      const drainNs = process.hrtime.bigint();
      const kill = pending!;
      const from = BigInt(establishedNs);
      const ms = (ns: bigint) => Number(ns - from) / 1e6;
      const stamps = [kill.acceptedNs, kill.requestNs, kill.handledNs, kill.signNs!, kill.submitNs!, kill.writtenNs!].map(ms);
      const stepsMs = stamps.map((at, i) => at - (i === 0 ? 0 : stamps[i - 1]!));
      const waitedForGc = gcs.some((g) => g.endNs > from && g.startNs < kill.writtenNs!);
      gcs.length = 0;
      const runQueueMs = botWaitNs === undefined || kill.waitNs === undefined ? undefined : Number(kill.waitNs - BigInt(botWaitNs)) / 1e6;
      if (t > 1)
        trials.push({
          backlog,
          dispatchMs: ms(kill.writtenNs!),
          drainMs: backlog ? ms(drainNs) : 0,
          deferred: kill.deferred,
          stepsMs,
          connectCallMs: Number(BigInt(establishedNs) - BigInt(sentNs)) / 1e6,
          waitedForGc,
          runQueueMs,
        });
      gate.resume('preempt trial done');
    }
  } finally {
    if (niceBefore !== undefined) setEventLoopNice(niceBefore);
    await dedicated?.close();
    await control.close();
    await session.stop({ deadlineMs: 3000 });
    tell({ kind: 'stop' });
    command({ kind: 'stop' });
    await Promise.all([child, commander].map((c) => new Promise((r) => c.once('exit', r))));
  }
  return trials;
}

/** The value below which `q` of `values` lie (nearest rank). */
function quantile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}

if (process.argv[2] === 'venue-side') {
  await venueSide(Number(process.argv[3]));
} else if (process.argv[2] === 'commander') {
  commanderSide();
} else {
  // As the daemon's `run` does.
  tuneJitForTrading();
  const placements = PLACEMENTS.filter((p) => DEDICATED || p === 'shared');
  const runs: Record<Placement, Trial[][]> = { dedicated: [], shared: [] };
  let deferred = 0;
  for (let r = 0; r < RUNS; r++)
    for (const placement of placements) {
      const all = await run(200 + r, placement);
      runs[placement].push(all.filter((t) => !t.deferred));
      deferred += all.filter((t) => t.deferred).length;
    }
  placements.forEach((placement, i) => reportPlacement(i === 0 ? '' : `${placement}_`, runs[placement]));
  if (TRIALS_OUT !== undefined)
    writeFileSync(TRIALS_OUT, placements.flatMap((placement) => runs[placement].flat().map((t) => `${JSON.stringify({ placement, ...t })}\n`)).join(''));
  report(BENCH, 'backlog_frames', BACKLOG, 'frames');
  report(
    BENCH,
    'trials',
    placements.reduce((n, p) => n + runs[p].flat().length, 0),
    'trials',
  );
  report(BENCH, 'trials_deferred_cancel', deferred, 'trials');
  report(BENCH, 'dedicated_cpu', DEDICATED ? 1 : 0, 'bool');
  report(BENCH, 'event_loop_nice', NICE ?? getPriority(), 'nice');
  report(BENCH, 'venue_nice', VENUE_NICE, 'nice');
}

/** The metrics of one placement's runs (each run's trials), names starting with `prefix`. */
function reportPlacement(prefix: string, runs: Trial[][]): void {
  const per = (backlog: boolean, f: (dispatch: number[]) => number) =>
    median(runs.map((trials) => f(trials.filter((t) => t.backlog === backlog).map((t) => t.dispatchMs))));
  for (const backlog of [true, false]) {
    const name = `${prefix}cancel_dispatch${backlog ? '' : '_no_backlog'}`;
    report(
      BENCH,
      `${name}_p99_ms`,
      per(backlog, (d) => quantile(d, 0.99)),
      'ms',
    );
    report(BENCH, `${name}_p50_ms`, per(backlog, median), 'ms');
  }
  report(BENCH, `${prefix}backlog_drain_ms`, median(runs.map((trials) => median(trials.filter((t) => t.backlog).map((t) => t.drainMs)))), 'ms');
  const allTrials = runs.flat();
  for (const backlog of [true, false]) {
    const kills = allTrials.filter((t) => t.backlog === backlog);
    const which = backlog ? 'backlog' : 'no_backlog';
    PROBE_STEPS.forEach((step, i) => report(BENCH, `${prefix}kill_${step}_${which}_p50_ms`, median(kills.map((t) => t.stepsMs[i]!)), 'ms'));
    report(BENCH, `${prefix}commander_connect_call_${which}_p50_ms`, median(kills.map((t) => t.connectCallMs)), 'ms');
    report(BENCH, `${prefix}kills_during_gc_${which}`, kills.filter((t) => t.waitedForGc).length, 'trials');
    const waits = kills.flatMap((t) => (t.runQueueMs === undefined ? [] : [t.runQueueMs]));
    if (waits.length > 0) {
      report(BENCH, `${prefix}kill_runqueue_wait_${which}_p50_ms`, median(waits), 'ms');
      report(BENCH, `${prefix}kill_runqueue_wait_${which}_max_ms`, Math.max(...waits), 'ms');
      const own = kills.flatMap((t) => (t.runQueueMs === undefined ? [] : [t.dispatchMs - t.runQueueMs]));
      report(BENCH, `${prefix}cancel_dispatch_less_runqueue_${which}_p50_ms`, median(own), 'ms');
      report(BENCH, `${prefix}cancel_dispatch_less_runqueue_${which}_p99_ms`, quantile(own, 0.99), 'ms');
    }
  }
}
