// A local venue without market flow at a SOL-USD mark of 100 that its oracle moves, and a liquidity provider's resting
// orders: the setting of the trigger and restart tests. Invariant: the venue is closed by the caller's cleanup list.
import { expect } from 'vitest';
import type { Dialect } from '../../../src/core/types.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { startVenue } from '../../../src/venue-sim/server/index.js';
import { Trader } from './harness.js';

export const MARK_SYMBOL = 'SOL-USD';

/** A resting order of the liquidity provider: `[isBuy, price, size]`. */
export type Level = readonly [boolean, number, number];

/** A venue of `dialect` (engine `seed`) at mark 100 (setMark moves it by the oracle) and a liquidity provider resting `levels`. */
export async function venueAtMark(closers: (() => unknown)[], dialect: Dialect, seed: number, ...levels: Level[]) {
  const oracleKey = Keypair.generate();
  const venue = await startVenue({ port: 0, flow: false, seed, oracleKeys: [oracleKey.publicKey], dialect });
  closers.push(() => venue.close());
  const oracle = new Trader(venue, oracleKey);
  const setMark = async (px: number) => {
    const reply = await oracle.send({ type: 'oracle', prices: [{ timestamp: BigInt(Date.now()) * 1_000_000n, symbol: MARK_SYMBOL, price: px }] });
    expect(reply.body.status).toBe('ok');
  };
  await setMark(100);
  const lp = new Trader(venue);
  await lp.faucet(1_000_000);
  await lp.orders(...levels.map(([isBuy, price, size]) => lp.limit(MARK_SYMBOL, isBuy, price, size)));
  return { venue, setMark, lp };
}
