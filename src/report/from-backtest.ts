// ReportData from a backtest result folder (summary.json, equity.csv, trades.csv, orders.csv, funding.csv).
// Invariants: reads only; the result depends only on the files' bytes (not on the folder's path); spread capture is measured against the recorded
// book's mid price at each fill, and inventory is the rest of the PnL after spread, fees and funding.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCsv, type Summary } from '../backtest/results.js';
import { ValidationError } from '../core/errors.js';
import { buildReport, type ReportFill, type ReportOrder } from '../store/index.js';
import type { OwnFill, Point, ReportData, SymbolSeries } from './data.js';
import { rangeText } from './html.js';

/** The strategy column of a backtest's per-symbol rows (its results do not say which strategy placed an order). */
export const BACKTEST_STRATEGIES = 'all strategies';

const nsToMs = (ns: string) => Number(BigInt(ns) / 1_000n) / 1_000;

/** Reads the result folder `dir`; throws ValidationError naming the file when summary.json is missing or not JSON. */
export function fromBacktest(dir: string): ReportData {
  const summaryPath = join(dir, 'summary.json');
  let s: Summary;
  try {
    s = JSON.parse(readFileSync(summaryPath, 'utf8')) as Summary;
  } catch (e) {
    throw new ValidationError(summaryPath, `not a backtest summary: ${(e as Error).message}`, { cause: e });
  }
  const equityRows = readCsv(join(dir, 'equity.csv'));
  const trades = readCsv(join(dir, 'trades.csv'));
  const orders = readCsv(join(dir, 'orders.csv'));
  const funding = readCsv(join(dir, 'funding.csv'));
  const symbols = Object.keys(equityRows[0] ?? {})
    .filter((k) => k.startsWith('position_'))
    .map((k) => k.slice('position_'.length));

  const equity: Point[] = equityRows.map((r) => ({ tMs: nsToMs(r.time_ns!), v: Number(r.equity_usd) }));
  const fills: OwnFill[] = trades.map((t) => ({
    tMs: nsToMs(t.time_ns!),
    symbol: t.symbol!,
    side: t.side === 'buy' ? 'buy' : 'sell',
    price: Number(t.price),
    size: Number(t.size),
  }));
  const startMs = equity[0]?.tMs;
  const endMs = equity.at(-1)?.tMs;

  const prices: SymbolSeries[] = symbols.map((symbol) => {
    const sampled = equityRows.map((r) => ({ tMs: nsToMs(r.time_ns!), v: Number(r[`mid_${symbol}`]) }));
    const atFills = trades.filter((t) => t.symbol === symbol).map((t) => ({ tMs: nsToMs(t.time_ns!), v: Number(t.mid) }));
    return { symbol, points: [...sampled, ...atFills].filter((p) => p.v > 0).sort((a, b) => a.tMs - b.tMs) };
  });
  const positions: SymbolSeries[] = symbols.map((symbol) => {
    let size = 0;
    const points: Point[] = startMs === undefined ? [] : [{ tMs: startMs, v: 0 }];
    for (const f of fills) {
      if (f.symbol !== symbol) continue;
      size += f.side === 'buy' ? f.size : -f.size;
      points.push({ tMs: f.tMs, v: size });
    }
    if (endMs !== undefined && points.length > 0) points.push({ tMs: endMs, v: size });
    return { symbol, points };
  });

  let spreadUsd = 0;
  for (const t of trades) spreadUsd += (t.side === 'buy' ? Number(t.mid) - Number(t.price) : Number(t.price) - Number(t.mid)) * Number(t.size);

  const reportFills: ReportFill[] = trades.map((t) => ({
    account: s.account,
    epoch: null,
    strategy: BACKTEST_STRATEGIES,
    symbol: t.symbol!,
    side: t.side === 'buy' ? 'buy' : 'sell',
    price: Number(t.price),
    size: Number(t.size),
    feeUsd: Number(t.fee_usd),
    timeNs: BigInt(t.time_ns!),
  }));
  // Orders refused before the exchange (local ids) never had a chance to fill: the fill ratio is over the others.
  const reportOrders: ReportOrder[] = orders
    .filter((o) => !o.order_id!.startsWith('local:'))
    .map((o) => ({
      strategy: BACKTEST_STRATEGIES,
      symbol: o.symbol!,
      firstNs: BigInt(o.created_ns!),
      filled: Number(o.filled_size) > 0,
    }));
  const rows = buildReport(
    reportFills,
    funding.map((f) => ({ account: s.account, epoch: null, symbol: f.symbol!, amountUsd: Number(f.amount_usd), timeNs: BigInt(f.time_ns!) })),
    reportOrders,
  );

  const firstNs = s.data.firstEventNs;
  const lastNs = s.data.lastEventNs;
  return {
    title: `Backtest, seed ${s.seed}${s.partial ? ' (partial: stopped early)' : ''}`,
    subtitle: `${s.data.files.join(', ') || 'recorded events'}: ${rangeText(firstNs === null ? undefined : nsToMs(firstNs), lastNs === null ? undefined : nsToMs(lastNs))}`,
    equity: { label: 'Equity, USD at the mark', points: equity },
    positions,
    prices,
    priceLabel: 'recorded mid price, USD (at each equity sample and each own fill)',
    fills,
    pnl: {
      spreadCaptureUsd: spreadUsd,
      feesUsd: s.feesUsd,
      fundingUsd: s.fundingUsd,
      inventoryUsd: s.pnlUsd - spreadUsd + s.feesUsd - s.fundingUsd,
      totalUsd: s.pnlUsd,
      basis: 'Spread capture is measured against the recorded mid price at each fill; inventory is the rest (price moves on the position held).',
    },
    orders: [...reportOrders]
      .sort((a, b) => (a.firstNs < b.firstNs ? -1 : a.firstNs > b.firstNs ? 1 : 0))
      .map((o) => ({ tMs: Number(o.firstNs / 1_000n) / 1_000, filled: o.filled })),
    summary: [
      { label: 'return %', value: s.returnPct.toFixed(4) },
      { label: 'PnL USD', value: s.pnlUsd.toFixed(2) },
      { label: 'start / end equity USD', value: `${s.startEquityUsd.toFixed(2)} / ${s.endEquityUsd.toFixed(2)}` },
      { label: 'max drawdown %', value: s.maxDrawdownPct.toFixed(4) },
      { label: 'Sharpe (annualized)', value: s.sharpe.toFixed(3) },
      { label: 'orders (with a fill)', value: `${s.orders} (${s.ordersFilled})` },
      { label: 'fill ratio', value: `${(s.fillRatio * 100).toFixed(1)}%` },
      { label: 'trades (maker)', value: `${s.trades} (${s.makerTrades})` },
      { label: 'fees USD', value: s.feesUsd.toFixed(2) },
      { label: 'funding USD', value: s.fundingUsd.toFixed(2) },
      { label: 'turnover', value: s.turnover.toFixed(3) },
      { label: 'liquidations', value: String(s.liquidations) },
      { label: 'events replayed', value: String(s.data.events) },
      { label: 'seed', value: String(s.seed) },
      {
        label: 'models',
        value: Object.entries(s.models)
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
      },
      { label: 'config sha256', value: s.configHash },
    ],
    symbols: rows,
  };
}
