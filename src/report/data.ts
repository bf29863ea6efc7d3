// The report's one input shape, whatever the source (a backtest result folder or a live journal): time series, own
// fills, the PnL split, orders and the summary and per-symbol tables.
// Invariants: times are epoch ms; every series is sorted by time; USD amounts are signed as received (fees paid > 0).

import type { Side } from '../core/intent.js';
import type { ReportRow } from '../store/index.js';

/** One sample of a time series. */
export interface Point {
  /** Epoch ms. */
  readonly tMs: number;
  readonly v: number;
}

/** A series of one market. */
export interface SymbolSeries {
  readonly symbol: string;
  readonly points: readonly Point[];
}

/** One of the bot's own fills. */
export interface OwnFill {
  /** Epoch ms. */
  readonly tMs: number;
  readonly symbol: string;
  readonly side: Side;
  /** USD */
  readonly price: number;
  /** Base units. */
  readonly size: number;
}

/** The PnL split; spread + inventory − fees + funding = total. */
export interface PnlParts {
  /** USD earned against the reference price at each fill. */
  readonly spreadCaptureUsd: number;
  /** USD paid in fees (negative: rebates). */
  readonly feesUsd: number;
  /** USD received in funding (negative: paid). */
  readonly fundingUsd: number;
  /** USD from holding inventory while the price moved. */
  readonly inventoryUsd: number;
  readonly totalUsd: number;
  /** What the reference price was (one sentence, shown under the chart). */
  readonly basis: string;
}

/** One order as placed: when, and whether anything of it filled. */
export interface OrderMark {
  /** Epoch ms. */
  readonly tMs: number;
  readonly filled: boolean;
}

export interface ReportData {
  readonly title: string;
  /** One line naming the source (result folder or journal path) and its time range. */
  readonly subtitle: string;
  /** Equity (a backtest: USD at the mark) or PnL since the first event (a journal), USD. */
  readonly equity: { readonly label: string; readonly points: readonly Point[] };
  /** Signed position per symbol, base units. */
  readonly positions: readonly SymbolSeries[];
  /** Reference price per symbol, USD; `priceLabel` says which price. */
  readonly prices: readonly SymbolSeries[];
  readonly priceLabel: string;
  readonly fills: readonly OwnFill[];
  readonly pnl: PnlParts;
  readonly orders: readonly OrderMark[];
  /** Key figures, in display order. */
  readonly summary: readonly { readonly label: string; readonly value: string }[];
  /** One row per strategy and symbol (the rows of `perpbot report`). */
  readonly symbols: readonly ReportRow[];
}
