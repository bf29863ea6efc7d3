// The daemon's journal of the current generation's account notices: adl and a refused cancel sent by the local venue's
// account stream reach the journal's notices table through the daemon's recorder; the snapshot's fee tiers the account state
// (the local venue's tiers never change, so it sends no feeTierUpdate: that message's way to the journal is unit-tested).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { signAction } from '../../../src/app/commands/actions.js';
import { recordTrading } from '../../../src/app/daemon/recording.js';
import { startTrading } from '../../../src/app/trading.js';
import { connectVenue } from '../../../src/client/venue.js';
import { systemClock } from '../../../src/core/clock.js';
import type { FeeTier } from '../../../src/core/account-data.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { Journal } from '../../../src/store/index.js';
import { startVenue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';

const cleanup = cleanups();
const SYMBOL = 'BTC-USD';
const log = { info: () => {}, warn: () => {} };
const writeErrors: string[] = [];
const onWriteError = (kind: string, error: Error) => void writeErrors.push(`${kind}: ${error.message}`);

describe('account notices of the current generation in the daemon journal', () => {
  it('adl and a refused cancel are journaled for the recorded account; the fee tiers are in its state', async () => {
    const venue = await startVenue({ flow: false, dialect: 'current', network: 'devnet', seed: 19 });
    cleanup.push(() => venue.close());
    const journal = Journal.open(join(mkdtempSync(join(tmpdir(), 'perpbot-notices-')), 'journal.sqlite'));
    cleanup.push(() => journal.close());
    const [bob, alice, carol, dave] = [Keypair.generate(), Keypair.generate(), Keypair.generate(), Keypair.generate()];
    const e = venue.engine;
    e.faucet(alice.publicKey, 1000);
    for (const k of [bob, carol, dave]) e.faucet(k.publicKey, 1_000_000);
    e.setOraclePrice(SYMBOL, 50_000);

    let recorder: Subscription | undefined;
    let feeTiers: ReadonlyMap<string, FeeTier> | undefined;
    const session = await startTrading({
      venue: connectVenue({ url: venue.url, wsUrl: venue.wsUrl, dialect: 'current', network: 'devnet' }),
      dialect: 'current',
      network: 'devnet',
      key: bob,
      nonceStore: journal.nonces,
      strategies: [],
      beforeStart: (parts) => {
        recorder = recordTrading(journal, parts, { venue: venue.url, clock: systemClock(), log, onWriteError });
        recorder.add(parts.accounts.state$(parts.account).subscribe((state) => (feeTiers = state.feeTiers)));
      },
    });
    cleanup.push(async () => {
      await session.stop({ cancelOrders: false });
      recorder?.unsubscribe();
    });
    const kinds = () => journal.notices().map((n) => n.notice.kind);
    await until(() => feeTiers !== undefined, 'the fee tiers of the snapshot in the state');
    expect(feeTiers!.get(SYMBOL)).toMatchObject({ symbol: SYMBOL, tierIndex: 0, makerBps: expect.any(Number), takerBps: expect.any(Number) });

    const cx = signAction('current', 'devnet', bob, BigInt(Date.now()) * 1_000_000n, [{ cx: { c: SYMBOL, oid: Keypair.generate().publicKey } }]);
    await fetch(`${venue.url}/order`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: cx.bodyText });
    await until(() => kinds().includes('cancelRejected'), 'the refused cancel journaled');

    // Alice's long cannot be swept inside the 5 % band: Bob's short is deleveraged against it (engine.risk.test.ts).
    const place = (k: Keypair, isBuy: boolean, px: number, sz: number) =>
      e.applyOrderAction(k.publicKey, [{ order: { c: SYMBOL, b: isBuy, px, sz, r: false, t: { limit: { tif: 'GTC' } } } }]);
    place(bob, false, 50_000, 0.14);
    place(alice, true, 50_000, 0.14);
    place(dave, false, 46_000, 0.05);
    place(alice, true, 46_000, 0.05);
    place(carol, true, 40_000, 0.5);
    e.setOraclePrice(SYMBOL, 44_000);
    venue.step();
    await until(() => kinds().includes('adl'), 'the adl journaled');
    const adl = journal.notices().find((n) => n.notice.kind === 'adl')!;
    expect(adl).toMatchObject({ account: bob.publicKey, notice: { kind: 'adl', symbol: SYMBOL, size: 0.14, price: 44_000, side: 'buy' } });
    expect(journal.notices().every((n) => n.account === bob.publicKey)).toBe(true);
    expect(writeErrors).toEqual([]);
  }, 30_000);
});
