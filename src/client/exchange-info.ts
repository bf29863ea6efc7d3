// Where the app and the strategy context still find the exchangeInfo row type (its schema moved to protocol/v1).
// Invariant: nothing but this re-export; it goes once they read MarketRules (core/market-data.ts) instead.

export type { MarketInfo } from '../protocol/v1/exchange-info.js';
