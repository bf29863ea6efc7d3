// Domain vocabulary shared by every layer: networks, dialects, symbols, sides, time-in-force.
// Invariant: pure data and tiny pure helpers only; no I/O and no wire encoding here.

import { string } from './schema.js';

/** Protocol dialects: `v1` is the specification (API v1.0.11); `current` is the venue's present generation. */
export const DIALECTS = ['v1', 'current'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** Networks of the current dialect and the byte that ends every signed message. */
export const NETWORK_BYTE = { mainnet: 1, testnet: 2, devnet: 3 } as const;
export type Network = keyof typeof NETWORK_BYTE;
export const NETWORKS = Object.keys(NETWORK_BYTE) as Network[];

/** Market symbols have the form `<BASE>-USD`. */
export const SYMBOL_PATTERN = /^[A-Z0-9]{1,20}-USD$/;
export const symbolSchema = string({ maxLength: 24, pattern: SYMBOL_PATTERN, patternName: 'a symbol of the form <BASE>-USD' });

export type TimeInForce = 'GTC' | 'IOC' | 'ALO';
export const TIFS: readonly TimeInForce[] = ['GTC', 'IOC', 'ALO'];

/** Base58 text of a 32-byte Ed25519 public key. */
export type PubkeyText = string;
/** Base58 text of a 32-byte order id hash. */
export type OrderIdText = string;
