// Live versus backtest: pairs the orders a strategy placed live (the journal) with those it placed in a backtest over the
// recording of the same session, by the intent that placed them, and measures where the simulation diverged.
// Invariants: pure (plain data in, one plain JSON-ready structure out); orders pair only on strategy, the intent's data
// time, market, side and leg (intents with the same data time in intent-number order); the fills of a pair pair in
// time order; both equity curves are marked at the same prices.

import type { IntentRef, Side } from '../core/intent.js';

/** One order of either side. */
export interface CompareOrder {
  readonly orderId: string;
  readonly strategy: string | undefined;
  readonly symbol: string;
  readonly side: Side;
  /** USD */
  readonly price: number;
  /** Base units */
  readonly size: number;
  readonly filledSize: number;
  readonly status: string;
  /** When it was placed, epoch ns (live: when execution sent it; simulated: when it reached the exchange). */
  readonly timeNs: bigint;
  readonly intent: IntentRef | undefined;
  /** Simulated only: the recorded size ahead of it when it came to rest (undefined: it never rested). */
  readonly queueAheadBase?: number | undefined;
}

/** One fill of either side. */
export interface CompareFill {
  readonly orderId: string;
  readonly symbol: string;
  readonly side: Side;
  readonly price: number;
  readonly size: number;
  readonly feeUsd: number;
  /** The venue's (or the simulated exchange's) time of the fill, epoch ns. */
  readonly timeNs: bigint;
  /** Simulated only: the recorded size ahead of the order when it filled. */
  readonly queueAheadBase?: number | undefined;
}

/** The mark price per symbol at a time (USD), where both equity curves are evaluated. */
export interface MarkSample {
  readonly timeNs: bigint;
  readonly marks: Readonly<Record<string, number>>;
}

export interface CompareInput {
  readonly live: { readonly orders: readonly CompareOrder[]; readonly fills: readonly CompareFill[] };
  readonly sim: { readonly orders: readonly CompareOrder[]; readonly fills: readonly CompareFill[] };
  readonly marks: readonly MarkSample[];
}

export interface Stats {
  readonly count: number;
  readonly mean: number;
  readonly median: number;
  /** 90th percentile of the absolute values. */
  readonly p90Abs: number;
  readonly min: number;
  readonly max: number;
}

/** One row of the fill-probability calibration: matched orders that rested in the simulation, by queue ahead at rest. */
export interface CalibrationRow {
  /** Queue ahead at rest in multiples of the order's size: from (exclusive, except the 0 bucket) to (inclusive). */
  readonly bucket: string;
  readonly orders: number;
  /** Share of them the simulation filled (at least partly). */
  readonly predicted: number;
  /** Share of them filled live (at least partly). */
  readonly observed: number;
}

export interface FilledBy {
  readonly both: number;
  readonly liveOnly: number;
  readonly simOnly: number;
  readonly neither: number;
}

export interface Comparison {
  readonly orders: {
    readonly live: number;
    readonly sim: number;
    readonly matched: number;
    /** Live minus simulated intent number of the pairs: how far the two numberings drifted apart. */
    readonly intentSeqDrift: Stats;
    /** Live orders no simulated order pairs with; of them, those no intent placed (adopted, closing, resent quotes). */
    readonly liveOnly: number;
    readonly liveWithoutIntent: number;
    readonly simOnly: number;
    readonly simWithoutIntent: number;
    /** Pairs at the same price. */
    readonly matchedSamePrice: number;
    /** Simulated minus live price of the pairs, USD. */
    readonly priceDiffUsd: Stats;
    /** Pairs by who filled them (at least partly). */
    readonly matchedFilled: FilledBy;
    /**
     * The same for the pairs within NEAR_PRICE_BPS of each other: where both quoted (nearly) alike, a difference is the
     * fill model's; elsewhere it mostly follows from the price difference (a quote nearer the mid fills more often).
     */
    readonly matchedFilledNearPrice: FilledBy;
    /** Simulated minus live placement time of the pairs, ms. */
    readonly placedDiffMs: Stats;
  };
  readonly fills: {
    readonly live: number;
    readonly sim: number;
    readonly matched: number;
    /** matched / live fills. */
    readonly matchedShare: number;
    /** Live fills without a simulated partner: of an unpaired order, or of a pair the simulation filled less often. */
    readonly liveOnly: { readonly total: number; readonly orderUnmatched: number; readonly simFilledLess: number };
    readonly simOnly: { readonly total: number; readonly orderUnmatched: number; readonly liveFilledLess: number };
    /** Simulated minus live, over the paired fills. */
    readonly timeDiffMs: Stats;
    readonly priceDiffUsd: Stats;
    /** The simulated queue ahead at fill of the paired fills, base units. */
    readonly queueAheadBase: Stats;
  };
  readonly calibration: readonly CalibrationRow[];
  /** The same over the pairs within NEAR_PRICE_BPS of each other (the fill model's own calibration). */
  readonly calibrationNearPrice: readonly CalibrationRow[];
  /** PnL curves (USD, from 0) of both sides' fills marked at the same prices; live minus simulated. */
  readonly equity: {
    readonly samples: number;
    readonly liveFinalPnlUsd: number;
    readonly simFinalPnlUsd: number;
    readonly finalDiffUsd: number;
    readonly maxAbsDiffUsd: number;
    readonly rmsDiffUsd: number;
  };
}

/** Pairs priced within this many basis points of each other count as quoting alike (matchedFilledNearPrice). */
export const NEAR_PRICE_BPS = 0.5;

/** Queue ahead at rest / order size: bucket upper bounds (the first bucket holds exactly 0). */
const CALIBRATION_BOUNDS = [0, 1, 3, 10, 30, Number.POSITIVE_INFINITY];

const NS_PER_MS = 1e6;

/** Orders of one intent, market, side and leg: the intent is known by its data time (IntentRef). */
function pairKey(o: CompareOrder): string | undefined {
  return o.intent === undefined ? undefined : `${o.strategy ?? ''}|${o.intent.dataTimeMs}|${o.symbol}|${o.side}|${o.intent.leg}`;
}

const bySeq = (a: CompareOrder, b: CompareOrder) => a.intent!.seq - b.intent!.seq;
const byTime = (a: CompareFill, b: CompareFill) => (a.timeNs < b.timeNs ? -1 : a.timeNs > b.timeNs ? 1 : 0);

/** Summary statistics of `values` (all zero when empty). */
export function stats(values: readonly number[]): Stats {
  if (values.length === 0) return { count: 0, mean: 0, median: 0, p90Abs: 0, min: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const abs = values.map(Math.abs).sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return {
    count: values.length,
    mean: round(values.reduce((a, b) => a + b, 0) / values.length),
    median: round(sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2),
    p90Abs: round(abs[Math.min(abs.length - 1, Math.ceil(0.9 * abs.length) - 1)]!),
    min: round(sorted[0]!),
    max: round(sorted[sorted.length - 1]!),
  };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function byOrder(fills: readonly CompareFill[]): Map<string, CompareFill[]> {
  const map = new Map<string, CompareFill[]>();
  for (const f of [...fills].sort(byTime)) {
    let list = map.get(f.orderId);
    if (!list) map.set(f.orderId, (list = []));
    list.push(f);
  }
  return map;
}

/** Compares a live session with its backtest (see Comparison). */
export function compareRuns(input: CompareInput): Comparison {
  const { live, sim } = input;
  const simByKey = new Map<string, CompareOrder[]>();
  for (const o of sim.orders.filter((x) => x.intent !== undefined).sort(bySeq)) {
    const key = pairKey(o)!;
    const list = simByKey.get(key);
    if (list) list.push(o);
    else simByKey.set(key, [o]);
  }
  const pairs: [CompareOrder, CompareOrder][] = [];
  const pairedSim = new Set<string>();
  for (const o of live.orders.filter((x) => x.intent !== undefined).sort(bySeq)) {
    const s = simByKey.get(pairKey(o)!)?.shift();
    if (s === undefined) continue;
    pairs.push([o, s]);
    pairedSim.add(s.orderId);
  }
  const pairedLive = new Set(pairs.map(([l]) => l.orderId));
  const liveFills = byOrder(live.fills);
  const simFills = byOrder(sim.fills);

  const timeDiffMs: number[] = [];
  const priceDiffUsd: number[] = [];
  const queueAhead: number[] = [];
  let liveFilledLess = 0;
  let simFilledLess = 0;
  const filled = { both: 0, liveOnly: 0, simOnly: 0, neither: 0 };
  const filledNear = { both: 0, liveOnly: 0, simOnly: 0, neither: 0 };
  let samePrice = 0;
  const placedDiffMs: number[] = [];
  const orderPriceDiffUsd: number[] = [];
  const rated: RatedPair[] = [];
  const ratedNear: RatedPair[] = [];
  for (const [l, s] of pairs) {
    if (Math.abs(l.price - s.price) < 1e-9 * Math.max(1, Math.abs(l.price))) samePrice++;
    orderPriceDiffUsd.push(s.price - l.price);
    placedDiffMs.push(Number(s.timeNs - l.timeNs) / NS_PER_MS);
    const lf = liveFills.get(l.orderId) ?? [];
    const sf = simFills.get(s.orderId) ?? [];
    const lFilled = lf.length > 0 || l.filledSize > 0;
    const sFilled = sf.length > 0 || s.filledSize > 0;
    const pair = { sim: s, liveFilled: lFilled, simFilled: sFilled };
    rated.push(pair);
    tally(filled, lFilled, sFilled);
    if (Math.abs(s.price - l.price) <= NEAR_PRICE_BPS * 1e-4 * l.price) {
      ratedNear.push(pair);
      tally(filledNear, lFilled, sFilled);
    }
    const n = Math.min(lf.length, sf.length);
    for (let i = 0; i < n; i++) {
      timeDiffMs.push(Number(sf[i]!.timeNs - lf[i]!.timeNs) / NS_PER_MS);
      priceDiffUsd.push(sf[i]!.price - lf[i]!.price);
      queueAhead.push(sf[i]!.queueAheadBase ?? 0);
    }
    simFilledLess += lf.length - n;
    liveFilledLess += sf.length - n;
  }
  const matchedFills = timeDiffMs.length;
  const liveOrderUnmatched = live.fills.filter((f) => !pairedLive.has(f.orderId)).length;
  const simOrderUnmatched = sim.fills.filter((f) => !pairedSim.has(f.orderId)).length;

  return {
    orders: {
      live: live.orders.length,
      sim: sim.orders.length,
      matched: pairs.length,
      intentSeqDrift: stats(pairs.map(([l, s]) => l.intent!.seq - s.intent!.seq)),
      liveOnly: live.orders.length - pairs.length,
      liveWithoutIntent: live.orders.filter((o) => o.intent === undefined).length,
      simOnly: sim.orders.length - pairs.length,
      simWithoutIntent: sim.orders.filter((o) => o.intent === undefined).length,
      matchedSamePrice: samePrice,
      priceDiffUsd: stats(orderPriceDiffUsd),
      matchedFilled: filled,
      matchedFilledNearPrice: filledNear,
      placedDiffMs: stats(placedDiffMs),
    },
    fills: {
      live: live.fills.length,
      sim: sim.fills.length,
      matched: matchedFills,
      matchedShare: live.fills.length > 0 ? round(matchedFills / live.fills.length) : 0,
      liveOnly: { total: live.fills.length - matchedFills, orderUnmatched: liveOrderUnmatched, simFilledLess },
      simOnly: { total: sim.fills.length - matchedFills, orderUnmatched: simOrderUnmatched, liveFilledLess },
      timeDiffMs: stats(timeDiffMs),
      priceDiffUsd: stats(priceDiffUsd),
      queueAheadBase: stats(queueAhead),
    },
    calibration: calibration(rated),
    calibrationNearPrice: calibration(ratedNear),
    equity: equityDistance(live.fills, sim.fills, input.marks),
  };
}

function tally(by: { -readonly [K in keyof FilledBy]: number }, live: boolean, sim: boolean): void {
  if (live && sim) by.both++;
  else if (live) by.liveOnly++;
  else if (sim) by.simOnly++;
  else by.neither++;
}

/** A pair and who filled it (at least partly). */
interface RatedPair {
  readonly sim: CompareOrder;
  readonly liveFilled: boolean;
  readonly simFilled: boolean;
}

function calibration(pairs: readonly RatedPair[]): CalibrationRow[] {
  const rows = CALIBRATION_BOUNDS.map(() => ({ orders: 0, simFilled: 0, liveFilled: 0 }));
  for (const p of pairs) {
    if (p.sim.queueAheadBase === undefined) continue;
    const ratio = p.sim.queueAheadBase / p.sim.size;
    const row = rows[CALIBRATION_BOUNDS.findIndex((b) => ratio <= b)]!;
    row.orders++;
    if (p.simFilled) row.simFilled++;
    if (p.liveFilled) row.liveFilled++;
  }
  return rows.map((r, i) => ({
    bucket: i === 0 ? '0' : `${CALIBRATION_BOUNDS[i - 1]}–${Number.isFinite(CALIBRATION_BOUNDS[i]!) ? CALIBRATION_BOUNDS[i] : '∞'}`,
    orders: r.orders,
    predicted: r.orders > 0 ? round(r.simFilled / r.orders) : 0,
    observed: r.orders > 0 ? round(r.liveFilled / r.orders) : 0,
  }));
}

/** PnL of `fills` at each mark sample: cash (minus fees) plus positions at the marks. */
function pnlCurve(fills: readonly CompareFill[], marks: readonly MarkSample[]): number[] {
  const sorted = [...fills].sort(byTime);
  const positions = new Map<string, number>();
  let cash = 0;
  let next = 0;
  return marks.map((m) => {
    for (; next < sorted.length && sorted[next]!.timeNs <= m.timeNs; next++) {
      const f = sorted[next]!;
      const signed = f.side === 'buy' ? f.size : -f.size;
      positions.set(f.symbol, (positions.get(f.symbol) ?? 0) + signed);
      cash -= signed * f.price + f.feeUsd;
    }
    let value = cash;
    for (const [symbol, size] of positions) value += size * (m.marks[symbol] ?? 0);
    return value;
  });
}

function equityDistance(live: readonly CompareFill[], sim: readonly CompareFill[], marks: readonly MarkSample[]): Comparison['equity'] {
  const l = pnlCurve(live, marks);
  const s = pnlCurve(sim, marks);
  let maxAbs = 0;
  let squares = 0;
  for (let i = 0; i < l.length; i++) {
    const d = l[i]! - s[i]!;
    maxAbs = Math.max(maxAbs, Math.abs(d));
    squares += d * d;
  }
  const last = l.length - 1;
  return {
    samples: l.length,
    liveFinalPnlUsd: round(last >= 0 ? l[last]! : 0),
    simFinalPnlUsd: round(last >= 0 ? s[last]! : 0),
    finalDiffUsd: round(last >= 0 ? l[last]! - s[last]! : 0),
    maxAbsDiffUsd: round(maxAbs),
    rmsDiffUsd: round(l.length > 0 ? Math.sqrt(squares / l.length) : 0),
  };
}
