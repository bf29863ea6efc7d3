// The journal: an embedded SQLite file (WAL) of nonce marks, signed batches, order events, fills, positions, funding and notices,
// each account's rows grouped in epochs (one venue instance's continuous history of the account).
// Invariants: nonce marks and batches are committed before their call returns (survive kill -9); other rows commit within
// one event-loop turn; pruning never deletes nonce marks, epochs or unresolved batches; a journal opened for paper
// trading marks every row it writes paper.

import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { AccountNotice } from '../core/account-data.js';
import type { IntentRef, Side } from '../core/intent.js';
import { parseJson, stringifyJson } from '../core/json.js';
import type { NonceStore } from '../protocol/nonce.js';
import { JournalError } from './errors.js';
import { buildReport, UNATTRIBUTED, type ReportFill, type ReportFunding, type ReportOrder, type ReportRow } from './report.js';
import { LEGACY_EPOCH_BASIS, migrate, SCHEMA_VERSION, u64Text } from './schema.js';
import { pragma, statement } from './statements.js';

/** Where the bot keeps its journal unless configured otherwise (relative to the working directory). */
export const DEFAULT_JOURNAL_PATH = 'data/perpbot.sqlite';

/** A signed action batch as it goes on the wire. */
export interface BatchRecord {
  /** Base58 public key that signed. */
  readonly signer: string;
  /** Base58 public key of the traded account. */
  readonly account: string;
  /** u64 nonce of the batch; unique per signer. */
  readonly nonceNs: bigint;
  /** Endpoint path (`/order`, ...). */
  readonly path: string;
  /** The bytes that were signed. */
  readonly message: Uint8Array;
  /** Base58 Ed25519 signature. */
  readonly signature: string;
  /** The JSON request body text. */
  readonly body: string;
  /** Predicted order ids, one per action; null where none applies. */
  readonly orderIds: readonly (string | null)[];
  /** Epoch ns when it was journaled. */
  readonly atNs: bigint;
}

/** A batch's request time (journaled before it was sent) and when the venue's answer arrived, epoch ns. */
export interface BatchRoundTrip {
  readonly atNs: bigint;
  readonly answeredNs: bigint;
}

/** What the venue answered (`unknown`: no answer, e.g. a timeout or a disconnect after send). */
export type BatchOutcome = 'accepted' | 'rejected' | 'unknown';
/** What querying the venue later showed about a batch without a definite answer. */
export type BatchResolution = 'applied' | 'not-applied' | 'uncertain';

export interface BatchRow extends BatchRecord {
  readonly id: number;
  readonly outcome: BatchOutcome | null;
  readonly outcomeDetail: string | null;
  readonly resolution: BatchResolution | null;
  readonly resolutionDetail: string | null;
  /** Signed while paper trading: never sent to a venue. */
  readonly paper: boolean;
}

/** What order changes and fills both say about their order. */
interface OrderFields {
  readonly account: string;
  readonly strategy: string | undefined;
  readonly symbol: string;
  readonly orderId: string;
  readonly side: Side;
  /** USD */
  readonly price: number;
  /** Base units */
  readonly size: number;
}

/** One change of an order (the shape of an OrderEvent plus its account). */
export interface OrderRecord extends OrderFields {
  /** Base units */
  readonly filledSize: number;
  readonly status: string;
  readonly reason?: string | undefined;
  /** Epoch ns when execution learned it. */
  readonly atNs: bigint;
  /** The intent that placed the order, when one did. */
  readonly intent?: IntentRef | undefined;
}

/** One order as the journal saw it: its first event's time, its last event's status and filled size, its intent. */
export interface JournaledOrder extends Omit<OrderRecord, 'atNs'> {
  /** Epoch ns of its first and its last event. */
  readonly firstNs: bigint;
  readonly lastNs: bigint;
}

/** A fill; `strategy` when known (the report otherwise looks it up from the order's events). */
export interface FillRecord extends OrderFields {
  /** USD paid; negative for a rebate (the venue's fee sign). */
  readonly feeUsd: number;
  readonly maker: boolean;
  /** The venue's fill timestamp, epoch ns (exact). */
  readonly timeNs: bigint;
  /**
   * Which of several fills equal in every field above this is (0 for the first): one action can fill one order
   * twice at one price, size and timestamp. Default 0.
   */
  readonly seq?: number;
}

/** A journaled fill and the epoch it belongs to (null until its run identified the venue instance). */
export interface JournaledFill extends FillRecord {
  readonly epoch: number | null;
}

/** What Journal.catchUp found and did. */
export interface CatchUp {
  /** The account's epoch from now on; the account's rows of this run carry it. */
  readonly epoch: number;
  /** True when the venue still holds a fill journaled in `epoch`; false when `epoch` is new (another venue instance). */
  readonly continued: boolean;
  /** Fills journaled by the catch-up (the rest were known). */
  readonly imported: number;
  /** Maker fills of a continued epoch from before epochs whose side differed from the venue's (earlier builds journaled the taker's side after a stream gap), corrected. */
  readonly repaired: number;
}

/** One step of retention (Journal.prune). */
export interface PruneStep {
  /** Rows timed before this (epoch ms) are deleted; undefined keeps rows of any age. */
  readonly beforeMs?: number;
  /** While the pages in use exceed this many bytes the oldest rows are deleted whatever their age; undefined: no bound. */
  readonly maxBytes?: number;
  /** At most this many rows per table. */
  readonly rows: number;
}

export interface FundingRecord {
  readonly account: string;
  readonly symbol: string;
  /** USD received; negative when paid (the venue's payment sign). */
  readonly amountUsd: number;
  /** Fraction per interval. */
  readonly rate: number;
  /** The venue's payment timestamp, epoch ns (exact). */
  readonly timeNs: bigint;
}

/** A notice of the account stream (current generation): adl, a refused cancel, a fee tier change. */
export interface NoticeRecord {
  readonly account: string;
  readonly notice: AccountNotice;
}

/** A position snapshot of one account and symbol. */
export interface PositionRecord {
  readonly account: string;
  readonly symbol: string;
  /** Signed base units. */
  readonly size: number;
  /** USD */
  readonly entryPrice: number;
  readonly realizedPnlUsd: number;
  readonly unrealizedPnlUsd: number;
  /** Epoch ms of the snapshot. */
  readonly atMs: number;
}

export interface JournalOpenOptions {
  /** Fail instead of creating a new journal when the file is absent (readers such as `perpbot report`). */
  readonly mustExist?: boolean;
  /** Every row this journal writes is marked paper (paper trading: the orders went to the simulated exchange). Default false. */
  readonly paper?: boolean;
  /**
   * Open an existing journal read-only (implies mustExist): nothing is migrated or written, so a journal of another
   * schema version is refused; a daemon may be writing it meanwhile.
   */
  readonly readOnly?: boolean;
  /**
   * Called for each write that fails (SQLITE_FULL on a full disk, SQLITE_READONLY, ...), with the kind of row. With it,
   * a buffered row that fails to commit is kept and retried with the next commit (flush, close) instead of throwing
   * from the event loop; writes committed before their call returns report here and still throw to their caller.
   */
  readonly onWriteError?: (kind: JournalWriteKind, error: Error) => void;
  /**
   * With onWriteError: buffered rows kept for a later commit at most (the oldest are dropped beyond it, so a journal
   * that stays broken cannot exhaust memory). Default 100,000.
   */
  readonly maxRetainedRows?: number;
  /** Called with the number of buffered rows dropped past maxRetainedRows. */
  readonly onRowsDropped?: (rows: number) => void;
}

const MAX_RETAINED_ROWS = 100_000;

/**
 * What a failed write was writing: the row's table (`settle`, `resolve`: a batch's outcome, its resolution; `catch-up`:
 * the start-up import of the venue's fills; `checkpoint`: the WAL at close; `prune`: a retention step, reported by its caller).
 */
export type JournalWriteKind =
  | 'batch'
  | 'settle'
  | 'resolve'
  | 'nonce'
  | 'order'
  | 'fill'
  | 'funding'
  | 'notice'
  | 'position'
  | 'catch-up'
  | 'checkpoint'
  | 'prune';

type Params = Record<string, string | number | bigint | Uint8Array | null>;
type Write = Database.Statement<[Params]>;

interface BatchSqlRow {
  id: number;
  signer: string;
  account: string;
  nonceNs: string;
  path: string;
  message: Uint8Array;
  signature: string;
  body: string;
  orderIds: string;
  atNs: string;
  outcome: BatchOutcome | null;
  outcomeDetail: string | null;
  resolution: BatchResolution | null;
  resolutionDetail: string | null;
  paper: number;
}

const BATCH_COLUMNS = `id, signer, account, nonce_ns AS nonceNs, path, message, signature, body, order_ids AS orderIds, at_ns AS atNs,
  outcome, outcome_detail AS outcomeDetail, resolution, resolution_detail AS resolutionDetail, paper`;

/** The tables retention prunes, with their time column and the rows it must keep. */
const PRUNABLE = [
  { table: 'order_events', time: 'at_ns', keep: 'FALSE' },
  { table: 'fills', time: 'time_ns', keep: 'FALSE' },
  { table: 'funding', time: 'time_ns', keep: 'FALSE' },
  { table: 'notices', time: 'time_ns', keep: 'FALSE' },
  { table: 'positions', time: 'at_ms', keep: 'FALSE' },
  // An unresolved batch is resolved against the venue at the next start.
  { table: 'batches', time: 'at_ns', keep: "resolution IS NULL AND (outcome IS NULL OR outcome = 'unknown')" },
] as const;

/** Freed pages handed back to the file system per prune step (auto_vacuum=INCREMENTAL journals). */
const VACUUM_PAGES_PER_STEP = 256;

/** Each order's strategy (any event naming one) and first journal time. */
const ORDERS = `SELECT account, order_id, MAX(strategy) AS strategy, MAX(symbol) AS symbol, MIN(at_ns) AS first_ns
  FROM order_events GROUP BY account, order_id`;

function sinceNsText(sinceMs: number | undefined): string {
  return u64Text(BigInt(sinceMs ?? 0) * 1_000_000n);
}

/**
 * One journal file, used from one process at a time for writing (readers such as `perpbot report` may share it).
 * A buffered row that fails to commit in its event-loop turn throws from the event loop, unless `onWriteError` was
 * given (JournalOpenOptions): then it is reported there and kept for the next commit.
 */
export class Journal {
  /** Per-signer nonce high-water marks; a save is fsynced (synchronous=FULL) before it returns, and a mark never decreases. */
  readonly nonces: NonceStore;
  private readonly db: Database.Database;
  private readonly path: string;
  private readonly insertBatch: Write;
  private readonly settle: Database.Statement<[string, string | null, string | null, number]>;
  private readonly resolve: Database.Statement<[string, string, number]>;
  private readonly insertOrder: Write;
  private readonly insertFill: Write;
  private readonly insertFunding: Write;
  private readonly insertNotice: Write;
  private readonly insertPosition: Write;
  private readonly commit: (writes: readonly [Write, Params][]) => void;
  /** Each account's current epoch, once its run has identified the venue instance. */
  private readonly epochs = new Map<string, number>();
  /** Funding payments before this (epoch ns) are not journaled: retention pruned them, and the venue lists them again. */
  private fundingFromNs = 0n;
  private pending: [Write, Params][] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private readonly onWriteError: ((kind: JournalWriteKind, error: Error) => void) | undefined;
  private readonly retained: Pick<JournalOpenOptions, 'maxRetainedRows' | 'onRowsDropped'>;
  /** The kind of each buffered insert. */
  private readonly kinds: Map<Write, JournalWriteKind>;

  private constructor(
    db: Database.Database,
    path: string,
    paperRows: boolean,
    opts: Pick<JournalOpenOptions, 'onWriteError' | 'maxRetainedRows' | 'onRowsDropped'> = {},
  ) {
    this.db = db;
    this.path = path;
    this.onWriteError = opts.onWriteError;
    this.retained = opts;
    const paper = paperRows ? 1 : 0;
    const loadNonce = statement<[string], string>(db, 'SELECT high_water_ns FROM nonces WHERE signer = ?').pluck();
    const saveNonce = statement<[string, string]>(
      db,
      `INSERT INTO nonces (signer, high_water_ns) VALUES (?, ?)
       ON CONFLICT (signer) DO UPDATE SET high_water_ns = MAX(high_water_ns, excluded.high_water_ns)`,
    );
    this.nonces = {
      load: (signer) => {
        const text = loadNonce.get(signer);
        return text === undefined ? undefined : BigInt(text);
      },
      save: (signer, highWaterNs) => {
        const text = u64Text(highWaterNs);
        pragma(db, 'synchronous = FULL');
        try {
          saveNonce.run(signer, text);
        } catch (e) {
          this.failed('nonce', e);
          throw e;
        } finally {
          pragma(db, 'synchronous = NORMAL');
        }
      },
    };
    this.insertBatch = statement(
      db,
      `INSERT INTO batches (signer, account, nonce_ns, path, message, signature, body, order_ids, at_ns, paper)
       VALUES (@signer, @account, @nonceNs, @path, @message, @signature, @body, @orderIds, @atNs, ${paper})`,
    );
    this.settle = statement(db, 'UPDATE batches SET outcome = ?, outcome_detail = ?, answered_ns = ? WHERE id = ?');
    this.resolve = statement(db, 'UPDATE batches SET resolution = ?, resolution_detail = ? WHERE id = ?');
    this.insertOrder = statement(
      db,
      `INSERT INTO order_events (account, strategy, symbol, order_id, side, price, size, filled_size, status, reason, at_ns, epoch, paper, intent_seq, intent_leg, intent_data_ms)
       VALUES (@account, @strategy, @symbol, @orderId, @side, @price, @size, @filledSize, @status, @reason, @atNs, @epoch, ${paper}, @intentSeq, @intentLeg, @intentDataMs)`,
    );
    this.insertFill = statement(
      db,
      `INSERT OR IGNORE INTO fills (account, strategy, symbol, order_id, side, price, size, fee_usd, maker, time_ns, seq, epoch, paper)
       VALUES (@account, @strategy, @symbol, @orderId, @side, @price, @size, @feeUsd, @maker, @timeNs, @seq, @epoch, ${paper})`,
    );
    this.insertFunding = statement(
      db,
      `INSERT OR IGNORE INTO funding (account, symbol, amount_usd, rate, time_ns, epoch, paper)
       VALUES (@account, @symbol, @amountUsd, @rate, @timeNs, @epoch, ${paper})`,
    );
    this.insertNotice = statement(
      db,
      `INSERT INTO notices (account, kind, symbol, order_id, detail, time_ns, epoch, paper)
       VALUES (@account, @kind, @symbol, @orderId, @detail, @timeNs, @epoch, ${paper})`,
    );
    this.insertPosition = statement(
      db,
      `INSERT INTO positions (account, symbol, size, entry_price, realized_pnl_usd, unrealized_pnl_usd, at_ms, epoch, paper)
       VALUES (@account, @symbol, @size, @entryPrice, @realizedPnlUsd, @unrealizedPnlUsd, @atMs, @epoch, ${paper})`,
    );
    this.commit = db.transaction((writes: readonly [Write, Params][]) => {
      for (const [stmt, params] of writes) stmt.run(params);
    });
    this.kinds = new Map([
      [this.insertOrder, 'order'],
      [this.insertFill, 'fill'],
      [this.insertFunding, 'funding'],
      [this.insertNotice, 'notice'],
      [this.insertPosition, 'position'],
    ]);
  }

  /**
   * Opens (creating it and its parent directories unless `mustExist`) and migrates the journal at `path`, in WAL
   * mode with synchronous=NORMAL. Throws JournalError naming the path when it cannot.
   */
  static open(path: string, opts: JournalOpenOptions = {}): Journal {
    let db: Database.Database | undefined;
    if (opts.readOnly) {
      try {
        db = new Database(path, { readonly: true, fileMustExist: true });
      } catch (e) {
        if ((e as { code?: unknown }).code === 'SQLITE_CANTOPEN') throw new JournalError(`no journal at ${path}`, { cause: e });
        throw new JournalError(`cannot open journal ${path}: ${(e as Error).message}`, { cause: e });
      }
      const version = pragma(db, 'user_version') as number;
      if (version !== SCHEMA_VERSION) {
        db.close();
        throw new JournalError(
          `journal ${path} has schema version ${version}, this build reads ${SCHEMA_VERSION}: open it once with this build's daemon or perpbot report`,
        );
      }
      return new Journal(db, path, false);
    }
    try {
      if (!opts.mustExist) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      db = new Database(path, { fileMustExist: opts.mustExist ?? false });
      // Takes effect only on a new file, before WAL mode and the first table: retention's freed pages can then be
      // handed back to the file system (an older journal reuses them instead).
      pragma(db, 'auto_vacuum = INCREMENTAL');
      const mode = pragma(db, 'journal_mode = WAL');
      if (mode !== 'wal') throw new JournalError(`WAL mode unavailable (journal_mode is ${String(mode)})`);
      pragma(db, 'synchronous = NORMAL');
      migrate(db);
      return new Journal(db, path, opts.paper ?? false, opts);
    } catch (e) {
      db?.close();
      if (opts.mustExist && (e as { code?: unknown }).code === 'SQLITE_CANTOPEN') throw new JournalError(`no journal at ${path}`, { cause: e });
      throw new JournalError(`cannot open journal ${path}: ${(e as Error).message}`, { cause: e });
    }
  }

  /**
   * Commits buffered rows, checkpoints the WAL and closes; later calls do nothing. With `onWriteError`, rows that still
   * cannot be committed are reported there and dropped, and a failed checkpoint is reported (the WAL keeps the rows).
   */
  close(): void {
    if (!this.db.open) return;
    try {
      this.flush();
      if (!this.db.readonly) pragma(this.db, 'wal_checkpoint(PASSIVE)');
    } catch (e) {
      if (!this.onWriteError) throw e;
      this.failed('checkpoint', e);
    } finally {
      this.db.close();
    }
  }

  /**
   * Journals a signed batch, committed before it returns; call it just before the batch is written to the socket.
   * Returns the row id. Throws JournalError when the signer's nonce was journaled before (a nonce is never reused), and
   * SQLite's error when the row cannot be written (both reported to onWriteError first).
   */
  recordBatch(b: BatchRecord): number {
    try {
      const r = this.insertBatch.run({
        signer: b.signer,
        account: b.account,
        nonceNs: u64Text(b.nonceNs),
        path: b.path,
        message: b.message,
        signature: b.signature,
        body: b.body,
        orderIds: JSON.stringify(b.orderIds),
        atNs: u64Text(b.atNs),
      });
      return Number(r.lastInsertRowid);
    } catch (e) {
      const error =
        (e as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE'
          ? new JournalError(`nonce ${b.nonceNs} of signer ${b.signer} is already journaled`, { cause: e })
          : e;
      this.failed('batch', error);
      throw error;
    }
  }

  /**
   * Records the venue's answer to batch `id` and when it arrived (epoch ns; committed before it returns); throws
   * JournalError for an unknown id.
   */
  settleBatch(id: number, outcome: BatchOutcome, detail?: string, answeredNs?: bigint): void {
    this.updated(
      this.written('settle', () => this.settle.run(outcome, detail ?? null, answeredNs === undefined ? null : u64Text(answeredNs), id)),
      id,
    );
  }

  /** The live batches the venue answered (accepted or rejected): request and answer times, epoch ns, by request time. */
  batchRoundTrips(): BatchRoundTrip[] {
    return statement<[], { atNs: string; answeredNs: string }>(
      this.db,
      `SELECT at_ns AS atNs, answered_ns AS answeredNs FROM batches
       WHERE answered_ns IS NOT NULL AND outcome IN ('accepted', 'rejected') AND paper = 0 ORDER BY at_ns, id`,
    )
      .all()
      .map((r) => ({ atNs: BigInt(r.atNs), answeredNs: BigInt(r.answeredNs) }));
  }

  /** Records what the venue showed about batch `id` (committed before it returns); any resolution ends its unresolved state. */
  resolveBatch(id: number, resolution: BatchResolution, detail: string): void {
    this.updated(
      this.written('resolve', () => this.resolve.run(resolution, detail, id)),
      id,
    );
  }

  /** Batches without a resolution whose outcome is missing (crash between send and answer) or `unknown`, oldest first. */
  unresolvedBatches(): BatchRow[] {
    return statement<[], BatchSqlRow>(
      this.db,
      `SELECT ${BATCH_COLUMNS} FROM batches WHERE resolution IS NULL AND (outcome IS NULL OR outcome = 'unknown') ORDER BY id`,
    )
      .all()
      .map(batchRow);
  }

  batch(id: number): BatchRow | undefined {
    const row = statement<[number], BatchSqlRow>(this.db, `SELECT ${BATCH_COLUMNS} FROM batches WHERE id = ?`).get(id);
    return row && batchRow(row);
  }

  /** Buffers an order state change (committed within this event-loop turn, or by flush()). */
  recordOrder(e: OrderRecord): void {
    this.defer(this.insertOrder, {
      account: e.account,
      strategy: e.strategy ?? null,
      symbol: e.symbol,
      orderId: e.orderId,
      side: e.side,
      price: e.price,
      size: e.size,
      filledSize: e.filledSize,
      status: e.status,
      reason: e.reason ?? null,
      atNs: u64Text(e.atNs),
      epoch: this.epochOf(e.account),
      intentSeq: e.intent?.seq ?? null,
      intentLeg: e.intent?.leg ?? null,
      intentDataMs: e.intent?.dataTimeMs ?? null,
    });
  }

  /**
   * Buffers a fill. Idempotent: a fill equal in account, order, timestamp, side, price, size and `seq` to a journaled
   * one (a replay after a reconnect) is dropped; the caller numbers equal fills of one match with `seq`.
   */
  recordFill(f: FillRecord): void {
    this.defer(this.insertFill, this.fillParams(f, this.epochOf(f.account)));
  }

  private fillParams(f: FillRecord, epoch: number | null): Params {
    return {
      account: f.account,
      strategy: f.strategy ?? null,
      symbol: f.symbol,
      orderId: f.orderId,
      side: f.side,
      price: f.price,
      size: f.size,
      feeUsd: f.feeUsd,
      maker: f.maker ? 1 : 0,
      timeNs: u64Text(f.timeNs),
      seq: f.seq ?? 0,
      epoch,
    };
  }

  /** Buffers a position snapshot. */
  recordPosition(p: PositionRecord): void {
    this.defer(this.insertPosition, {
      account: p.account,
      symbol: p.symbol,
      size: p.size,
      entryPrice: p.entryPrice,
      realizedPnlUsd: p.realizedPnlUsd,
      unrealizedPnlUsd: p.unrealizedPnlUsd,
      atMs: p.atMs,
      epoch: this.epochOf(p.account),
    });
  }

  /** Buffers a funding payment; idempotent per account, symbol and timestamp; dropped when older than retention keeps. */
  recordFunding(f: FundingRecord): void {
    if (f.timeNs < this.fundingFromNs) return;
    this.defer(this.insertFunding, {
      account: f.account,
      symbol: f.symbol,
      amountUsd: f.amountUsd,
      rate: f.rate,
      timeNs: u64Text(f.timeNs),
      epoch: this.epochOf(f.account),
    });
  }

  /** Buffers an account notice. */
  recordNotice(r: NoticeRecord): void {
    const n = r.notice;
    this.defer(this.insertNotice, {
      account: r.account,
      kind: n.kind,
      symbol: n.kind === 'feeTiers' ? null : (n.symbol ?? null),
      orderId: n.kind === 'cancelRejected' ? (n.orderId ?? null) : null,
      detail: stringifyJson(n),
      timeNs: u64Text(n.venueTimeNs),
      epoch: this.epochOf(r.account),
    });
  }

  /** Account notices, in time order. */
  notices(): NoticeRecord[] {
    this.flush();
    return statement<[], { account: string; detail: string }>(this.db, 'SELECT account, detail FROM notices ORDER BY time_ns, id')
      .all()
      .map((r) => {
        const notice = parseJson(r.detail) as AccountNotice & { venueTimeNs: bigint | string };
        return { account: r.account, notice: { ...notice, venueTimeNs: BigInt(notice.venueTimeNs) } as AccountNotice };
      });
  }

  /**
   * Identifies the venue instance of `account` from the venue's fills of it (`venueFills`, the account's view, oldest
   * first, equal fills numbered by `seq`) and journals those it missed, in one transaction. The newest of them the
   * journal already holds (same order, timestamp, price and size) names the epoch that continues, and the fills after
   * it are journaled there; when the journal holds none, the venue is another instance (or forgot the account): a new
   * epoch starts with all of them. The account's rows journaled so far without an epoch join it, and later rows carry it.
   * In a continued epoch from before epochs, a journaled maker fill the venue shows with the other side takes the
   * venue's side. Idempotent. `venue` (its URL) and `atNs` describe a new epoch.
   */
  catchUp(account: string, venue: string, venueFills: readonly FillRecord[], atNs: bigint): CatchUp {
    this.flush();
    const known = statement<[string, string, string, number, number], number>(
      this.db,
      'SELECT epoch FROM fills WHERE account = ? AND order_id = ? AND time_ns = ? AND price = ? AND size = ? AND epoch IS NOT NULL LIMIT 1',
    ).pluck();
    const newEpoch = statement<[string, string, string, string]>(this.db, 'INSERT INTO epochs (account, venue, started_ns, basis) VALUES (?, ?, ?, ?)');
    const repair = statement<[Params]>(
      this.db,
      `UPDATE OR IGNORE fills SET side = @side
       WHERE account = @account AND order_id = @orderId AND time_ns = @timeNs AND price = @price AND size = @size AND seq = @seq AND side <> @side`,
    );
    const legacy = statement<[number, string], number>(this.db, 'SELECT 1 FROM epochs WHERE id = ? AND basis = ?').pluck();
    const adopt = ['fills', 'order_events', 'positions', 'funding', 'notices'].map((t) =>
      statement<[number, string]>(this.db, `UPDATE ${t} SET epoch = ? WHERE account = ? AND epoch IS NULL`),
    );
    const catchUp = this.db.transaction((): CatchUp => {
      let from = 0;
      let epoch: number | undefined;
      for (let i = venueFills.length - 1; i >= 0 && epoch === undefined; i--) {
        const f = venueFills[i]!;
        epoch = known.get(account, f.orderId, u64Text(f.timeNs), f.price, f.size);
        from = i + 1;
      }
      const continued = epoch !== undefined;
      if (epoch === undefined) {
        from = 0;
        epoch = Number(newEpoch.run(account, venue, u64Text(atNs), 'the venue holds none of the journaled fills of the account').lastInsertRowid);
      }
      let imported = 0;
      for (let i = from; i < venueFills.length; i++) imported += this.insertFill.run(this.fillParams(venueFills[i]!, epoch)).changes;
      let repaired = 0;
      if (continued && legacy.get(epoch, LEGACY_EPOCH_BASIS) !== undefined) {
        for (let i = 0; i < from; i++) {
          const f = venueFills[i]!;
          if (f.maker)
            repaired += repair.run({
              account,
              orderId: f.orderId,
              timeNs: u64Text(f.timeNs),
              price: f.price,
              size: f.size,
              seq: f.seq ?? 0,
              side: f.side,
            }).changes;
        }
      }
      for (const s of adopt) s.run(epoch, account);
      this.epochs.set(account, epoch);
      return { epoch, continued, imported, repaired };
    });
    return this.written('catch-up', catchUp);
  }

  /** The account's net position per symbol (signed base units) from the fills of its current epoch. */
  netPositions(account: string): Map<string, number> {
    this.flush();
    const rows = statement<[string, number | null], { symbol: string; size: number }>(
      this.db,
      `SELECT symbol, SUM(CASE side WHEN 'buy' THEN size ELSE -size END) AS size FROM fills WHERE account = ? AND epoch IS ? GROUP BY symbol ORDER BY symbol`,
    ).all(account, this.epochOf(account));
    return new Map(rows.map((r) => [r.symbol, r.size]));
  }

  /**
   * One bounded step of retention, in one transaction: deletes at most `rows` rows per table timed before `beforeMs`
   * (oldest first by insertion), and as many again, whatever their age, while the pages in use exceed `maxBytes`;
   * then hands a few freed pages back to the file system. Never deletes nonce marks, epochs or unresolved batches.
   * Funding payments older than `beforeMs` are not journaled any more (the venue's funding history lists them again).
   * Returns the rows deleted (0: nothing left to prune now).
   */
  prune(step: PruneStep): number {
    this.flush();
    const cutoffNs = step.beforeMs === undefined ? undefined : BigInt(Math.max(0, Math.floor(step.beforeMs))) * 1_000_000n;
    if (cutoffNs !== undefined) this.fundingFromNs = cutoffNs;
    const beforeNs = cutoffNs === undefined ? undefined : u64Text(cutoffNs);
    let deleted = 0;
    this.db.transaction(() => {
      for (const t of PRUNABLE) {
        const oldest = `SELECT id FROM ${t.table} WHERE NOT (${t.keep}) ORDER BY id LIMIT ?`;
        if (beforeNs !== undefined) {
          const cutoff = t.time === 'at_ms' ? step.beforeMs! : beforeNs;
          deleted += statement<[number, string | number]>(this.db, `DELETE FROM ${t.table} WHERE id IN (${oldest}) AND ${t.time} < ?`).run(
            step.rows,
            cutoff,
          ).changes;
        }
        if (step.maxBytes !== undefined && this.usedBytes() > step.maxBytes)
          deleted += statement<[number]>(this.db, `DELETE FROM ${t.table} WHERE id IN (${oldest})`).run(step.rows).changes;
      }
    })();
    // exec, not a statement: a statement's step frees one page; exec steps to the end (and creates no Statement object).
    if (pragma(this.db, 'auto_vacuum') === 2) this.db.exec(`PRAGMA incremental_vacuum(${VACUUM_PAGES_PER_STEP})`);
    return deleted;
  }

  /** Bytes of the pages holding data (the file less its free pages). */
  usedBytes(): number {
    return ((pragma(this.db, 'page_count') as number) - (pragma(this.db, 'freelist_count') as number)) * (pragma(this.db, 'page_size') as number);
  }

  /** Bytes of the journal on disk: the database file and its write-ahead log. */
  fileBytes(): number {
    return (statSync(this.path, { throwIfNoEntry: false })?.size ?? 0) + (statSync(`${this.path}-wal`, { throwIfNoEntry: false })?.size ?? 0);
  }

  /**
   * Commits buffered rows now, in one transaction. When that fails: throws, or with `onWriteError` reports each kind of
   * row in it and keeps the newest maxRetainedRows for the next commit (reporting the rest to onRowsDropped).
   */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.pending.length === 0) return;
    const writes = this.pending;
    this.pending = [];
    try {
      this.commit(writes);
    } catch (e) {
      if (!this.onWriteError) throw e;
      const dropped = writes.length - (this.retained.maxRetainedRows ?? MAX_RETAINED_ROWS);
      this.pending = dropped > 0 ? writes.slice(dropped) : writes;
      for (const kind of new Set(writes.map(([stmt]) => this.kinds.get(stmt)!))) this.failed(kind, e);
      if (dropped > 0) this.retained.onRowsDropped?.(dropped);
    }
  }

  /** Events of one order, oldest first. */
  orderEvents(account: string, orderId: string): OrderRecord[] {
    this.flush();
    return statement<[string, string], Omit<OrderRecord, 'strategy' | 'reason' | 'atNs'> & { strategy: string | null; reason: string | null; atNs: string }>(
      this.db,
      `SELECT account, strategy, symbol, order_id AS orderId, side, price, size, filled_size AS filledSize, status, reason, at_ns AS atNs
       FROM order_events WHERE account = ? AND order_id = ? ORDER BY id`,
    )
      .all(account, orderId)
      .map((r) => ({ ...r, strategy: r.strategy ?? undefined, reason: r.reason ?? undefined, atNs: BigInt(r.atNs) }));
  }

  /** Every order with events at or after `sinceMs`, in the order of their first event, with its intent (perpbot compare). */
  journaledOrders(opts: { sinceMs?: number } = {}): JournaledOrder[] {
    this.flush();
    type Row = Omit<JournaledOrder, 'strategy' | 'reason' | 'intent' | 'firstNs' | 'lastNs'> & {
      strategy: string | null;
      reason: string | null;
      firstNs: string;
      lastNs: string;
      intentSeq: number | null;
      intentLeg: number | null;
      intentDataMs: number | null;
    };
    return statement<[string], Row>(
      this.db,
      `SELECT e.account, e.strategy, e.symbol, e.order_id AS orderId, e.side, e.price, e.size, g.filled AS filledSize, e.status, e.reason,
         g.first_ns AS firstNs, e.at_ns AS lastNs, g.intent_seq AS intentSeq, g.intent_leg AS intentLeg, g.intent_data_ms AS intentDataMs
       FROM order_events e JOIN (
         SELECT MAX(id) AS last, MIN(at_ns) AS first_ns, MAX(filled_size) AS filled, MAX(intent_seq) AS intent_seq, MAX(intent_leg) AS intent_leg, MAX(intent_data_ms) AS intent_data_ms
         FROM order_events WHERE at_ns >= ? GROUP BY account, order_id
       ) g ON e.id = g.last
       ORDER BY g.first_ns, e.id`,
    )
      .all(sinceNsText(opts.sinceMs))
      .map(({ intentSeq, intentLeg, intentDataMs, ...r }) => ({
        ...r,
        strategy: r.strategy ?? undefined,
        reason: r.reason ?? undefined,
        firstNs: BigInt(r.firstNs),
        lastNs: BigInt(r.lastNs),
        ...(intentSeq !== null && { intent: { seq: intentSeq, leg: intentLeg ?? 0, dataTimeMs: intentDataMs ?? 0 } }),
      }));
  }

  /** Fills at or after `sinceMs`, in time order. */
  fills(opts: { sinceMs?: number } = {}): JournaledFill[] {
    this.flush();
    return statement<[string], Omit<JournaledFill, 'strategy' | 'maker' | 'timeNs'> & { strategy: string | null; maker: number; timeNs: string }>(
      this.db,
      `SELECT account, strategy, symbol, order_id AS orderId, side, price, size, fee_usd AS feeUsd, maker, time_ns AS timeNs, seq, epoch
       FROM fills WHERE time_ns >= ? ORDER BY time_ns, id`,
    )
      .all(sinceNsText(opts.sinceMs))
      .map((r) => ({ ...r, strategy: r.strategy ?? undefined, maker: r.maker === 1, timeNs: BigInt(r.timeNs) }));
  }

  /** How many fills are at or after `sinceMs`, and how many of them paper trading made. */
  fillCounts(opts: { sinceMs?: number } = {}): { fills: number; paperFills: number } {
    this.flush();
    return statement<[string], { fills: number; paperFills: number }>(
      this.db,
      'SELECT COUNT(*) AS fills, COALESCE(SUM(paper), 0) AS paperFills FROM fills WHERE time_ns >= ?',
    ).get(sinceNsText(opts.sinceMs))!;
  }

  /** Funding payments at or after `sinceMs`, in time order. */
  funding(opts: { sinceMs?: number } = {}): FundingRecord[] {
    this.flush();
    return statement<[string], Omit<FundingRecord, 'timeNs'> & { timeNs: string }>(
      this.db,
      'SELECT account, symbol, amount_usd AS amountUsd, rate, time_ns AS timeNs FROM funding WHERE time_ns >= ? ORDER BY time_ns, id',
    )
      .all(sinceNsText(opts.sinceMs))
      .map((r) => ({ ...r, timeNs: BigInt(r.timeNs) }));
  }

  /** The latest snapshot of each account and symbol, sorted by account then symbol. */
  positions(): PositionRecord[] {
    this.flush();
    return statement<[], PositionRecord>(
      this.db,
      `SELECT p.account, p.symbol, p.size, p.entry_price AS entryPrice, p.realized_pnl_usd AS realizedPnlUsd,
         p.unrealized_pnl_usd AS unrealizedPnlUsd, p.at_ms AS atMs
       FROM positions p JOIN (SELECT MAX(id) AS id FROM positions GROUP BY account, symbol) latest ON latest.id = p.id
       ORDER BY p.account, p.symbol`,
    ).all();
  }

  /**
   * PnL, fees, funding, volume and fill ratio per strategy and symbol for activity at or after `sinceMs` (see
   * buildReport). A fill without a strategy takes its order's; activity no strategy owns is reported as UNATTRIBUTED.
   */
  report(opts: { sinceMs?: number } = {}): ReportRow[] {
    this.flush();
    const fills = statement<[string], Omit<ReportFill, 'timeNs'> & { timeNs: string }>(
      this.db,
      `SELECT f.account, f.epoch, COALESCE(f.strategy, o.strategy, ?) AS strategy, f.symbol, f.side, f.price, f.size, f.fee_usd AS feeUsd, f.time_ns AS timeNs
       FROM fills f LEFT JOIN (${ORDERS}) o ON o.account = f.account AND o.order_id = f.order_id
       ORDER BY f.time_ns, f.id`,
    )
      .all(UNATTRIBUTED)
      .map((r): ReportFill => ({ ...r, timeNs: BigInt(r.timeNs) }));
    const funding = statement<[], Omit<ReportFunding, 'timeNs'> & { timeNs: string }>(
      this.db,
      'SELECT account, epoch, symbol, amount_usd AS amountUsd, time_ns AS timeNs FROM funding ORDER BY time_ns, id',
    )
      .all()
      .map((r): ReportFunding => ({ ...r, timeNs: BigInt(r.timeNs) }));
    return buildReport(fills, funding, this.orders(), opts.sinceMs);
  }

  /** Every journaled order: its strategy (or UNATTRIBUTED), symbol, first journal time and whether it has a fill; by first time. */
  orders(): ReportOrder[] {
    this.flush();
    return statement<[string], Omit<ReportOrder, 'filled' | 'firstNs'> & { filled: number; firstNs: string }>(
      this.db,
      `SELECT COALESCE(o.strategy, ?) AS strategy, o.symbol, o.first_ns AS firstNs,
         EXISTS (SELECT 1 FROM fills f WHERE f.account = o.account AND f.order_id = o.order_id) AS filled
       FROM (${ORDERS}) o ORDER BY o.first_ns, o.order_id`,
    )
      .all(UNATTRIBUTED)
      .map((r): ReportOrder => ({ ...r, firstNs: BigInt(r.firstNs), filled: r.filled === 1 }));
  }

  private epochOf(account: string): number | null {
    return this.epochs.get(account) ?? null;
  }

  private defer(stmt: Write, params: Params): void {
    if (!this.db.open) throw new JournalError(`journal ${this.path} is closed`);
    this.pending.push([stmt, params]);
    this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Runs a write committed before it returns; a failure is reported to onWriteError and thrown. */
  private written<T>(kind: JournalWriteKind, write: () => T): T {
    try {
      return write();
    } catch (e) {
      this.failed(kind, e);
      throw e;
    }
  }

  private failed(kind: JournalWriteKind, e: unknown): void {
    this.onWriteError?.(kind, e instanceof Error ? e : new Error(String(e)));
  }

  private updated(r: Database.RunResult, id: number): void {
    if (r.changes === 0) throw new JournalError(`no batch ${id} in journal ${this.path}`);
  }
}

function batchRow(r: BatchSqlRow): BatchRow {
  const { message } = r;
  return {
    ...r,
    paper: r.paper === 1,
    nonceNs: BigInt(r.nonceNs),
    message: new Uint8Array(message.buffer, message.byteOffset, message.byteLength),
    atNs: BigInt(r.atNs),
    orderIds: JSON.parse(r.orderIds) as (string | null)[],
  };
}
