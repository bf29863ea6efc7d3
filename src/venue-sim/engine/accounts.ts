// Accounts, positions and cross-margin arithmetic (collateral in bigint quote units, sizes in lots).
// Invariant: balance = deposits + Σ realized − Σ fees + Σ funding exactly, at any size; cost is the entry value of |lots|.

import { unitsToUsd } from '../decimals.js';
import type { Account as AccountShape, Market, Order, OrderHistory, Position as PositionShape } from './model.js';
import type { RecentSet, Ring } from './ring.js';
import type { RowChain } from './rowlog.js';
import type { ActivityRow, ClosedPositionRow, FundingPaymentRow, RiskRow } from './types.js';

/** One account's position in one market plus the open-order exposure and lifecycle statistics behind it. */
export class Position implements PositionShape {
  /** signed size in lots */
  lots = 0;
  /** entry value of |lots| in quote units (paid for a long, received for a short) */
  cost = 0n;
  /** resting size in lots per side (for the initial-margin exposure) */
  buyOpenLots = 0;
  sellOpenLots = 0;
  /** resting reduce-only orders in this market */
  reduceOnlyOrders = 0;
  // lifecycle since the position last opened from flat
  openNs = 0n;
  maxLots = 0;
  volumeLots = 0;
  /** Σ ticks × lots of opening fills */
  openValue = 0;
  openLots = 0;
  closeValue = 0;
  closeLots = 0;
  /** quote units */
  realized = 0n;
  fees = 0n;
  funding = 0n;
  dirty = false;

  constructor(readonly market: Market) {}

  /** Signed entry value: +cost for a long, −cost for a short (quote units). */
  signedCost(): bigint {
    return this.lots > 0 ? this.cost : this.lots < 0 ? -this.cost : 0n;
  }

  resetLifecycle(nowNs: bigint): void {
    this.openNs = nowNs;
    this.maxLots = 0;
    this.volumeLots = 0;
    this.openValue = 0;
    this.openLots = 0;
    this.closeValue = 0;
    this.closeLots = 0;
    this.realized = 0n;
    this.fees = 0n;
    this.funding = 0n;
  }
}

export class Account implements AccountShape {
  /** all amounts in quote units */
  balance = 0n;
  deposits = 0n;
  fees = 0n;
  funding = 0n;
  realized = 0n;
  readonly positions: Position[];
  /** leverage setting per market index */
  readonly leverage: number[];
  /** effective initial-margin fraction per market index: max(market floor, 1 / leverage) */
  readonly imFraction: number[];
  ordersHead: Order | null = null;
  ordersTail: Order | null = null;
  openOrders = 0;
  liveCloids: Map<string, Order> | null = null;
  /** client order ids of the account's recent accepted orders that ended */
  endedCloids: RecentSet | null = null;
  agents: Set<string> | null = null;
  /** rows of the fill log */
  fills: RowChain | null = null;
  closed: Ring<ClosedPositionRow> | null = null;
  fundingRows: Ring<FundingPaymentRow> | null = null;
  activity: Ring<ActivityRow> | null = null;
  risk: Ring<RiskRow> | null = null;
  history: OrderHistory | null = null;
  lastFaucetNs = -1n;
  dirty = false;
  /** the master of a sub-account; null for any other account */
  parent: string | null = null;
  subName: string | null = null;
  /** a master's sub-accounts, in creation order */
  subs: string[] | null = null;
  /** sub-accounts this master ever created (the next one's derivation index) */
  subSeq = 0;

  constructor(
    readonly key: string,
    readonly index: number,
    markets: readonly Market[],
  ) {
    this.positions = markets.map((m) => new Position(m));
    this.leverage = markets.map((m) => m.defaultLeverage);
    this.imFraction = markets.map((m) => Math.max(m.initialMarginFraction, 1 / m.defaultLeverage));
  }

  linkOrder(o: Order): void {
    o.aPrev = this.ordersTail;
    o.aNext = null;
    if (this.ordersTail) this.ordersTail.aNext = o;
    else this.ordersHead = o;
    this.ordersTail = o;
    this.openOrders++;
  }

  unlinkOrder(o: Order): void {
    if (o.aPrev) o.aPrev.aNext = o.aNext;
    else this.ordersHead = o.aNext;
    if (o.aNext) o.aNext.aPrev = o.aPrev;
    else this.ordersTail = o.aPrev;
    o.aPrev = o.aNext = null;
    this.openOrders--;
  }

  setLeverage(index: number, market: Market, leverage: number): number {
    const lev = Math.min(Math.max(leverage, 1), 50, market.maxLeverage);
    this.leverage[index] = lev;
    this.imFraction[index] = Math.max(market.initialMarginFraction, 1 / lev);
    return lev;
  }
}

/** Risk numbers of an account at current mark prices (USD). */
export interface Risk {
  equity: number;
  unrealized: number;
  initialMargin: number;
  maintenanceMargin: number;
  notional: number;
  hasPosition: boolean;
}

export function newRisk(): Risk {
  return { equity: 0, unrealized: 0, initialMargin: 0, maintenanceMargin: 0, notional: 0, hasPosition: false };
}

/** Fills `out` with the account's equity and margins; open orders count at their worst-case exposure. */
export function computeRisk(a: Account, quoteScale: number, out: Risk): Risk {
  let upnl = 0;
  let im = 0;
  let mm = 0;
  let notional = 0;
  let has = false;
  const ps = a.positions;
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i]!;
    const lots = p.lots;
    if (lots === 0 && p.buyOpenLots === 0 && p.sellOpenLots === 0) continue;
    const m = p.market;
    const mark = m.markPrice();
    const lotSize = m.lot.value;
    if (lots !== 0) {
      has = true;
      const n = Math.abs(lots) * lotSize * mark;
      notional += n;
      mm += n * m.maintenanceMarginFraction;
      upnl += lots * lotSize * mark - unitsToUsd(p.signedCost(), quoteScale);
    }
    const exposure = Math.max(Math.abs(lots + p.buyOpenLots), Math.abs(lots - p.sellOpenLots));
    im += exposure * lotSize * mark * a.imFraction[i]!;
  }
  out.unrealized = upnl;
  out.equity = unitsToUsd(a.balance, quoteScale) + upnl;
  out.initialMargin = im;
  out.maintenanceMargin = mm;
  out.notional = notional;
  out.hasPosition = has;
  return out;
}

/**
 * Initial-margin check for adding `buyLots` / `sellLots` of new exposure in `target`, priced at
 * `refPx` there (USD). Passes when the order does not raise the worst-case exposure.
 */
export function passesInitialMargin(a: Account, target: Market, buyLots: number, sellLots: number, refPx: number, quoteScale: number): boolean {
  const tp = a.positions[target.index]!;
  const before = Math.max(Math.abs(tp.lots + tp.buyOpenLots), Math.abs(tp.lots - tp.sellOpenLots));
  const after = Math.max(Math.abs(tp.lots + tp.buyOpenLots + buyLots), Math.abs(tp.lots - tp.sellOpenLots - sellLots));
  if (after <= before) return true;
  let upnl = 0;
  let im = 0;
  const ps = a.positions;
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i]!;
    const m = p.market;
    if (m === target) {
      const mark = m.markPrice();
      const px = mark > refPx ? mark : refPx;
      if (p.lots !== 0) upnl += p.lots * m.lot.value * mark - unitsToUsd(p.signedCost(), quoteScale);
      im += after * m.lot.value * px * a.imFraction[i]!;
      continue;
    }
    const lots = p.lots;
    if (lots === 0 && p.buyOpenLots === 0 && p.sellOpenLots === 0) continue;
    const mark = m.markPrice();
    if (lots !== 0) upnl += lots * m.lot.value * mark - unitsToUsd(p.signedCost(), quoteScale);
    const exposure = Math.max(Math.abs(lots + p.buyOpenLots), Math.abs(lots - p.sellOpenLots));
    im += exposure * m.lot.value * mark * a.imFraction[i]!;
  }
  return unitsToUsd(a.balance, quoteScale) + upnl >= im;
}
