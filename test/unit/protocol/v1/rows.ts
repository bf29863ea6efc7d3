// Example messages of the v1 specification shared by the protocol tests. Invariant: plain data, timestamps as the
// exact decimal text of ns (the parser reads them as bigints).

import { OID } from './fixtures.js';

export const TS = '1700000000123456789';

/** An open order as the account snapshot and GET /openOrders give it (spec: openOrder). */
export const openOrder = {
  symbol: 'BTC-USD',
  orderId: OID.b58,
  price: 100000,
  originalSize: 1,
  size: 1,
  filledSize: 0,
  vwap: 0,
  isBuy: true,
  maker: true,
  reduceOnly: false,
  tif: 'alo',
  status: 'placed',
  timestamp: TS,
};

/** A ticker as the stream and GET /ticker give it (spec: ticker). */
export const ticker = {
  symbol: 'BTC-USD',
  priceChange: 120.5,
  priceChangePercent: 0.12,
  lastPrice: 100000,
  highPrice: 101000,
  lowPrice: 98000,
  volume: 1234.5,
  quoteVolume: 123450000,
  markPrice: 100001,
  oraclePrice: 100002,
  openInterest: 500,
  fundingRate: 0.0001,
  regime: 1,
  regimeDt: 6,
  regimeVol: 0.3,
  regimeMv: 0.1,
  fairBookPx: 100000.5,
  fairVol: 0.2,
  fairBias: 0,
  timestamp: TS,
};

/** The ticker's numeric fields: every one but symbol and timestamp. */
export const TICKER_NUMBERS = Object.keys(ticker).filter((k) => k !== 'symbol' && k !== 'timestamp');
