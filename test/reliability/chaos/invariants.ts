// The chaos suite's invariants: the bot's view (/status, journal) against every venue engine it traded on.
// Invariant: a state check reads the venue before and after /status and judges only samples where the venue did not change between.

import { Journal } from '../../../src/store/index.js';
import type { Engine } from '../../../src/venue-sim/engine/index.js';
import type { World } from './world.js';

export const INVARIANTS = [
  'venue-order-unknown-to-bot',
  'bot-order-missing-on-venue',
  'order-placed-twice',
  'nonce-refused',
  'position-differs',
  'journal-fills-differ',
  'unhandled-error',
  'recovery-bound',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Finding {
  readonly invariant: Invariant;
  readonly detail: string;
}

interface BotStatus {
  accounts: {
    account: string;
    trading: { state: string; reason: string };
    strategies: { name: string; state: string }[];
    openOrders: { orderId: string | null; symbol: string; side: string; price: number | null; size: number; status: string }[];
    positions: { symbol: string; size: number }[];
  }[];
}

/** Sizes closer than this (base units) are equal (float residue of summed fills). */
const SAME_SIZE = 1e-9;

/** One consistent sample: its findings, and whether the bot is trading (ACTIVE, strategies running, quotes resting). */
export interface StateSample {
  readonly findings: Finding[];
  readonly trading: boolean;
  /** What the bot's trading looks like, for a finding when it is not trading. */
  readonly notTrading?: string;
}

function venueView(engine: Engine, account: string) {
  const open = engine.openOrders(account);
  const positions = engine.fullAccount(account).positions.filter((p) => Math.abs(p.size) > SAME_SIZE);
  const fills = engine.fills(account).length;
  const key = `${open.map((o) => `${o.orderId}:${o.filledSize}`).join(',')}|${positions.map((p) => `${p.coin}:${p.size}`).join(',')}|${fills}`;
  return { open, positions, key };
}

/** A fill as `orderId|side|price|size` (numbers to 12 significant digits: the wire's decimals and the engine's may differ in float residue). */
function fillKey(orderId: string, side: string, price: number, size: number): string {
  return `${orderId}|${side}|${+price.toPrecision(12)}|${+size.toPrecision(12)}`;
}

/** The fills of `account` on `engine` in the bot's terms, as fillKey()s. */
function venueFillKeys(engine: Engine, account: string): string[] {
  return engine.fills(account).map((f) => {
    const maker = f.maker === account;
    const side = maker === f.isBuy ? 'sell' : 'buy';
    return fillKey(maker ? f.orderIdMaker : f.orderIdTaker, side, f.price, f.amount);
  });
}

function multisetDiff(a: readonly string[], b: readonly string[]): { onlyA: string[]; onlyB: string[] } {
  const counts = new Map<string, number>();
  for (const k of a) counts.set(k, (counts.get(k) ?? 0) + 1);
  for (const k of b) counts.set(k, (counts.get(k) ?? 0) - 1);
  const onlyA: string[] = [];
  const onlyB: string[] = [];
  for (const [k, n] of counts) for (let i = 0; i < Math.abs(n); i++) (n > 0 ? onlyA : onlyB).push(k);
  return { onlyA, onlyB };
}

/**
 * Journal reads (incremental over batches): which journaled batch carried each predicted order id. One connection for the
 * run, opened after the daemon created the file: closing checkpoints the WAL, which must not race the daemon's writes.
 */
export class JournalReader {
  private nextBatchId = 1;
  private readonly batchOf = new Map<string, number>();
  private readonly twice: string[] = [];
  private readonly journal: Journal;

  constructor(path: string) {
    this.journal = Journal.open(path, { mustExist: true });
  }

  /** Call once no daemon writes any more. */
  close(): void {
    this.journal.close();
  }

  fillKeys(account: string): string[] {
    return this.journal
      .fills()
      .filter((f) => f.account === account)
      .map((f) => fillKey(f.orderId, f.side, f.price, f.size));
  }

  /** Reads the batches journaled since the last call; returns order ids found in more than one batch so far. */
  batches(): { batchOf: ReadonlyMap<string, number>; twice: readonly string[] } {
    for (let row = this.journal.batch(this.nextBatchId); row; row = this.journal.batch(++this.nextBatchId))
      for (const id of row.orderIds) {
        if (id === null) continue;
        const first = this.batchOf.get(id);
        if (first !== undefined) this.twice.push(`order id ${id} is in journaled batches ${first} and ${row.id}`);
        else this.batchOf.set(id, row.id);
      }
    return { batchOf: this.batchOf, twice: this.twice };
  }
}

/** Reads one sample; undefined when the venue changed while /status was read (judge another). */
export async function sampleState(world: World, journal: JournalReader): Promise<StateSample | undefined> {
  const engine = world.venue.engine;
  const before = venueView(engine, world.account);
  let status: BotStatus;
  try {
    const res = await fetch(`${world.daemon.base}/status`, { signal: AbortSignal.timeout(2000) });
    status = (await res.json()) as BotStatus;
  } catch (e) {
    return { findings: [{ invariant: 'recovery-bound', detail: `/status unreadable: ${(e as Error).message}` }], trading: false };
  }
  const after = venueView(engine, world.account);
  if (before.key !== after.key) return undefined;
  const bot = status.accounts.find((a) => a.account === world.account)!;
  const findings: Finding[] = [];
  const botIds = new Set(bot.openOrders.map((o) => o.orderId));
  const venueIds = new Set(after.open.map((o) => o.orderId));
  for (const o of after.open)
    if (!botIds.has(o.orderId))
      findings.push({
        invariant: 'venue-order-unknown-to-bot',
        detail: `${o.orderId} ${o.symbol} ${o.isBuy ? 'buy' : 'sell'} ${o.size}@${o.price} rests on the venue`,
      });
  for (const o of bot.openOrders)
    if (o.orderId === null || !venueIds.has(o.orderId))
      findings.push({
        invariant: 'bot-order-missing-on-venue',
        detail: `${o.orderId ?? '(no id)'} ${o.symbol} ${o.side} ${o.size}@${o.price} is ${o.status} for the bot`,
      });
  const byIntent = new Map<string, string[]>();
  for (const o of after.open) {
    const intent = `${o.symbol} ${o.isBuy ? 'buy' : 'sell'} @${o.price}`;
    byIntent.set(intent, [...(byIntent.get(intent) ?? []), o.orderId]);
  }
  for (const [intent, ids] of byIntent)
    if (ids.length > 1) findings.push({ invariant: 'order-placed-twice', detail: `${ids.length} resting orders ${intent}: ${ids.join(', ')}` });
  const botPositions = new Map(bot.positions.filter((p) => Math.abs(p.size) > SAME_SIZE).map((p) => [p.symbol, p.size]));
  const venuePositions = new Map(after.positions.map((p) => [p.coin, p.size]));
  for (const symbol of new Set([...botPositions.keys(), ...venuePositions.keys()])) {
    const [b, v] = [botPositions.get(symbol) ?? 0, venuePositions.get(symbol) ?? 0];
    if (Math.abs(b - v) > SAME_SIZE) findings.push({ invariant: 'position-differs', detail: `${symbol}: bot ${b}, venue ${v}` });
  }
  const { onlyA: onlyJournal, onlyB: onlyVenue } = multisetDiff(
    journal.fillKeys(world.account),
    world.engines.flatMap((e) => venueFillKeys(e, world.account)),
  );
  if (onlyJournal.length + onlyVenue.length > 0)
    findings.push({
      invariant: 'journal-fills-differ',
      detail: `journal only: ${onlyJournal.length} [${onlyJournal.slice(0, 3).join('; ')}], venue only: ${onlyVenue.length} [${onlyVenue.slice(0, 3).join('; ')}]`,
    });
  const trading = bot.trading.state === 'ACTIVE' && bot.strategies.every((s) => s.state === 'running') && after.open.length > 0;
  const notTrading = `trading ${bot.trading.state} (${bot.trading.reason}), strategies ${bot.strategies.map((s) => `${s.name} ${s.state}`).join(', ')}, ${after.open.length} quotes resting`;
  return { findings, trading, notTrading };
}

/**
 * Polls samples until one has no finding and the bot trades, or `boundMs` passes; returns the time it took (with what
 * the last sample before it still found: what recovery waited for) or the last findings.
 */
export async function untilRecovered(
  world: World,
  journal: JournalReader,
  boundMs: number,
): Promise<{ recoveredMs: number; waitedFor: Finding[] } | { findings: Finding[] }> {
  const started = Date.now();
  let last: Finding[] = [];
  for (;;) {
    const s = await sampleState(world, journal);
    if (s) {
      if (s.findings.length === 0 && s.trading) return { recoveredMs: Date.now() - started, waitedFor: last };
      last = s.trading ? s.findings : [...s.findings, { invariant: 'recovery-bound', detail: `the bot is not trading: ${s.notTrading}` }];
    }
    if (Date.now() - started > boundMs) return { findings: last.length > 0 ? last : [{ invariant: 'recovery-bound', detail: 'no consistent sample' }] };
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The daemon's log lines (JSON, on stderr) at level error or fatal, and any other stderr line. */
function errorLines(stderr: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of stderr) {
    if (line.trim() === '') continue;
    let level: number | undefined;
    try {
      level = (JSON.parse(line) as { level?: number }).level;
    } catch {
      out.push(`stderr: ${line}`);
      continue;
    }
    if (level === undefined || level >= 50) out.push(line);
  }
  return out;
}

/** Checks whose breaches do not heal (so they are read once per fault): journal order ids, nonces, errors, exits. */
export class CumulativeChecks {
  private nonceSeen = 0;
  private readonly linesSeen = new Map<number, number>();
  private readonly exitsSeen = new Set<number>();
  private venueErrorsSeen = 0;
  private twiceSeen = 0;
  private readonly unjournaled = new Set<string>();

  constructor(
    private readonly world: World,
    private readonly journal: JournalReader,
  ) {}

  async run(): Promise<Finding[]> {
    const w = this.world;
    const findings: Finding[] = [];
    const { batchOf, twice } = this.journal.batches();
    for (const t of twice.slice(this.twiceSeen)) findings.push({ invariant: 'order-placed-twice', detail: t });
    this.twiceSeen = twice.length;
    for (const engine of w.engines)
      for (const id of [...engine.openOrders(w.account), ...engine.orderHistory(w.account)].map((o) => o.orderId))
        if (!batchOf.has(id) && !this.unjournaled.has(id)) {
          this.unjournaled.add(id);
          findings.push({ invariant: 'order-placed-twice', detail: `venue order ${id} is in no journaled batch` });
        }
    for (const r of w.proxy.nonceRefusals.slice(this.nonceSeen)) findings.push({ invariant: 'nonce-refused', detail: r });
    this.nonceSeen = w.proxy.nonceRefusals.length;
    for (const [i, d] of w.daemons.entries()) {
      for (const l of errorLines(d.process.stderr.slice(this.linesSeen.get(i) ?? 0)))
        findings.push({ invariant: 'unhandled-error', detail: `daemon ${i}: ${l.slice(0, 400)}` });
      this.linesSeen.set(i, d.process.stderr.length);
      const exit = d.process.child.exitCode ?? d.process.child.signalCode;
      if (exit !== null && !d.killedOnPurpose && !this.exitsSeen.has(i)) {
        this.exitsSeen.add(i);
        findings.push({ invariant: 'unhandled-error', detail: `daemon ${i} exited (${exit}) on its own` });
      }
    }
    for (const e of w.venueErrors.slice(this.venueErrorsSeen))
      findings.push({ invariant: 'unhandled-error', detail: `venue internal error: ${e.slice(0, 400)}` });
    this.venueErrorsSeen = w.venueErrors.length;
    return findings;
  }
}
