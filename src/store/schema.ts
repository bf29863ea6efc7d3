// The journal's SQLite schema as ordered migrations, applied by PRAGMA user_version.
// Invariants: a migration is never edited once released (add a new one); u64 values are 20-digit zero-padded TEXT, so text order is numeric order.

import type { Database } from 'better-sqlite3';
import { JournalError } from './errors.js';
import { pragma } from './statements.js';

/** The basis of the epochs a journal from before epochs gets for its rows (rows of earlier builds). */
export const LEGACY_EPOCH_BASIS = 'journaled before epochs';

/** Migration i brings the schema from version i to version i + 1. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE nonces (
     signer TEXT PRIMARY KEY,
     high_water_ns TEXT NOT NULL
   ) STRICT;
   CREATE TABLE batches (
     id INTEGER PRIMARY KEY,
     signer TEXT NOT NULL,
     account TEXT NOT NULL,
     nonce_ns TEXT NOT NULL,
     path TEXT NOT NULL,
     message BLOB NOT NULL,
     signature TEXT NOT NULL,
     body TEXT NOT NULL,
     order_ids TEXT NOT NULL,
     at_ns TEXT NOT NULL,
     outcome TEXT CHECK (outcome IN ('accepted', 'rejected', 'unknown')),
     outcome_detail TEXT,
     resolution TEXT CHECK (resolution IN ('applied', 'not-applied', 'uncertain')),
     resolution_detail TEXT,
     UNIQUE (signer, nonce_ns)
   ) STRICT;
   CREATE INDEX batches_open ON batches (id) WHERE resolution IS NULL AND (outcome IS NULL OR outcome = 'unknown');
   CREATE TABLE order_events (
     id INTEGER PRIMARY KEY,
     account TEXT NOT NULL,
     strategy TEXT,
     symbol TEXT NOT NULL,
     order_id TEXT NOT NULL,
     side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
     price REAL NOT NULL,
     size REAL NOT NULL,
     filled_size REAL NOT NULL,
     status TEXT NOT NULL,
     reason TEXT,
     at_ns TEXT NOT NULL
   ) STRICT;
   CREATE INDEX order_events_order ON order_events (account, order_id);
   CREATE TABLE fills (
     id INTEGER PRIMARY KEY,
     account TEXT NOT NULL,
     strategy TEXT,
     symbol TEXT NOT NULL,
     order_id TEXT NOT NULL,
     side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
     price REAL NOT NULL,
     size REAL NOT NULL,
     fee_usd REAL NOT NULL,
     maker INTEGER NOT NULL CHECK (maker IN (0, 1)),
     time_ns TEXT NOT NULL,
     seq INTEGER NOT NULL,
     UNIQUE (account, order_id, time_ns, side, price, size, seq)
   ) STRICT;
   CREATE INDEX fills_time ON fills (time_ns);
   CREATE TABLE funding (
     id INTEGER PRIMARY KEY,
     account TEXT NOT NULL,
     symbol TEXT NOT NULL,
     amount_usd REAL NOT NULL,
     rate REAL NOT NULL,
     time_ns TEXT NOT NULL,
     UNIQUE (account, symbol, time_ns)
   ) STRICT;
   CREATE INDEX funding_time ON funding (time_ns);
   CREATE TABLE positions (
     id INTEGER PRIMARY KEY,
     account TEXT NOT NULL,
     symbol TEXT NOT NULL,
     size REAL NOT NULL,
     entry_price REAL NOT NULL,
     realized_pnl_usd REAL NOT NULL,
     unrealized_pnl_usd REAL NOT NULL,
     at_ms INTEGER NOT NULL
   ) STRICT;
   CREATE INDEX positions_latest ON positions (account, symbol, id);`,
  // Account epochs: a venue instance's continuous history of one account. Rows journaled before epochs existed
  // become one epoch per account; a row's epoch is NULL only until its run has identified the venue instance.
  `CREATE TABLE epochs (
     id INTEGER PRIMARY KEY,
     account TEXT NOT NULL,
     venue TEXT NOT NULL,
     started_ns TEXT NOT NULL,
     basis TEXT NOT NULL
   ) STRICT;
   CREATE INDEX epochs_account ON epochs (account, id);
   ALTER TABLE fills ADD COLUMN epoch INTEGER REFERENCES epochs (id);
   ALTER TABLE order_events ADD COLUMN epoch INTEGER REFERENCES epochs (id);
   ALTER TABLE positions ADD COLUMN epoch INTEGER REFERENCES epochs (id);
   ALTER TABLE funding ADD COLUMN epoch INTEGER REFERENCES epochs (id);
   INSERT INTO epochs (account, venue, started_ns, basis)
     SELECT account, '', '00000000000000000000', '${LEGACY_EPOCH_BASIS}'
     FROM (SELECT account FROM fills UNION SELECT account FROM order_events UNION SELECT account FROM positions UNION SELECT account FROM funding)
     ORDER BY account;
   UPDATE fills SET epoch = (SELECT id FROM epochs e WHERE e.account = fills.account);
   UPDATE order_events SET epoch = (SELECT id FROM epochs e WHERE e.account = order_events.account);
   UPDATE positions SET epoch = (SELECT id FROM epochs e WHERE e.account = positions.account);
   UPDATE funding SET epoch = (SELECT id FROM epochs e WHERE e.account = funding.account);
   CREATE INDEX fills_unassigned ON fills (account) WHERE epoch IS NULL;
   CREATE INDEX order_events_unassigned ON order_events (account) WHERE epoch IS NULL;
   CREATE INDEX positions_unassigned ON positions (account) WHERE epoch IS NULL;
   CREATE INDEX funding_unassigned ON funding (account) WHERE epoch IS NULL;`,
  // Account notices of the current generation: adl, refused cancels, fee tier changes (detail is the notice's JSON).
  `CREATE TABLE notices (
     id INTEGER PRIMARY KEY,
     account TEXT NOT NULL,
     kind TEXT NOT NULL,
     symbol TEXT,
     order_id TEXT,
     detail TEXT NOT NULL,
     time_ns TEXT NOT NULL,
     epoch INTEGER REFERENCES epochs (id)
   ) STRICT;
   CREATE INDEX notices_time ON notices (time_ns);`,
  // Paper trading: rows of a run whose orders went to the simulated exchange (venue.mode paper) say so.
  ['batches', 'order_events', 'fills', 'funding', 'positions', 'notices']
    .map((t) => `ALTER TABLE ${t} ADD COLUMN paper INTEGER NOT NULL DEFAULT 0 CHECK (paper IN (0, 1));`)
    .join('\n'),
  // The strategy's intent that placed an order (OrderEvent.intent): what perpbot compare matches live and simulated orders by.
  `ALTER TABLE order_events ADD COLUMN intent_seq INTEGER;
   ALTER TABLE order_events ADD COLUMN intent_leg INTEGER;
   ALTER TABLE order_events ADD COLUMN intent_data_ms REAL;`,
  // When the venue's answer to a batch arrived (its request time is at_ns): the backtest's journal latency model.
  `ALTER TABLE batches ADD COLUMN answered_ns TEXT;`,
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings `db` to SCHEMA_VERSION, each migration in its own transaction; throws JournalError for a journal from a newer build. */
export function migrate(db: Database): void {
  const from = pragma(db, 'user_version') as number;
  if (from > SCHEMA_VERSION) throw new JournalError(`schema version ${from} is newer than this build's ${SCHEMA_VERSION}`);
  for (let v = from; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      pragma(db, `user_version = ${v + 1}`);
    })();
  }
}

const U64_MAX = (1n << 64n) - 1n;

/** A u64 as 20-digit zero-padded text; throws JournalError when `n` is outside 0..2^64-1. */
export function u64Text(n: bigint): string {
  if (n < 0n || n > U64_MAX) throw new JournalError(`${n} is not a u64`);
  return n.toString().padStart(20, '0');
}
