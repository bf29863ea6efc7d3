// Market data in the framework's own vocabulary: book levels and updates, public trades, tickers, market rules.
// Invariants: prices USD, sizes base units, times carry their unit in the name; no wire shape of any dialect appears here.

import type { Side } from './intent.js';

/** One price level: a price (USD), the size resting there (base units; 0 in a delta deletes the level) and its order count (0: unknown). */
export interface BookLevel {
  readonly price: number;
  readonly size: number;
  readonly orders: number;
}

/** A book snapshot (replaces the book) or delta (changes the levels it names), each side best first. */
export interface BookUpdate {
  readonly kind: 'snapshot' | 'delta';
  readonly symbol: string;
  readonly bids: readonly BookLevel[];
  readonly asks: readonly BookLevel[];
  /** The venue's time of the update, epoch ms. */
  readonly venueTimeMs: number;
  /** When the bytes that carried it arrived here, ns of the session clock (tick-to-trade starts here). */
  readonly arrivalNs: bigint;
}

/** One public trade. */
export interface Trade {
  readonly symbol: string;
  /** USD */
  readonly price: number;
  /** Base units, > 0. */
  readonly size: number;
  /** The aggressor's side. */
  readonly takerSide: Side;
  /** Epoch ms. */
  readonly timeMs: number;
  /** Accounts (public keys) of the two sides. */
  readonly maker: string;
  readonly taker: string;
  /** True when the trade closed a liquidated position. */
  readonly liquidation: boolean;
}

/** A market's prices and funding. */
export interface Ticker {
  readonly symbol: string;
  /** USD */
  readonly lastPrice: number;
  /** The price margin and funding use, USD. */
  readonly markPrice: number;
  /** USD */
  readonly oraclePrice: number;
  /** Funding rate of the current period (a fraction: 0.0001 is 0.01 %). */
  readonly fundingRate: number;
  /** Base units. */
  readonly openInterest: number;
  /** 24 h volume, base units. */
  readonly volume24h: number;
  /** 24 h volume, USD. */
  readonly volume24hUsd: number;
  /** 24 h high and low, USD. */
  readonly high24hPrice: number;
  readonly low24hPrice: number;
  /** The venue's time of the values, epoch ns. */
  readonly venueTimeNs: bigint;
}

/** A market's trading rules. */
export interface MarketRules {
  readonly symbol: string;
  /** Price step, USD. */
  readonly tickSizeUsd: number;
  /** Size step, base units. */
  readonly lotSizeBase: number;
  /** Smallest price × size of an order that is not reduce-only, USD (0 when the venue sets none). */
  readonly minNotionalUsd: number;
  /** Highest leverage the venue allows (a multiple of the margin). */
  readonly maxLeverage: number;
}
