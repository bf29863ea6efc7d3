// A trading session against a local venue over loopback in the venue's dialect and network (v1 on mainnet when not
// given) with an in-memory nonce store: the setup the integration tests share. Invariant: every other option (key, strategies, risk, loggers) is the caller's.

import { startTrading, type TradingOptions, type TradingSession } from '../../src/app/trading.js';
import { connectVenue, type LiveVenue } from '../../src/client/venue.js';
import type { Dialect, Network } from '../../src/core/types.js';
import { MemoryNonceStore } from '../../src/protocol/nonce.js';

export function localSession(
  venue: { readonly url: string; readonly wsUrl: string; readonly dialect?: Dialect; readonly network?: Network },
  opts: Omit<TradingOptions<LiveVenue>, 'venue' | 'dialect' | 'network' | 'nonceStore'>,
): Promise<TradingSession<LiveVenue>> {
  const { dialect = 'v1', network = 'mainnet' } = venue;
  return startTrading({
    venue: connectVenue({ url: venue.url, wsUrl: venue.wsUrl, dialect, network }),
    dialect,
    network,
    nonceStore: new MemoryNonceStore(),
    ...opts,
  });
}
