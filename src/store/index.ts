// The store area's public surface: the journal, its record and row types, its error and the report rows.
// Invariant: re-exports only; nothing outside src/store needs its internal modules (schema, statements); buildReport also serves fills from elsewhere (backtest results).

export {
  DEFAULT_JOURNAL_PATH,
  Journal,
  type BatchOutcome,
  type BatchRecord,
  type BatchResolution,
  type BatchRoundTrip,
  type BatchRow,
  type CatchUp,
  type FillRecord,
  type FundingRecord,
  type JournaledFill,
  type JournaledOrder,
  type JournalOpenOptions,
  type JournalWriteKind,
  type OrderRecord,
  type PositionRecord,
  type PruneStep,
} from './journal.js';
export { JournalError } from './errors.js';
export { startRetention, type RetentionOptions } from './retention.js';
export { buildReport, UNATTRIBUTED, type ReportFill, type ReportFunding, type ReportOrder, type ReportRow } from './report.js';
