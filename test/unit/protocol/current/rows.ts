// Example rows of the current generation shared by its inbound tests, written from venue-protocol §8.3 (row fields) and
// §9.4 (position rows, signed sizes). Invariant: plain data; each test adds the fields its message has.
import bs58 from 'bs58';

/** A base58 public key of 32 equal bytes. */
export const key = (byte: number) => bs58.encode(new Uint8Array(32).fill(byte));
export const USER = key(0x11);
export const OTHER = key(0x22);
export const OID = key(0x44);
export const TS = '1770918312787284000';
export const TS_NS = 1770918312787284000n;

export const margin = {
  totalBalance: 10000,
  availableBalance: 7500,
  marginUsed: 2500,
  notional: 49505,
  realizedPnl: 12.5,
  unrealizedPnl: -5,
  fees: -1.2,
  funding: 0.1,
};

/** A short position (signed size) with no protection. */
export const position = {
  symbol: 'BTC-USD',
  size: -0.5,
  price: 99000,
  fairPrice: 99010,
  notional: 49505,
  realizedPnl: 12.5,
  unrealizedPnl: -5,
  leverage: 10,
  liquidationPrice: 120000,
  fees: -1.2,
  funding: 0.1,
  maintenanceMargin: 250,
  lambda: 0.02,
  riskAllocation: 0.5,
  iso: false,
  protection: null,
};
