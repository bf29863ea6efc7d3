// The account feeds execution consumes, from the account's streams: order updates and a signal per account snapshot.
// Invariant: both come from the one shared account stream; subscribing them opens no second venue subscription.

import type { Observable } from 'rxjs';
import type { AccountStreams } from '../account/account.js';
import type { VenueOrder } from '../core/account-data.js';

export interface AccountFeeds {
  readonly orderUpdates$: Observable<VenueOrder>;
  /** Emits once per account snapshot (the venue sends one first on every (re)subscription). */
  readonly resync$: Observable<void>;
}

export function accountFeeds(streams: AccountStreams, user: string): AccountFeeds {
  return { orderUpdates$: streams.orderUpdates$(user), resync$: streams.snapshots$(user) };
}
