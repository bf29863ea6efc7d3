// Account data the account tests build: a resting BTC-USD buy and a maker fill of it, each with the fields a test overrides.
// Invariant: plain values in the framework's vocabulary (core/account-data).
import type { Fill, VenueOrder } from '../../../src/core/account-data.js';

/** A GTC buy of 2 at 100, resting, none filled (venue time 10 ns). */
export const venueOrder = (orderId: string, extra: Partial<VenueOrder> = {}): VenueOrder => ({
  orderId,
  symbol: 'BTC-USD',
  side: 'buy',
  price: 100,
  originalSize: 2,
  remainingSize: 2,
  filledSize: 0,
  avgFillPrice: 0,
  maker: true,
  status: 'placed',
  venueTimeNs: 10n,
  reason: undefined,
  reduceOnly: false,
  tif: 'GTC',
  ...extra,
});

/** A maker fill of `size` (default 1) of a buy at 100 with a 0.01 USD fee. */
export const makerFill = (orderId: string, venueTimeNs: bigint, size = 1): Fill => ({
  symbol: 'BTC-USD',
  orderId,
  side: 'buy',
  price: 100,
  size,
  feeUsd: 0.01,
  maker: true,
  cause: 'trade',
  venueTimeNs,
});
