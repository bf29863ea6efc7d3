import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { cancelAction, placeAction, signAction } from '../../../../src/app/commands/actions.js';
import { journalingSubmitter } from '../../../../src/app/daemon/recording.js';
import { ManualClock } from '../../../../src/core/clock.js';
import type { Dialect } from '../../../../src/core/types.js';
import { Keypair } from '../../../../src/protocol/keys.js';
import type { SignedRequest } from '../../../../src/protocol/sign.js';
import { Journal, type JournalWriteKind } from '../../../../src/store/index.js';
import type { SubmitOutcome, Submitter } from '../../../../src/venue/port.js';

const opened: Journal[] = [];
afterEach(() => {
  for (const j of opened.splice(0)) j.close();
});

const T0_NS = 1_767_225_600_000_000_000n;

/** The venue side: accepts everything and keeps what reached it. */
class AcceptingVenue implements Submitter {
  readonly sent: SignedRequest[] = [];
  async submit(request: SignedRequest): Promise<SubmitOutcome> {
    this.sent.push(request);
    return { outcome: 'accepted', items: [] };
  }
}

function setUp(): { journal: Journal; db: Database.Database; venue: AcceptingVenue; submitter: Submitter; failures: JournalWriteKind[] } {
  const failures: JournalWriteKind[] = [];
  const journal = Journal.open(join(mkdtempSync(join(tmpdir(), 'perpbot-submitter-')), 'j.sqlite'), { onWriteError: (kind) => failures.push(kind) });
  opened.push(journal);
  const venue = new AcceptingVenue();
  const db = (journal as unknown as { db: Database.Database }).db;
  return { journal, db, venue, submitter: journalingSubmitter(journal, 'account', new ManualClock(T0_NS), venue), failures };
}

describe.each<Dialect>(['v1', 'current'])('journalingSubmitter (%s) when the batch row cannot be written', (dialect) => {
  const key = Keypair.generate();
  const place = (nonce: bigint) =>
    signAction(
      dialect,
      'mainnet',
      key,
      nonce,
      placeAction(dialect, { symbol: 'BTC-USD', side: 'buy', size: 0.001, price: 90_000, tif: 'GTC', reduceOnly: false }, undefined),
    );
  const cancel = (nonce: bigint) => signAction(dialect, 'mainnet', key, nonce, cancelAction(dialect, 'BTC-USD', Keypair.generate().publicKey));

  it('does not send a batch that places orders: it answers rejected, naming the journal', async () => {
    const { db, venue, submitter, failures } = setUp();
    db.pragma('query_only = 1');
    const outcome = await submitter.submit(place(T0_NS));
    expect(outcome).toMatchObject({
      outcome: 'rejected',
      code: 'JOURNAL',
      reason: 'not sent: the journal could not record the batch (attempt to write a readonly database)',
    });
    expect(venue.sent).toEqual([]);
    expect(failures).toEqual(['batch']);
  });

  it('sends a cancel-only batch all the same (it can create no order and no fill)', async () => {
    const { db, venue, submitter, failures } = setUp();
    db.pragma('query_only = 1');
    const request = cancel(T0_NS);
    expect(request.encoded.cancelOnly).toBe(true);
    expect(await submitter.submit(request)).toEqual({ outcome: 'accepted', items: [] });
    expect(venue.sent).toEqual([request]);
    expect(failures).toEqual(['batch']);
  });

  it('returns the venue’s answer when only the outcome cannot be written; the row stays unresolved for the next start', async () => {
    const { journal, db, venue, submitter, failures } = setUp();
    const sending = submitter.submit(place(T0_NS));
    db.pragma('query_only = 1');
    expect(await sending).toEqual({ outcome: 'accepted', items: [] });
    expect(venue.sent).toHaveLength(1);
    expect(failures).toEqual(['settle']);
    db.pragma('query_only = 0');
    expect(journal.unresolvedBatches().map((b) => b.nonceNs)).toEqual([T0_NS]);
  });
});
