// ReportData from a live journal (the daemon's SQLite file of orders, fills and funding), opened read-only.
// Invariants: never writes the journal; the journal holds no market prices, so PnL is marked at each symbol's last
// fill price, and an account's positions are closed at that price when its venue instance (epoch) changes.

import { UNATTRIBUTED, Journal, type FundingRecord, type JournaledFill } from '../store/index.js';
import type { OwnFill, Point, ReportData, SymbolSeries } from './data.js';
import { drawdown, rangeText } from './html.js';

const nsToMs = (ns: bigint) => Number(ns / 1_000n) / 1_000;

/** Reads the journal at `path` (read-only); throws JournalError when it is missing or of another schema version. */
export function fromJournal(path: string): ReportData {
  const journal = Journal.open(path, { readOnly: true });
  try {
    return build(
      path,
      journal.fills(),
      journal.funding(),
      journal.orders(),
      journal.report(),
      journal.unresolvedBatches().length,
      journal.fillCounts().paperFills,
    );
  } finally {
    journal.close();
  }
}

function build(
  path: string,
  fills: readonly JournaledFill[],
  funding: readonly FundingRecord[],
  orders: ReturnType<Journal['orders']>,
  rows: ReturnType<Journal['report']>,
  unresolved: number,
  paperFills: number,
): ReportData {
  const lastPrice = new Map<string, number>();
  /** account\0symbol → signed base units in the account's current epoch */
  const held = new Map<string, number>();
  const epochs = new Map<string, number | null>();
  const symbols = [...new Set(fills.map((f) => f.symbol))].sort();
  const positionPoints = new Map<string, Point[]>(symbols.map((s) => [s, []]));
  const pricePoints = new Map<string, Point[]>(symbols.map((s) => [s, []]));
  const equity: Point[] = [];
  let cash = 0;
  const net = (symbol: string) => {
    let sum = 0;
    for (const [key, size] of held) if (key.endsWith(`\u0000${symbol}`)) sum += size;
    return sum;
  };
  const marked = () => {
    let v = cash;
    for (const [key, size] of held) v += size * (lastPrice.get(key.slice(key.indexOf('\u0000') + 1)) ?? 0);
    return v;
  };
  const onFill = (f: JournaledFill) => {
    const tMs = nsToMs(f.timeNs);
    if (epochs.has(f.account) && epochs.get(f.account) !== f.epoch) {
      for (const [key, size] of held) {
        if (!key.startsWith(`${f.account}\u0000`) || size === 0) continue;
        const symbol = key.slice(key.indexOf('\u0000') + 1);
        cash += size * (lastPrice.get(symbol) ?? 0);
        held.set(key, 0);
        positionPoints.get(symbol)!.push({ tMs, v: net(symbol) });
      }
    }
    epochs.set(f.account, f.epoch);
    const key = `${f.account}\u0000${f.symbol}`;
    const signed = f.side === 'buy' ? f.size : -f.size;
    cash -= signed * f.price + f.feeUsd;
    held.set(key, (held.get(key) ?? 0) + signed);
    lastPrice.set(f.symbol, f.price);
    positionPoints.get(f.symbol)!.push({ tMs, v: net(f.symbol) });
    pricePoints.get(f.symbol)!.push({ tMs, v: f.price });
    equity.push({ tMs, v: marked() });
  };
  let i = 0;
  for (const p of funding) {
    while (i < fills.length && fills[i]!.timeNs < p.timeNs) onFill(fills[i++]!);
    cash += p.amountUsd;
    equity.push({ tMs: nsToMs(p.timeNs), v: marked() });
  }
  while (i < fills.length) onFill(fills[i++]!);

  const sum = (key: 'realizedPnlUsd' | 'feesUsd' | 'fundingUsd' | 'volumeUsd') => rows.reduce((s, r) => s + r[key], 0);
  const realized = sum('realizedPnlUsd');
  const fees = sum('feesUsd');
  const fundingUsd = sum('fundingUsd');
  const total = equity.at(-1)?.v ?? 0;
  const firstMs = equity[0]?.tMs;
  const lastMs = equity.at(-1)?.tMs;
  const maxDrawdown = Math.min(0, ...drawdown(equity).map((p) => p.v));
  const filled = orders.filter((o) => o.filled).length;
  const ownFills: OwnFill[] = fills.map((f) => ({ tMs: nsToMs(f.timeNs), symbol: f.symbol, side: f.side, price: f.price, size: f.size }));
  const series = (m: Map<string, Point[]>): SymbolSeries[] => symbols.map((symbol) => ({ symbol, points: m.get(symbol)! }));
  return {
    title: `Journal ${path.replace(/^.*[\\/]/, '')}${paperFills === 0 ? '' : paperFills === fills.length ? ' (paper trading)' : ' (paper trading and live)'}`,
    subtitle: `${path}: ${rangeText(firstMs, lastMs)}`,
    equity: { label: 'PnL since the first journaled fill, USD (marked at each symbol’s last fill price)', points: equity },
    positions: series(positionPoints),
    prices: series(pricePoints),
    priceLabel: 'own fill prices, USD (the journal holds no market prices)',
    fills: ownFills,
    pnl: {
      spreadCaptureUsd: realized,
      feesUsd: fees,
      fundingUsd,
      inventoryUsd: total - realized + fees - fundingUsd,
      totalUsd: total,
      basis:
        'The journal holds no market prices: spread capture here is the average-cost PnL of closed round trips, and inventory the open position marked at its last fill price.',
    },
    orders: orders.map((o) => ({ tMs: nsToMs(o.firstNs), filled: o.filled })),
    summary: [
      { label: 'PnL USD (marked at the last fill prices)', value: total.toFixed(2) },
      { label: 'max drawdown USD', value: maxDrawdown.toFixed(2) },
      { label: 'realized USD (average cost, before fees)', value: realized.toFixed(2) },
      { label: 'fees USD', value: fees.toFixed(2) },
      { label: 'funding USD', value: fundingUsd.toFixed(2) },
      { label: 'volume USD', value: sum('volumeUsd').toFixed(2) },
      { label: 'fills', value: String(fills.length) },
      { label: 'orders (with a fill)', value: `${orders.length} (${filled})` },
      { label: 'fill ratio', value: orders.length ? `${((filled / orders.length) * 100).toFixed(1)}%` : '' },
      { label: 'strategies', value: [...new Set(rows.map((r) => r.strategy))].filter((s) => s !== UNATTRIBUTED).join(', ') },
      { label: 'unresolved batches', value: String(unresolved) },
      ...(paperFills ? [{ label: 'paper trading fills', value: `${paperFills} of ${fills.length}` }] : []),
    ],
    symbols: rows,
  };
}
