// Public surface of the venue engine (see engine.ts); the server imports only from here.
// Invariant: nothing here performs I/O; the engine is driven by calls and an injected clock.

export { Engine, type LeverageResult } from './engine.js';
export { DEFAULT_MARKETS, HOUR_NS } from './markets.js';
export { MAX_SUB_ACCOUNTS, subAccountKey } from './subaccounts.js';
export type { CreateSubAccountResult, RemoveSubAccountResult, RenameSubAccountResult, TransferResult } from './subaccounts.js';
export type * from './types.js';
