// `perpbot compare --journal FILE --recording FILE [--config FILE] [--seed N] [--out DIR]`: backtests the daemon config
// over the recording the daemon made while trading live and compares the result with the journal, order by order.
// Invariants: the journal is only read (it must exist); the output folder holds the backtest's files, compare.json and
// report.html (the backtest's report opening with the comparison); compare.json's comparison is the plain structure
// compareRuns returns.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareRuns, NEAR_PRICE_BPS, type CompareFill, type CompareOrder, type Comparison, type MarkSample } from '../../backtest/compare.js';
import { openRecordings } from '../../backtest/data.js';
import type { RecordedEvent, RecordingReader } from '../../backtest/recording/events.js';
import { readRecording } from '../../backtest/recording/reader.js';
import { runBacktest } from '../../backtest/replay.js';
import { ResultsWriter, type RunDescription } from '../../backtest/results.js';
import { stringifyJson } from '../../core/json.js';
import { compareSection, DEFAULT_SECTIONS, fromBacktest, renderReport } from '../../report/index.js';
import { Journal } from '../../store/index.js';
import { parseCommand, required, seedOf, UsageError } from '../args.js';
import { checkDaemonConfig } from '../config/index.js';
import { backtestOptions, backtestSetup } from './backtest.js';
import { formatTable, type Row } from './table.js';

export const compareHelp = `perpbot compare --journal FILE --recording FILE [--config FILE] [--seed N] [--out DIR]

Backtests a daemon config over the market data the daemon recorded while it traded (its record:
section) and compares the backtest with what the journal says happened live (docs/backtest.md).
Orders pair up by the strategy's intent that placed them: the venue time of the data it was computed
from (the same in the recording), its place in the strategy's intent sequence, and the order's leg.
  --journal    the daemon's journal (journal.path)
  --recording  the recording the daemon wrote while trading (record.out)
  --config     the daemon config it ran with (default config/default.yaml)
  --seed       seed of the backtest (default 1)
  --out        output directory (default results/compare): the backtest's files, compare.json and report.html

Prints matched, live-only and simulated-only orders and fills, the time, price and queue-ahead
differences of the matched fills, a fill-probability calibration table by queue ahead, and the
distance between the two PnL curves.`;

/** Interval of the PnL curves' samples, ms of receive time. */
const MARK_INTERVAL_MS = 1000;

export interface CompareReport {
  readonly journal: string;
  readonly recording: string;
  readonly backtestDir: string;
  /** The recording's first and last receive times, epoch ns (decimal text: beyond JSON's exact integers). */
  readonly window: { readonly fromNs: string; readonly toNs: string };
  /** Live orders of the config's strategies placed outside the window (left out), and those no venue saw (refused locally). */
  readonly liveLeftOut: { readonly outsideWindow: number; readonly neverSent: number };
  readonly comparison: Comparison;
}

/** `open` reads one recording (default readRecording). */
export async function compare(argv: string[], out: (line: string) => void, open: (path: string) => RecordingReader = readRecording): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      journal: { type: 'string' },
      recording: { type: 'string' },
      config: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (values.help) {
    out(compareHelp);
    return 0;
  }
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const journal = required('journal', values.journal);
  const recording = required('recording', values.recording);
  const seed = seedOf(values.seed);
  const report = await compareLive({
    journal,
    recording,
    config: values.config ?? 'config/default.yaml',
    seed,
    out: values.out ?? join('results', 'compare'),
    open,
  });
  out(formatComparison(report));
  return 0;
}

export interface CompareOptions {
  journal: string;
  recording: string;
  config: string;
  seed: number;
  out: string;
  open?: (path: string) => RecordingReader;
}

/** Runs the backtest into `out`, compares it with the journal, writes `out`/compare.json and returns the report. */
export async function compareLive(opts: CompareOptions): Promise<CompareReport> {
  const journal = Journal.open(opts.journal, { mustExist: true });
  try {
    const { config, strategies } = await checkDaemonConfig(opts.config);
    const { collateralUsd, models } = backtestSetup(config);
    const run: RunDescription = {
      configHash: createHash('sha256').update(readFileSync(opts.config)).digest('hex'),
      seed: opts.seed,
      models,
      dataFiles: [opts.recording],
      equityIntervalMs: config.backtest.equityIntervalMs,
    };
    const data = openRecordings([opts.recording], opts.open ?? readRecording);
    const symbols = data.markets.map((m) => m.symbol);
    const writer = new ResultsWriter(opts.out, symbols);
    const simOrders: CompareOrder[] = [];
    const simFills: CompareFill[] = [];
    const marks = markSampler(MARK_INTERVAL_MS);
    const result = await runBacktest({
      ...backtestOptions(config, strategies),
      events: marks.tap(data.events),
      markets: data.markets,
      collateralUsd,
      seed: opts.seed,
      sink: {
        order(o, origin) {
          writer.order(o, origin);
          simOrders.push({
            orderId: o.id,
            strategy: origin?.strategy,
            symbol: o.m.symbol,
            side: o.side,
            price: o.price,
            size: o.size,
            filledSize: o.m.size(o.filledLots),
            status: o.status,
            timeNs: o.createdNs,
            intent: origin?.intent,
            queueAheadBase: o.aheadAtRest,
          });
        },
        fill(f, midUsd, queueAheadBase) {
          writer.fill(f, midUsd, queueAheadBase);
          simFills.push({ ...f, timeNs: f.venueTimeNs, queueAheadBase });
        },
        funding: (symbol, amountUsd, rate, timeNs) => writer.funding(symbol, amountUsd, rate, timeNs),
        denied: (e) => writer.denied(e),
        equity: (timeNs, equityUsd, positions, midsUsd) => writer.equity(timeNs, equityUsd, positions, midsUsd),
      },
    });
    writer.finish(result, run);
    const fromNs = result.firstEventNs ?? 0n;
    const toNs = result.lastEventNs ?? 0n;

    const names = new Set(strategies.map((s) => s.name));
    let outsideWindow = 0;
    let neverSent = 0;
    const liveOrders: CompareOrder[] = [];
    for (const o of journal.journaledOrders()) {
      if (o.strategy === undefined || !names.has(o.strategy)) continue;
      if (o.orderId.startsWith('local:')) neverSent++;
      else if (o.firstNs < fromNs || o.firstNs > toNs) outsideWindow++;
      else liveOrders.push({ ...o, timeNs: o.firstNs, intent: o.intent });
    }
    const ids = new Set(liveOrders.map((o) => o.orderId));
    const liveFills = journal
      .fills()
      .filter((f) => ids.has(f.orderId))
      .map((f): CompareFill => ({ orderId: f.orderId, symbol: f.symbol, side: f.side, price: f.price, size: f.size, feeUsd: f.feeUsd, timeNs: f.timeNs }));
    const comparison = compareRuns({ live: { orders: liveOrders, fills: liveFills }, sim: { orders: simOrders, fills: simFills }, marks: marks.samples });
    const report: CompareReport = {
      journal: opts.journal,
      recording: opts.recording,
      backtestDir: opts.out,
      window: { fromNs: fromNs.toString(), toNs: toNs.toString() },
      liveLeftOut: { outsideWindow, neverSent },
      comparison,
    };
    writeFileSync(join(opts.out, 'compare.json'), `${stringifyJson(report, 2)}\n`);
    writeFileSync(join(opts.out, 'report.html'), renderReport(fromBacktest(opts.out), [compareSection(comparison), ...DEFAULT_SECTIONS]));
    return report;
  } finally {
    journal.close();
  }
}

/** Samples the recorded mark price of each market (the ticker's, else the last trade's) every `intervalMs` of receive time. */
function markSampler(intervalMs: number): { tap(events: Iterable<RecordedEvent>): Iterable<RecordedEvent>; samples: MarkSample[] } {
  const samples: MarkSample[] = [];
  const latest: Record<string, number> = {};
  const stepNs = BigInt(Math.max(1, Math.round(intervalMs * 1e6)));
  let nextNs: bigint | undefined;
  let lastNs = 0n;
  return {
    samples,
    *tap(events) {
      for (const e of events) {
        nextNs ??= e.recvNs;
        while (e.recvNs >= nextNs) {
          if (Object.keys(latest).length > 0) samples.push({ timeNs: nextNs, marks: { ...latest } });
          nextNs += stepNs;
        }
        if (e.kind === 'ticker') latest[e.ticker.symbol] = e.ticker.markPrice;
        else if (e.kind === 'trade' && !(e.trade.symbol in latest)) latest[e.trade.symbol] = e.trade.price;
        lastNs = e.recvNs;
        yield e;
      }
      if (Object.keys(latest).length > 0) samples.push({ timeNs: lastNs, marks: { ...latest } });
    },
  };
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}

/** The report as terminal text: counts, matched-fill differences, calibration and the equity distance. */
export function formatComparison(r: CompareReport): string {
  const c = r.comparison;
  const o = c.orders;
  const f = c.fills;
  const near = o.matchedFilledNearPrice;
  const counts = [
    { what: 'orders', live: o.live, sim: o.sim, matched: o.matched, liveOnly: o.liveOnly, simOnly: o.simOnly },
    { what: 'fills', live: f.live, sim: f.sim, matched: f.matched, liveOnly: f.liveOnly.total, simOnly: f.simOnly.total },
  ];
  const diffs: Row[] = [
    { 'differences of pairs (sim − live)': 'fill time ms', ...c.fills.timeDiffMs },
    { 'differences of pairs (sim − live)': 'fill price USD', ...c.fills.priceDiffUsd },
    { 'differences of pairs (sim − live)': 'queue ahead at fill (sim), base', ...c.fills.queueAheadBase },
    { 'differences of pairs (sim − live)': 'order placed ms', ...c.orders.placedDiffMs },
    { 'differences of pairs (sim − live)': 'order price USD', ...c.orders.priceDiffUsd },
    { 'differences of pairs (sim − live)': 'intent number (live − sim)', ...c.orders.intentSeqDrift },
  ];
  const calibration = c.calibration.map((row, i) => {
    const near = c.calibrationNearPrice[i]!;
    return {
      'queue ahead at rest / size': row.bucket,
      pairs: row.orders,
      'predicted (sim filled)': pct(row.predicted),
      'observed (live filled)': pct(row.observed),
      [`pairs within ${NEAR_PRICE_BPS} bp`]: near.orders,
      predicted: pct(near.predicted),
      observed: pct(near.observed),
    };
  });
  return [
    `live versus backtest: ${r.backtestDir}/compare.json (backtest files beside it)`,
    formatTable(counts),
    `matched fills: ${pct(f.matchedShare)} of live fills; live-only fills: ${f.liveOnly.orderUnmatched} of unpaired orders, ${f.liveOnly.simFilledLess} the simulation did not make; ` +
      `simulated-only fills: ${f.simOnly.orderUnmatched} of unpaired orders, ${f.simOnly.liveFilledLess} live did not make`,
    `live orders no intent placed: ${o.liveWithoutIntent}, simulated: ${o.simWithoutIntent}; matched orders: ${o.matchedSamePrice} at the same price; filled in both ${o.matchedFilled.both}, live only ${o.matchedFilled.liveOnly}, sim only ${o.matchedFilled.simOnly}, neither ${o.matchedFilled.neither}` +
      `; within ${NEAR_PRICE_BPS} bp of each other: ${near.both + near.liveOnly + near.simOnly + near.neither} pairs, filled in both ${near.both}, live only ${near.liveOnly}, sim only ${near.simOnly}` +
      (r.liveLeftOut.outsideWindow > 0 ? `; ${r.liveLeftOut.outsideWindow} live orders outside the recording left out` : ''),
    formatTable(diffs),
    formatTable(calibration),
    `PnL curves (${c.equity.samples} samples): live ${c.equity.liveFinalPnlUsd} USD, sim ${c.equity.simFinalPnlUsd} USD; ` +
      `difference max ${c.equity.maxAbsDiffUsd} USD, RMS ${c.equity.rmsDiffUsd} USD, final ${c.equity.finalDiffUsd} USD`,
  ].join('\n');
}
