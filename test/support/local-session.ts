// A trading session against a local venue over loopback in the v1 dialect with an in-memory nonce store: the setup the
// integration tests share. Invariant: every other option (key, strategies, risk, loggers) is the caller's.

import { startTrading, type TradingOptions, type TradingSession } from '../../src/app/trading.js';
import { connectVenue, type LiveVenue } from '../../src/client/venue.js';
import { MemoryNonceStore } from '../../src/protocol/nonce.js';

export function localSession(
  venue: { readonly url: string; readonly wsUrl: string },
  opts: Omit<TradingOptions<LiveVenue>, 'venue' | 'dialect' | 'network' | 'nonceStore'>,
): Promise<TradingSession<LiveVenue>> {
  return startTrading({
    venue: connectVenue({ url: venue.url, wsUrl: venue.wsUrl, dialect: 'v1', network: 'mainnet' }),
    dialect: 'v1',
    network: 'mainnet',
    nonceStore: new MemoryNonceStore(),
    ...opts,
  });
}
