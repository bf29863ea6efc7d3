// `perpbot report`: PnL, fees, funding, volume and fill ratio per strategy and symbol, read from the journal; with
// --html, the same charts page a backtest writes (src/report).
// Invariant: only an existing journal is opened (a missing file is an error, never a new empty journal).

import { writeFileSync } from 'node:fs';
import { stringifyJson } from '../../core/json.js';
import { fromJournal, renderReport } from '../../report/index.js';
import { DEFAULT_JOURNAL_PATH, Journal, UNATTRIBUTED, type ReportRow } from '../../store/index.js';
import { durationMs, parseCommand, UsageError } from '../args.js';
import { loadDaemonConfig } from '../config/index.js';
import { formatTable } from './table.js';

export const reportHelp = `perpbot report [--journal PATH | --config FILE] [--since DURATION|ISO-TIME] [--json]
perpbot report --html [--journal PATH | --config FILE] [--out FILE]

Summarizes the journal: one row per strategy and symbol, and a total.
  --journal PATH   the journal file (default ${DEFAULT_JOURNAL_PATH})
  --config FILE    the journal of this daemon config (its journal.path)
  --since WHEN     only activity since WHEN: a duration back from now (90s, 30m, 24h, 7d)
                   or an ISO time (2026-11-01T00:00:00Z)
  --json           print {sinceMs, rows, total, unresolvedBatches} as JSON
  --html           write a self-contained HTML page of charts instead (equity, drawdown, position,
                   fills on price, PnL split, fill ratio, tables; docs/reports.md); opens the journal
                   read-only, so it may run beside the daemon
  --out FILE       where --html writes (default report.html)

realizedPnlUsd is average-cost from the journal's fills, before fees. Cost basis is replayed from the
first fill of each account epoch: the daemon starts a new epoch when the venue it trades holds none of
the fills journaled for the account (another venue instance, such as a fresh local venue), and a
position is never carried from one epoch to the next. Rows pruned by journal.retention are not seen.
feesUsd is paid (negative: rebates); fundingUsd is received (negative: paid). An account's
funding in a symbol is split among the strategies holding a position there, by their share of it;
${UNATTRIBUTED} gets activity no strategy owns. fillRatio = ordersFilled / ordersPlaced.`;

/** Epoch ms of `--since`: a duration before `nowMs` or an ISO time; throws UsageError otherwise. */
export function parseSince(text: string, nowMs: number): number {
  const duration = durationMs(text);
  if (duration !== undefined) return nowMs - duration;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw new UsageError(`--since must be a duration (30m, 24h, 7d) or an ISO time; got ${JSON.stringify(text)}`);
  return ms;
}

export async function report(argv: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      journal: { type: 'string' },
      config: { type: 'string' },
      since: { type: 'string' },
      json: { type: 'boolean' },
      html: { type: 'boolean' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (values.help) {
    out(reportHelp);
    return 0;
  }
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const sinceMs = values.since === undefined ? undefined : parseSince(values.since, Date.now());
  if (values.journal !== undefined && values.config !== undefined) throw new UsageError('give --journal or --config, not both');
  const path = values.journal ?? (values.config === undefined ? DEFAULT_JOURNAL_PATH : loadDaemonConfig(values.config).journal.path);
  if (values.html) {
    if (values.since !== undefined || values.json) throw new UsageError('--html reports the whole journal: drop --since and --json');
    const file = values.out ?? 'report.html';
    writeFileSync(file, renderReport(fromJournal(path)));
    out(`wrote ${file}`);
    return 0;
  }
  if (values.out !== undefined) throw new UsageError('--out goes with --html');
  const journal = Journal.open(path, { mustExist: true });
  try {
    const rows = journal.report({ sinceMs });
    const total = totalOf(rows);
    const unresolved = journal.unresolvedBatches().length;
    if (values.json) {
      out(stringifyJson({ sinceMs: sinceMs ?? null, rows, total, unresolvedBatches: unresolved }));
      return 0;
    }
    if (sinceMs !== undefined) out(`since ${new Date(sinceMs).toISOString()}`);
    out(formatTable(rows.length ? [...rows, total].map(display) : []));
    if (unresolved) out(`unresolved batches: ${unresolved} (resolved against the venue when the bot next starts)`);
    return 0;
  } finally {
    journal.close();
  }
}

/** A total row: base-unit sizes of different symbols do not add up, so it has none. */
type Total = Omit<ReportRow, 'buySize' | 'sellSize'>;

/** The sum of `rows` (strategy "total"). */
function totalOf(rows: readonly ReportRow[]): Total {
  const sum = (key: keyof ReportRow) => rows.reduce((s, r) => s + (r[key] as number), 0);
  const ordersPlaced = sum('ordersPlaced');
  const ordersFilled = sum('ordersFilled');
  return {
    strategy: 'total',
    symbol: '',
    fills: sum('fills'),
    volumeUsd: sum('volumeUsd'),
    feesUsd: sum('feesUsd'),
    fundingUsd: sum('fundingUsd'),
    realizedPnlUsd: sum('realizedPnlUsd'),
    netPnlUsd: sum('netPnlUsd'),
    ordersPlaced,
    ordersFilled,
    fillRatio: ordersPlaced ? ordersFilled / ordersPlaced : null,
  };
}

const usd = (n: number) => n.toFixed(4);
const size = (n: number | undefined) => (n === undefined ? '' : String(Number(n.toPrecision(12))));

function display(r: Total & Partial<ReportRow>): Record<string, string | number> {
  return {
    strategy: r.strategy,
    symbol: r.symbol,
    fills: r.fills,
    volumeUsd: usd(r.volumeUsd),
    buySize: size(r.buySize),
    sellSize: size(r.sellSize),
    feesUsd: usd(r.feesUsd),
    fundingUsd: usd(r.fundingUsd),
    realizedPnlUsd: usd(r.realizedPnlUsd),
    netPnlUsd: usd(r.netPnlUsd),
    ordersPlaced: r.ordersPlaced,
    ordersFilled: r.ordersFilled,
    fillRatio: r.fillRatio === null ? '' : `${(r.fillRatio * 100).toFixed(1)}%`,
  };
}
