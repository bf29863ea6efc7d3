// Feeds the journal from a trading session: each signed batch before it is sent, order events, fills (those made while
// nothing recorded included), position snapshots, funding payments (paper trading's as the simulated exchange pays them)
// and account notices (adl, refused cancels, fee tiers).
// Invariants: a batch that places orders reaches the socket only after its row is committed (a cancel goes out even when
// its row cannot be written); a fill is journaled with the account's own side; a failed write never throws from here.

import { Gauge, type Registry } from 'prom-client';
import { defer, interval, type Subscription } from 'rxjs';
import { KeyCounts } from '../../account/dedupe.js';
import type { HttpClient } from '../../client/http.js';
import type { LiveVenue } from '../../client/venue.js';
import type { Fill } from '../../core/account-data.js';
import type { BackoffOptions } from '../../core/backoff.js';
import type { Clock } from '../../core/clock.js';
import { retryWithBackoff } from '../../core/rx.js';
import type { CatchUp, FillRecord, Journal, JournalWriteKind } from '../../store/index.js';
import type { Submitter } from '../../venue/port.js';
import { isPaperVenue } from '../paper-venue.js';
import type { TradingParts } from '../trading.js';
import type { LiveSession } from './control.js';

const NS_PER_MS = 1_000_000n;
/** Recent fill keys remembered to number equal fills of one match (they arrive together). */
const EQUAL_FILL_MEMORY = 1_000;

/**
 * Journals each batch (committed) before handing it to `inner`, and its outcome after. When the row cannot be written
 * (the journal reports that to its onWriteError) a batch that places orders is not sent and answers rejected; a cancel-only
 * batch is sent all the same (it can create no order and no fill). An outcome that cannot be written leaves the row
 * unresolved: the next start resolves it against the venue.
 */
export function journalingSubmitter(journal: Journal, account: string, clock: Clock, inner: Submitter): Submitter {
  return {
    async submit(request, hooks) {
      let id: number | undefined;
      try {
        id = journal.recordBatch({
          signer: request.signer,
          account,
          nonceNs: request.nonce,
          path: request.encoded.path,
          message: request.encoded.message,
          signature: request.signature,
          body: request.bodyText,
          orderIds: request.encoded.orderIds,
          atNs: clock.nowNs(),
        });
      } catch (e) {
        if (!request.encoded.cancelOnly)
          return {
            outcome: 'rejected',
            reason: `not sent: the journal could not record the batch (${(e as Error).message})`,
            httpStatus: undefined,
            code: 'JOURNAL',
            retryAfterMs: undefined,
          };
      }
      const outcome = await inner.submit(request, hooks);
      if (id !== undefined) {
        try {
          journal.settleBatch(id, outcome.outcome, outcome.outcome === 'accepted' ? undefined : outcome.reason, clock.nowNs());
        } catch {
          // Reported by the journal; the row stays unresolved and the next start resolves it against the venue.
        }
      }
      return outcome;
    },
  };
}

export interface RecordingOptions {
  /** Position snapshots and funding queries, ms. */
  snapshotEveryMs: number;
  log: { warn(fields: object, message: string): void };
  /** Stamps the position snapshots. */
  clock: Pick<Clock, 'nowMs'>;
}

export interface TradingRecordingOptions {
  /** The venue's REST URL, kept with an account epoch the catch-up starts. */
  venue: string;
  /** Stamps a new epoch. */
  clock: Pick<Clock, 'nowNs'>;
  /** The account's logger (its lines name the account). */
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
  /** Where a row that cannot be handed to the journal is reported (the journal's own onWriteError); it is not thrown. */
  onWriteError: (kind: JournalWriteKind, error: Error) => void;
}

/** Delay between failed catch-up reads: 500 ms doubling to 30 s. */
const CATCH_UP_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000 };

/** Sizes closer than this (base units) are equal (float residue of summed fills). */
const SAME_SIZE = 1e-9;

/**
 * Records the order events and fills of a session from before it starts (so start-up reconciliation's are kept) until
 * the returned subscription ends. Meanwhile it catches up (catchUpFills): fills the venue made while nothing recorded
 * are journaled, and the account's rows join the epoch of the venue instance (reads retried with backoff).
 */
export function recordTrading(journal: Journal, parts: TradingParts<LiveVenue>, opts: TradingRecordingOptions): Subscription {
  const { account, execution, accounts, venue } = parts;
  // A throw in a subscriber would end the process (RxJS reports it from a timer): each write is reported instead.
  const guarded =
    <T>(kind: JournalWriteKind, write: (value: T) => void) =>
    (value: T) => {
      try {
        write(value);
      } catch (e) {
        opts.onWriteError(kind, e as Error);
      }
    };
  const subscription = execution.events$().subscribe(guarded('order', (e) => journal.recordOrder({ ...e, account, atNs: BigInt(e.timeMs) * NS_PER_MS })));
  subscription.add(accounts.notices$(account).subscribe(guarded('notice', (notice) => journal.recordNotice({ account, notice }))));
  const equalFills = new KeyCounts(EQUAL_FILL_MEMORY);
  subscription.add(
    accounts.fills$(account).subscribe(
      // Past the tracker's memory the journal attributes the fill from the order's recorded events.
      guarded('fill', (f) => journal.recordFill(fillRecord(account, f, equalFills, execution.order(f.orderId)?.strategy))),
    ),
  );
  if (isPaperVenue(venue)) subscription.add(venue.funding$.subscribe(guarded('funding', (f) => journal.recordFunding({ account, ...f }))));
  const { log } = opts;
  subscription.add(
    defer(() => catchUpFills(journal, account, venue, opts))
      .pipe(retryWithBackoff(CATCH_UP_BACKOFF, (e, attempt) => log.warn({ attempt, error: e.message }, 'journal catch-up failed; retrying')))
      .subscribe((r) => log.info({ ...r }, 'journal caught up with the venue')),
  );
  return subscription;
}

/** A fill in the account's own view as a journal row; `equal` numbers fills equal in every field (their `seq`). */
function fillRecord(account: string, f: Fill, equal: KeyCounts, strategy?: string): FillRecord {
  const key = `${f.orderId}|${f.venueTimeNs}|${f.side}|${f.price}|${f.size}`;
  const seq = equal.count(key);
  equal.add(key);
  return {
    account,
    strategy,
    symbol: f.symbol,
    orderId: f.orderId,
    side: f.side,
    price: f.price,
    size: f.size,
    feeUsd: f.feeUsd,
    maker: f.maker,
    timeNs: f.venueTimeNs,
    seq,
  };
}

/**
 * Journal.catchUp with the venue's fills of `account` (the last 5000 it keeps), then a check that the journal's net
 * position per symbol equals the venue's; on a difference it reads once more (a fill between the two reads), then warns
 * (the venue's history does not reach back to the epoch's first fill).
 */
async function catchUpFills(
  journal: Journal,
  account: string,
  venue: LiveVenue,
  opts: Pick<TradingRecordingOptions, 'venue' | 'clock' | 'log'>,
): Promise<CatchUp> {
  for (let attempt = 1; ; attempt++) {
    const held = await heldPositions(venue, account);
    const rows = await venue.account.fills(account);
    const equal = new KeyCounts(rows.length + 1);
    // The venue lists fills newest first.
    const fills = rows.map((f) => fillRecord(account, f, equal)).reverse();
    const result = journal.catchUp(account, opts.venue, fills, opts.clock.nowNs());
    const journaled = journal.netPositions(account);
    const differ = [...new Set([...journaled.keys(), ...held.keys()])].filter((s) => Math.abs((journaled.get(s) ?? 0) - (held.get(s) ?? 0)) > SAME_SIZE);
    if (differ.length === 0) return result;
    if (attempt === 2) {
      const sizes = Object.fromEntries(differ.map((s) => [s, { journal: journaled.get(s) ?? 0, venue: held.get(s) ?? 0 }]));
      opts.log.warn(
        { epoch: result.epoch, sizes },
        "the journal's net position differs from the venue's: the venue's fills history does not reach back to the epoch's first fill",
      );
      return result;
    }
  }
}

/** The venue's position size of `account` by symbol: the simulated account's when paper trading. */
async function heldPositions(venue: LiveVenue, account: string): Promise<Map<string, number>> {
  if (isPaperVenue(venue)) {
    const u = venue.paper.exchange.snapshot();
    return new Map(u.kind === 'snapshot' ? u.snapshot.positions.map((p) => [p.symbol, p.size]) : []);
  }
  const [full] = await venue.http.account('fullAccount', account);
  return new Map((full?.fullAccount.positions ?? []).map((p) => [p.coin, p.size]));
}

/** Records the session's positions and funding every `snapshotEveryMs` until the returned subscription ends. */
export function recordSnapshots(journal: Journal, session: LiveSession, opts: RecordingOptions): Subscription {
  const snapshot = () => snapshotAccount(journal, session, opts.clock).catch((e: Error) => opts.log.warn({ error: e.message }, 'journal snapshot failed'));
  return interval(opts.snapshotEveryMs).subscribe(() => void snapshot());
}

/**
 * Writes the current positions and any new funding payments of the session's account (read through `http`; when paper
 * trading recordTrading journals each payment as it is made: the simulated exchange keeps no funding history).
 */
export async function snapshotAccount(
  journal: Journal,
  session: LiveSession,
  clock: Pick<Clock, 'nowMs'>,
  http: Pick<HttpClient, 'account'> = session.venue.http,
): Promise<void> {
  const account = session.account;
  const atMs = clock.nowMs();
  for (const p of session.accountState()?.positions.values() ?? []) {
    journal.recordPosition({
      account,
      symbol: p.symbol,
      size: p.size,
      entryPrice: p.entryPrice,
      realizedPnlUsd: p.realizedPnlUsd,
      unrealizedPnlUsd: p.unrealizedPnlUsd ?? 0,
      atMs,
    });
  }
  if (isPaperVenue(session.venue)) return;
  for (const row of await http.account('fundingHistory', account)) {
    const f = row.fundingPayment;
    journal.recordFunding({ account, symbol: f.symbol, amountUsd: f.payment, rate: f.fundingRate, timeNs: f.timestamp });
  }
}

/** Registers perpbot_journal_bytes on `registry`: the journal's bytes on disk, read at each scrape. */
export function journalSizeGauge(journal: Journal, registry: Registry): void {
  new Gauge({
    name: 'perpbot_journal_bytes',
    help: 'Bytes of the journal on disk (database file and write-ahead log); bounded by journal.retention.',
    registers: [registry],
    collect() {
      this.set(journal.fileBytes());
    },
  });
}
