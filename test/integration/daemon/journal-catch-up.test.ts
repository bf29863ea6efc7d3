import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { recordTrading } from '../../../src/app/daemon/recording.js';
import { connectVenue } from '../../../src/client/venue.js';
import { startTrading } from '../../../src/app/trading.js';
import { systemClock } from '../../../src/core/clock.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { Journal, UNATTRIBUTED } from '../../../src/store/index.js';
import type { Venue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';
import { quietVenue, Trader } from '../venue/harness.js';

const cleanup = cleanups();

const warnings: object[] = [];
afterEach(() => {
  warnings.length = 0;
});
const log = { info: () => {}, warn: (fields: object) => void warnings.push(fields) };
const onWriteError = (kind: string, error: Error) => {
  throw new Error(`journal write (${kind}) failed: ${error.message}`);
};

async function venueWithFunds(...traders: ((v: Venue) => Trader)[]): Promise<{ venue: Venue; traders: Trader[] }> {
  return venueWithHistory(5000, ...traders);
}

async function venueWithHistory(historyLimit: number, ...traders: ((v: Venue) => Trader)[]): Promise<{ venue: Venue; traders: Trader[] }> {
  const venue = await quietVenue({ seed: 21, engine: { historyLimit } });
  cleanup.push(() => venue.close());
  const made = traders.map((t) => t(venue));
  for (const t of made) await t.faucet(100_000);
  return { venue, traders: made };
}

function openJournal(): Journal {
  const journal = Journal.open(join(mkdtempSync(join(tmpdir(), 'perpbot-catch-up-')), 'journal.sqlite'));
  cleanup.push(() => journal.close());
  return journal;
}

/** The daemon's recording of one account: a trading session (no strategies) and its recorder; returns its stop. */
async function record(venue: Venue, journal: Journal, key: Keypair): Promise<() => Promise<void>> {
  let recorder: Subscription | undefined;
  const session = await startTrading({
    venue: connectVenue({ url: venue.url, wsUrl: venue.wsUrl, dialect: 'v1', network: 'mainnet' }),
    dialect: 'v1',
    network: 'mainnet',
    key,
    nonceStore: journal.nonces,
    strategies: [],
    beforeStart: (parts) => {
      recorder = recordTrading(journal, parts, { venue: venue.url, clock: systemClock(), log, onWriteError });
    },
  });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await session.stop({ cancelOrders: false });
      recorder!.unsubscribe();
    })());
  cleanup.push(stop);
  return stop;
}

async function venuePosition(t: Trader, symbol: string): Promise<number> {
  const [row] = await t.query('fullAccount');
  return row.fullAccount.positions.find((p: { coin: string }) => p.coin === symbol)?.size ?? 0;
}

describe('journal catch-up at start', () => {
  it('journals the fills made while the recorder was down, each with the account’s own side; the net position equals the venue’s', async () => {
    const key = Keypair.generate();
    const { venue, traders } = await venueWithFunds(
      (v) => new Trader(v, key),
      (v) => new Trader(v),
    );
    const [bot, other] = traders as [Trader, Trader];
    const journal = openJournal();

    const stop = await record(venue, journal, key);
    await other.orders(other.limit('ETH-USD', false, 3000, 0.2));
    await bot.orders(bot.limit('ETH-USD', true, 3000, 0.2, 'IOC'));
    await until(() => journal.fills().length === 1, 'the streamed fill');
    await stop();

    // Down: a resting order of the bot is hit (bot is maker, the row's isBuy is the taker's buy), and the bot takes.
    await bot.orders(bot.limit('ETH-USD', false, 3010, 1));
    await other.orders(other.limit('ETH-USD', true, 3010, 0.5, 'IOC'), other.limit('ETH-USD', false, 2990, 0.1));
    await bot.orders(bot.limit('ETH-USD', true, 2990, 0.1, 'IOC'));

    await record(venue, journal, key);
    await until(() => journal.fills().length === 3, 'the fills made while down');
    expect(journal.fills().map((f) => [f.side, f.size, f.maker])).toEqual([
      ['buy', 0.2, false],
      ['sell', 0.5, true],
      ['buy', 0.1, false],
    ]);
    expect(new Set(journal.fills().map((f) => f.epoch)).size).toBe(1);
    const venueSize = await venuePosition(bot, 'ETH-USD');
    expect(venueSize).toBeCloseTo(-0.2, 9);
    expect(journal.netPositions(bot.account).get('ETH-USD')).toBeCloseTo(venueSize, 9);
    expect(warnings).toEqual([]);
  });

  it('starts a new epoch on a venue instance that does not hold the journaled fills: the report carries no position across', async () => {
    const key = Keypair.generate();
    const journal = openJournal();
    const first = await venueWithFunds(
      (v) => new Trader(v, key),
      (v) => new Trader(v),
    );
    const [bot1, other1] = first.traders as [Trader, Trader];
    const stop = await record(first.venue, journal, key);
    await other1.orders(other1.limit('ETH-USD', false, 3000, 1));
    await bot1.orders(bot1.limit('ETH-USD', true, 3000, 0.5, 'IOC'));
    await until(() => journal.fills().length === 1, 'the streamed fill');
    await stop();

    // A fresh venue (as each `npm start` embeds): the same account starts flat there and sells 0.5 at 3100.
    const second = await venueWithFunds(
      (v) => new Trader(v, key),
      (v) => new Trader(v),
    );
    const [bot2, other2] = second.traders as [Trader, Trader];
    await record(second.venue, journal, key);
    await until(() => journal.netPositions(key.publicKey).size === 0, 'the catch-up on the new venue');
    await other2.orders(other2.limit('ETH-USD', true, 3100, 1));
    await bot2.orders(bot2.limit('ETH-USD', false, 3100, 0.5, 'IOC'));
    await until(() => journal.fills().length === 2, 'the fill on the new venue');

    const [e1, e2] = journal.fills().map((f) => f.epoch);
    expect(e1).not.toBe(e2);
    const [row] = journal.report();
    expect(row).toMatchObject({ strategy: UNATTRIBUTED, symbol: 'ETH-USD', fills: 2, realizedPnlUsd: 0 });
    expect(journal.netPositions(key.publicKey).get('ETH-USD')).toBeCloseTo(await venuePosition(bot2, 'ETH-USD'), 9);
  });

  it("warns when the venue's fills history no longer reaches back to the journal's: the net positions differ", async () => {
    const key = Keypair.generate();
    const { venue, traders } = await venueWithHistory(
      2,
      (v) => new Trader(v, key),
      (v) => new Trader(v),
    );
    const [bot, other] = traders as [Trader, Trader];
    const journal = openJournal();
    const stop = await record(venue, journal, key);
    await other.orders(other.limit('ETH-USD', false, 3000, 0.1));
    await bot.orders(bot.limit('ETH-USD', true, 3000, 0.1, 'IOC'));
    await until(() => journal.fills().length === 1, 'the streamed fill');
    await stop();
    // Down: three more fills; the venue keeps only the last two, so the journal's fill and the first of these are gone.
    for (const px of [3001, 3002, 3003]) {
      await other.orders(other.limit('ETH-USD', false, px, 0.1));
      await bot.orders(bot.limit('ETH-USD', true, px, 0.1, 'IOC'));
    }
    await record(venue, journal, key);
    await until(() => warnings.length > 0, 'the warning');
    expect(warnings[0]).toMatchObject({ sizes: { 'ETH-USD': { journal: expect.closeTo(0.2, 9), venue: expect.closeTo(0.4, 9) } } });
  });
});
