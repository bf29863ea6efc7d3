// closeOnStop against the local venue: a strategy that asked for it has its market's position closed when it stops
// (reduce-only IOC within the slippage bound), and the outcome is in its 'strategy stopped' log line.
import { describe, expect, it } from 'vitest';
import { concat, filter, map, NEVER, take } from 'rxjs';
import { Keypair } from '../../../src/protocol/keys.js';
import { defineStrategy, mid, roundToTick, schema, stamp, type Intent, type StrategyDefinition, type StrategyLogger } from '../../../src/strategy/api.js';
import type { LoadedStrategy } from '../../../src/strategy/loader.js';
import type { Dialect } from '../../../src/core/types.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';
import { localSession } from '../../support/local-session.js';

const SIZE = 0.002;
const closers = cleanups();

/** A strategy that buys SIZE BTC once (IOC, 1 % through the mid), then holds until stopped. */
function buyer(closeOnStop: { maxSlippageBps: number } | undefined): LoadedStrategy {
  const definition = defineStrategy({
    name: 'buyer',
    params: schema.object({}),
    symbols: () => ['BTC-USD'],
    ...(closeOnStop && { closeOnStop }),
    create: (ctx) =>
      concat(
        ctx.market.book$('BTC-USD').pipe(
          filter((b) => mid(b) !== undefined),
          take(1),
          map(
            (b): Intent => ({
              kind: 'place',
              order: {
                symbol: 'BTC-USD',
                side: 'buy',
                price: roundToTick(mid(b)! * 1.01, ctx.rules('BTC-USD').tickSizeUsd, 'down'),
                size: SIZE,
                tif: 'IOC',
                reduceOnly: false,
              },
              ...stamp(b),
            }),
          ),
        ),
        NEVER,
      ),
  });
  return { name: 'buyer', module: 'inline', file: 'inline', definition: definition as StrategyDefinition<unknown>, params: {}, symbols: ['BTC-USD'] };
}

interface Line {
  fields: Record<string, unknown>;
  message: string;
}

async function session(dialect: Dialect, closeOnStop: { maxSlippageBps: number } | undefined) {
  const venue: Venue = await startVenue({ seed: 31, flowIntervalMs: 50, dialect });
  closers.push(() => venue.close());
  for (let i = 0; i < 5; i++) venue.step();
  const key = Keypair.generate();
  venue.engine.faucet(key.publicKey, 100_000);
  const lines: Line[] = [];
  const record = (fields: object, message: string) => lines.push({ fields: fields as Record<string, unknown>, message });
  const log: StrategyLogger = { debug: record, info: record, warn: record, error: record };
  const s = await localSession(venue, {
    key,
    strategies: [buyer(closeOnStop)],
    strategyLogger: () => log,
  });
  const position = () => s.accountState()?.positions.get('BTC-USD')?.size ?? 0;
  await until(() => position() === SIZE, 'the long position', 10_000);
  const venuePosition = () => venue.engine.fullAccount(key.publicKey).positions.find((p) => p.coin === 'BTC-USD')?.size ?? 0;
  expect(venuePosition()).toBe(SIZE);
  return { s, lines, venuePosition };
}

describe.each<Dialect>(['v1', 'current'])('closeOnStop in the %s dialect', (dialect) => {
  it('a strategy that asked for it has its position closed on stop, reduce-only IOC within the bound, reported in the stop line', async () => {
    const { s, lines, venuePosition } = await session(dialect, { maxSlippageBps: 50 });
    const report = await s.stop({ deadlineMs: 5000 });
    expect(report.timedOut).toBe(false);
    expect(venuePosition()).toBe(0);
    const stopped = lines.find((l) => l.message === 'strategy stopped')!;
    expect(stopped.fields).toMatchObject({
      strategy: 'buyer',
      reason: 'shutdown',
      closeOnStop: [{ symbol: 'BTC-USD', position: SIZE, status: 'filled', filledSize: SIZE }],
    });
  });

  it('without closeOnStop the position is left as it is', async () => {
    const { s, lines, venuePosition } = await session(dialect, undefined);
    await s.stop({ deadlineMs: 5000 });
    expect(venuePosition()).toBe(SIZE);
    expect(lines.find((l) => l.message === 'strategy stopped')!.fields).not.toHaveProperty('closeOnStop');
  });
});
