// Trading results per strategy and symbol from journaled fills, funding and orders: average-cost PnL, fees, funding.
// Invariants: pure; cost basis is replayed from the first fill of each account epoch, so a window (`sinceMs`) counts only its own
// events at their true basis, and no position is carried from one venue instance (epoch) to another.

import type { Side } from '../core/intent.js';

/** The strategy name of activity no strategy owns (manual orders, funding on positions no strategy holds). */
export const UNATTRIBUTED = '(account)';

/** A fill's or payment's account epoch (Journal.catchUp); null for rows whose run never identified its venue instance. */
type Epoch = number | null;

export interface ReportFill {
  readonly account: string;
  readonly epoch: Epoch;
  /** The owning strategy, or UNATTRIBUTED. */
  readonly strategy: string;
  readonly symbol: string;
  readonly side: Side;
  /** USD */
  readonly price: number;
  /** Base units, > 0. */
  readonly size: number;
  /** USD paid; negative for a rebate. */
  readonly feeUsd: number;
  /** Epoch ns. */
  readonly timeNs: bigint;
}

export interface ReportFunding {
  readonly account: string;
  readonly epoch: Epoch;
  readonly symbol: string;
  /** USD received; negative when paid. */
  readonly amountUsd: number;
  /** Epoch ns. */
  readonly timeNs: bigint;
}

/** One order as first journaled. */
export interface ReportOrder {
  readonly strategy: string;
  readonly symbol: string;
  /** Epoch ns of the order's first journal event. */
  readonly firstNs: bigint;
  /** Whether the order has any fill. */
  readonly filled: boolean;
}

export interface ReportRow {
  strategy: string;
  symbol: string;
  fills: number;
  /** Σ price × size, USD. */
  volumeUsd: number;
  /** Base units bought. */
  buySize: number;
  /** Base units sold. */
  sellSize: number;
  /** USD paid in fees; negative when rebates exceed fees. */
  feesUsd: number;
  /** USD received in funding; negative when paid. */
  fundingUsd: number;
  /** Average-cost realized PnL of the fills, USD, before fees and funding. */
  realizedPnlUsd: number;
  /** realizedPnlUsd − feesUsd + fundingUsd */
  netPnlUsd: number;
  /** Orders first journaled in the window (every submitted order, whatever the venue answered). */
  ordersPlaced: number;
  /** Of ordersPlaced, those with any fill. */
  ordersFilled: number;
  /** ordersFilled / ordersPlaced; null when no order was placed. */
  fillRatio: number | null;
}

interface Inventory {
  /** Signed base units. */
  size: number;
  /** Average entry price of `size`, USD. */
  entry: number;
}

/** Relative size below which a position counts as flat (float residue of exact offsets). */
const FLAT = 1e-9;

/** Applies a signed fill to `inv`; returns the realized PnL (USD) of the part that closed. */
function applyFill(inv: Inventory, signed: number, price: number): number {
  const before = inv.size;
  const closing = before !== 0 && Math.sign(signed) !== Math.sign(before);
  const realized = closing ? Math.min(Math.abs(signed), Math.abs(before)) * (price - inv.entry) * Math.sign(before) : 0;
  let after = before + signed;
  if (Math.abs(after) <= FLAT * Math.abs(signed)) after = 0;
  if (after === 0) inv.entry = 0;
  else if (Math.sign(after) !== Math.sign(before)) inv.entry = price;
  else if (Math.abs(after) > Math.abs(before)) inv.entry = (inv.entry * Math.abs(before) + price * Math.abs(signed)) / Math.abs(after);
  inv.size = after;
  return realized;
}

/**
 * Aggregates `fills` and `funding` (each sorted by time) and `orders`, counting only events at or after `sinceMs`.
 * Positions are held per account epoch: each epoch starts flat.
 * Funding of an account and symbol is split among the strategies holding a position there at payment time, in
 * proportion to each one's signed share of their net position; UNATTRIBUTED gets it when their net is flat.
 * Rows come sorted by strategy, then symbol.
 */
export function buildReport(fills: readonly ReportFill[], funding: readonly ReportFunding[], orders: readonly ReportOrder[], sinceMs = 0): ReportRow[] {
  const sinceNs = BigInt(sinceMs) * 1_000_000n;
  const rows = new Map<string, ReportRow>();
  const row = (strategy: string, symbol: string): ReportRow => {
    const key = `${strategy}\u0000${symbol}`;
    let r = rows.get(key);
    if (!r) {
      r = {
        strategy,
        symbol,
        fills: 0,
        volumeUsd: 0,
        buySize: 0,
        sellSize: 0,
        feesUsd: 0,
        fundingUsd: 0,
        realizedPnlUsd: 0,
        netPnlUsd: 0,
        ordersPlaced: 0,
        ordersFilled: 0,
        fillRatio: null,
      };
      rows.set(key, r);
    }
    return r;
  };
  /** account\0epoch\0symbol → strategy → inventory */
  const books = new Map<string, Map<string, Inventory>>();
  const book = (account: string, epoch: Epoch, symbol: string): Map<string, Inventory> => {
    const key = `${account}\u0000${epoch}\u0000${symbol}`;
    let b = books.get(key);
    if (!b) books.set(key, (b = new Map()));
    return b;
  };

  const onFill = (f: ReportFill) => {
    const b = book(f.account, f.epoch, f.symbol);
    let inv = b.get(f.strategy);
    if (!inv) b.set(f.strategy, (inv = { size: 0, entry: 0 }));
    const realized = applyFill(inv, f.side === 'buy' ? f.size : -f.size, f.price);
    if (f.timeNs < sinceNs) return;
    const r = row(f.strategy, f.symbol);
    r.fills++;
    r.volumeUsd += f.price * f.size;
    if (f.side === 'buy') r.buySize += f.size;
    else r.sellSize += f.size;
    r.feesUsd += f.feeUsd;
    r.realizedPnlUsd += realized;
  };
  const onFunding = (p: ReportFunding) => {
    if (p.timeNs < sinceNs) return;
    const held = [...book(p.account, p.epoch, p.symbol)].filter(([, inv]) => inv.size !== 0);
    const net = held.reduce((s, [, inv]) => s + inv.size, 0);
    const gross = held.reduce((s, [, inv]) => s + Math.abs(inv.size), 0);
    if (Math.abs(net) <= FLAT * gross) {
      row(UNATTRIBUTED, p.symbol).fundingUsd += p.amountUsd;
      return;
    }
    for (const [strategy, inv] of held) row(strategy, p.symbol).fundingUsd += (p.amountUsd * inv.size) / net;
  };

  let i = 0;
  for (const p of funding) {
    while (i < fills.length && fills[i]!.timeNs < p.timeNs) onFill(fills[i++]!);
    onFunding(p);
  }
  while (i < fills.length) onFill(fills[i++]!);

  for (const o of orders) {
    if (o.firstNs < sinceNs) continue;
    const r = row(o.strategy, o.symbol);
    r.ordersPlaced++;
    if (o.filled) r.ordersFilled++;
  }
  for (const r of rows.values()) {
    r.netPnlUsd = r.realizedPnlUsd - r.feesUsd + r.fundingUsd;
    r.fillRatio = r.ordersPlaced ? r.ordersFilled / r.ordersPlaced : null;
  }
  return [...rows.values()].sort((a, b) => (a.strategy === b.strategy ? cmp(a.symbol, b.symbol) : cmp(a.strategy, b.strategy)));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
