// The account feeds execution consumes, from the client's streams: order updates and a signal per account snapshot.
// Invariant: both come from the one shared account topic; subscribing them opens no second venue subscription.

import { filter, map, type Observable } from 'rxjs';
import type { AccountStreams } from '../account/account.js';
import type { StreamSource } from '../client/ws-pool.js';
import type { VenueOrderFact } from './ports.js';

export interface AccountFeeds {
  readonly orderUpdates$: Observable<VenueOrderFact>;
  /** Emits once per account snapshot (the venue sends one first on every (re)subscription). */
  readonly resync$: Observable<void>;
}

export function accountFeeds(source: StreamSource, streams: AccountStreams, user: string): AccountFeeds {
  return {
    orderUpdates$: streams.orderUpdates$(user),
    resync$: source.topic$({ type: 'account', user }).pipe(
      filter((m) => m.type === 'account' && m.data.type === 'accountSnapshot'),
      map(() => undefined),
    ),
  };
}
