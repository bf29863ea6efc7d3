// The ports execution talks through: the signed-action submitter, the account queries it resolves with, timers, and
// the venue order facts it consumes. Invariant: nothing here does I/O; the app passes real clients (HttpClient fits).

import type { SubmitHooks } from '../client/http.js';
import type { SubmitOutcome } from '../client/submit.js';
import type { SignedRequest } from '../protocol/sign.js';
import type { AccountQueryType, AccountResponse, OpenOrder, OrderHistoryEntry } from '../protocol/v1/account.js';

/** Sends one signed action once; never throws for venue or transport failures (HttpClient.submit fits). */
export interface Submitter {
  submit(request: SignedRequest, hooks?: SubmitHooks): Promise<SubmitOutcome>;
  /** Runs submit's preparation of `request` (its bytes) as a dry run: nothing is sent or counted (keep-warm). */
  warm?(request: SignedRequest): void;
}

/** The account queries execution needs (HttpClient.account fits; both dialects answer in the v1 model). */
export interface AccountReader {
  account<T extends AccountQueryType>(type: T, user: string): Promise<AccountResponse<T>>;
}

/** Venue order facts execution resolves with: resting orders and terminal history, by account. */
export interface VenueQueries {
  openOrders(user: string): Promise<readonly OpenOrder[]>;
  orderHistory(user: string): Promise<readonly OrderHistoryEntry[]>;
}

/** The queries over an AccountReader (unwrapping the single-key rows). */
export function venueQueries(reader: AccountReader): VenueQueries {
  return {
    openOrders: async (user) => (await reader.account('openOrders', user)).map((r) => r.openOrder),
    orderHistory: async (user) => (await reader.account('orderHistory', user)).map((r) => r.orderHistory),
  };
}

/**
 * One fact about one order from the venue: an order response entry, an orderUpdate message, an open-order row or an
 * order-history row. `status` is a status name (`resting` and `triggered` read as placed); `filledSize` base units.
 */
export interface VenueOrderFact {
  readonly orderId: string;
  readonly status: string;
  readonly filledSize?: number | undefined;
  readonly reason?: string | null | undefined;
}

/** Timers for retries and deadlines (injected so tests and backtests control time). */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
