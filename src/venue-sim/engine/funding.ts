// Funding: premium sampling, the per-interval rate (venue-protocol §10.6) and zero-sum payments between longs and shorts.
// Invariant: the payments of one funding event sum to exactly 0 quote units (bigint, exact at any size).

import { unitsToUsd } from '../decimals.js';
import type { Market, Position } from './model.js';
import { Ring } from './ring.js';
import type { State } from './state.js';
import type { FundingPaymentRow } from './types.js';

const EIGHT_HOURS_NS = 8n * 3_600_000_000_000n;

export interface FundingParams {
  /** interest component per 8 h, fraction */
  interestPer8h: number;
  /** clamp on (interest − premium), fraction */
  premiumClamp: number;
}

/** Records one premium observation (book mid vs oracle index); no-op without both prices. */
export function samplePremium(m: Market): void {
  if (m.oraclePx <= 0) return;
  const mid = m.midPrice();
  if (mid <= 0) return;
  m.premiumSum += (mid - m.oraclePx) / m.oraclePx;
  m.premiumSamples++;
}

/**
 * rate = avgPremium + clamp(interest − avgPremium, ±premiumClamp), then clamped to ±maxFundingRate,
 * where interest is the 8-hour interest scaled to the market's interval.
 */
export function fundingRate(m: Market, params: FundingParams): number {
  const avg = m.premiumSamples > 0 ? m.premiumSum / m.premiumSamples : 0;
  const interest = (params.interestPer8h * Number(m.fundingIntervalNs)) / Number(EIGHT_HOURS_NS);
  const c = params.premiumClamp;
  const diff = interest - avg;
  const rate = avg + (diff > c ? c : diff < -c ? -c : diff);
  const cap = m.maxFundingRate;
  return rate > cap ? cap : rate < -cap ? -cap : rate;
}

/** What a position of `lots` pays or receives for one interval at `absRate` and `mark` (USD): round(|size| × mark × |rate|), quote units. */
export function fundingUnits(m: Market, lots: number, mark: number, absRate: number, quoteScale: number): bigint {
  return BigInt(Math.round(Math.abs(m.size(lots)) * mark * absRate * quoteScale));
}

/**
 * Pays one interval's funding at `tsNs`: with a positive rate longs pay and shorts receive (and the
 * reverse). Payers pay round(|size| × mark × |rate|); the total is shared among receivers in
 * proportion to size, the last receiver taking the rounding remainder.
 */
export function payFunding(st: State, m: Market, params: FundingParams, tsNs: bigint): void {
  const rate = fundingRate(m, params);
  m.premiumSum = 0;
  m.premiumSamples = 0;
  m.lastFundingRate = rate;
  const mark = m.markPrice();
  if (mark <= 0 || rate === 0 || m.holders.size === 0) return;
  const longsPay = rate > 0;
  const absRate = Math.abs(rate);
  const payers: Position[] = [];
  const receivers: Position[] = [];
  let total = 0n;
  let receiverLots = 0;
  const payerAmounts: bigint[] = [];
  for (const a of m.holders) {
    const p = a.positions[m.index]!;
    if (p.lots > 0 === longsPay) {
      const units = fundingUnits(m, p.lots, mark, absRate, st.quoteScale);
      payers.push(p);
      payerAmounts.push(units);
      total += units;
    } else {
      receivers.push(p);
      receiverLots += Math.abs(p.lots);
    }
  }
  const holders = [...m.holders];
  const byPosition = new Map<Position, bigint>();
  for (let i = 0; i < payers.length; i++) byPosition.set(payers[i]!, -payerAmounts[i]!);
  let assigned = 0n;
  for (let i = 0; i < receivers.length; i++) {
    const p = receivers[i]!;
    let share = i === receivers.length - 1 ? total - assigned : (total * BigInt(Math.abs(p.lots))) / BigInt(receiverLots);
    if (share > total - assigned) share = total - assigned;
    assigned += share;
    byPosition.set(p, share);
  }
  for (const a of holders) {
    const p = a.positions[m.index]!;
    const units = byPosition.get(p) ?? 0n;
    a.balance += units;
    a.funding += units;
    p.funding += units;
    st.fundingNetUnits += units;
    const row: FundingPaymentRow = {
      owner: a.key,
      symbol: m.symbol,
      size: m.size(p.lots),
      payment: unitsToUsd(units, st.quoteScale),
      fundingRate: rate,
      markPrice: mark,
      slot: st.slot,
      timestamp: tsNs,
    };
    (a.fundingRows ??= new Ring(st.historyLimit)).push(row);
    st.events.push({ type: 'funding', payment: row });
    st.touch(a, p);
  }
}
