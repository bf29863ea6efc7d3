// The live-versus-backtest section of a report: the comparison of `perpbot compare` (orders and fills paired, the
// differences of the pairs, the fill-probability calibration, the distance of the PnL curves) as tables.
// Invariant: renders only what the comparison holds (the terminal text and compare.json carry the same figures).

import { type Comparison, NEAR_PRICE_BPS, type Stats } from '../backtest/compare.js';
import { type SectionBuilder, table } from './html.js';

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

function statsRow(what: string, s: Stats): string[] {
  return [what, String(s.count), String(s.median), String(s.mean), String(s.p90Abs), String(s.min), String(s.max)];
}

/** A section builder of `c` (the report's data is not used: the comparison is its own). */
export function compareSection(c: Comparison): SectionBuilder {
  return () => {
    const o = c.orders;
    const f = c.fills;
    const counts = table(
      ['', 'live', 'simulated', 'paired', 'live only', 'simulated only'],
      [
        ['orders', o.live, o.sim, o.matched, o.liveOnly, o.simOnly].map(String),
        ['fills', f.live, f.sim, f.matched, f.liveOnly.total, f.simOnly.total].map(String),
      ],
      [false, true, true, true, true, true],
    );
    const unpaired = table(
      ['unpaired fills', 'of an unpaired order', 'of a pair the other side did not fill'],
      [
        ['live only', String(f.liveOnly.orderUnmatched), String(f.liveOnly.simFilledLess)],
        ['simulated only', String(f.simOnly.orderUnmatched), String(f.simOnly.liveFilledLess)],
      ],
      [false, true, true],
    );
    const filledBy = (label: string, b: Comparison['orders']['matchedFilled']) => [label, b.both, b.liveOnly, b.simOnly, b.neither].map(String);
    const pairs = table(
      ['paired orders', 'filled in both', 'live only', 'simulated only', 'neither'],
      [filledBy('all pairs', o.matchedFilled), filledBy(`within ${NEAR_PRICE_BPS} bp of each other`, o.matchedFilledNearPrice)],
      [false, true, true, true, true],
    );
    const diffs = table(
      ['differences of pairs (simulated − live)', 'count', 'median', 'mean', '|p90|', 'min', 'max'],
      [
        statsRow('fill time, ms', f.timeDiffMs),
        statsRow('fill price, USD', f.priceDiffUsd),
        statsRow('queue ahead at fill (simulated), base', f.queueAheadBase),
        statsRow('order placed, ms', o.placedDiffMs),
        statsRow('order price, USD', o.priceDiffUsd),
        statsRow('intent number (live − simulated)', o.intentSeqDrift),
      ],
      [false, true, true, true, true, true, true],
    );
    const calibration = table(
      [
        'queue ahead at rest / size',
        'pairs',
        'predicted (simulation filled)',
        'observed (live filled)',
        `pairs within ${NEAR_PRICE_BPS} bp`,
        'predicted',
        'observed',
      ],
      c.calibration.map((row, i) => {
        const near = c.calibrationNearPrice[i]!;
        return [row.bucket, String(row.orders), pct(row.predicted), pct(row.observed), String(near.orders), pct(near.predicted), pct(near.observed)];
      }),
      [false, true, true, true, true, true, true],
    );
    const e = c.equity;
    const equity = table(
      ['PnL curves (both sides marked alike), USD', 'value'],
      [
        ['live final', String(e.liveFinalPnlUsd)],
        ['simulated final', String(e.simFinalPnlUsd)],
        ['largest difference', String(e.maxAbsDiffUsd)],
        ['RMS difference', String(e.rmsDiffUsd)],
        ['final difference', String(e.finalDiffUsd)],
        ['samples', String(e.samples)],
      ],
      [false, true],
    );
    return {
      title: 'Live versus backtest',
      html:
        `<p>${pct(f.matchedShare)} of live fills paired with a simulated one; orders are paired by strategy, intent data time, market, side and leg.</p>` +
        `${counts}${unpaired}${pairs}<h3>Differences of the pairs</h3>${diffs}<h3>Fill probability by queue ahead</h3>${calibration}<h3>PnL curves</h3>${equity}`,
    };
  };
}
