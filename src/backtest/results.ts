// The results of a backtest run: results/<run>/orders.csv, trades.csv, funding.csv and equity.csv written as the replay goes, and
// summary.json (return, drawdown, Sharpe, fill ratio, fees, funding, turnover, data range, config hash, seed, models);
// SummaryMeter alone gives the summary without files (a sweep's points).
// Invariants: the files hold replay times only (no wall-clock time), so the same data, config and seed give the same
// bytes; rows are buffered and appended in order; nothing is kept per row beyond the counters the summary needs.

import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Fill } from '../core/account-data.js';
import type { OrderEvent } from '../core/intent.js';
import type { SimOrder } from './exchange.js';
import type { BacktestResult, BacktestSink, OrderOrigin } from './replay.js';

const FLUSH_BYTES = 1 << 16;
const YEAR_MS = 365 * 86_400_000;

class CsvFile {
  private readonly fd: number;
  private buffer = '';

  constructor(path: string, header: readonly string[]) {
    this.fd = openSync(path, 'w');
    this.row(header);
  }

  row(cells: readonly unknown[]): void {
    this.buffer += `${cells.map(csvCell).join(',')}\n`;
    if (this.buffer.length >= FLUSH_BYTES) this.flush();
  }

  flush(): void {
    if (this.buffer.length > 0) writeSync(this.fd, this.buffer);
    this.buffer = '';
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

function csvCell(v: unknown): string {
  if (v === undefined || v === null) return '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The rows of a CSV file this module wrote, each keyed by the header's names (cells as text); [] for a missing file. */
export function readCsv(path: string): Record<string, string>[] {
  if (!existsSync(path)) return [];
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const text = readFileSync(path, 'utf8');
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') cell += c;
      else if (text[i + 1] === '"') cell += text[++i];
      else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  const [header, ...body] = rows;
  return header === undefined ? [] : body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}

export interface RunDescription {
  /** sha256 hex of the config file's bytes. */
  configHash: string;
  seed: number;
  models: Record<string, string>;
  dataFiles: readonly string[];
  equityIntervalMs: number;
}

export interface Summary {
  partial: boolean;
  returnPct: number;
  startEquityUsd: number;
  endEquityUsd: number;
  pnlUsd: number;
  maxDrawdownPct: number;
  sharpe: number;
  orders: number;
  ordersFilled: number;
  /** Orders refused before they reached the exchange (in orders.csv with their refusal, not in `orders`). */
  ordersDenied: number;
  fillRatio: number;
  statuses: Record<string, number>;
  trades: number;
  makerTrades: number;
  feesUsd: number;
  fundingUsd: number;
  tradedNotionalUsd: number;
  turnover: number;
  liquidations: number;
  requests: number;
  data: { files: readonly string[]; events: number; firstEventNs: string | null; lastEventNs: string | null };
  configHash: string;
  seed: number;
  models: Record<string, string>;
  account: string;
}

/** Counts what the summary needs while the run goes, without writing anything (a sweep keeps only the summaries). */
export class SummaryMeter implements BacktestSink {
  private ordersTotal = 0;
  private ordersFilled = 0;
  private ordersDenied = 0;
  private makerTrades = 0;
  private readonly statuses: Record<string, number> = {};
  private peak = 0;
  private maxDrawdown = 0;
  private lastEquity: number | undefined;
  private returns = 0;
  private sumReturn = 0;
  private sumSquares = 0;

  order(o: SimOrder): void {
    this.ordersTotal++;
    if (o.filledLots > 0) this.ordersFilled++;
    this.statuses[o.status] = (this.statuses[o.status] ?? 0) + 1;
  }

  denied(): void {
    this.ordersDenied++;
  }

  fill(f: Fill): void {
    if (f.maker) this.makerTrades++;
  }

  equity(_timeNs: bigint, equityUsd: number): void {
    if (equityUsd > this.peak) this.peak = equityUsd;
    if (this.peak > 0) this.maxDrawdown = Math.max(this.maxDrawdown, (this.peak - equityUsd) / this.peak);
    if (this.lastEquity !== undefined && this.lastEquity > 0) {
      const r = equityUsd / this.lastEquity - 1;
      this.returns++;
      this.sumReturn += r;
      this.sumSquares += r * r;
    }
    this.lastEquity = equityUsd;
  }

  /** The run's summary from the counters and the runner's result. */
  summary(result: BacktestResult, run: RunDescription): Summary {
    const n = this.returns;
    const mean = n > 0 ? this.sumReturn / n : 0;
    const variance = n > 1 ? (this.sumSquares - n * mean * mean) / (n - 1) : 0;
    const std = Math.sqrt(Math.max(0, variance));
    return {
      partial: result.partial,
      returnPct: round((result.endEquityUsd / result.startEquityUsd - 1) * 100, 6),
      startEquityUsd: round(result.startEquityUsd, 6),
      endEquityUsd: round(result.endEquityUsd, 6),
      pnlUsd: round(result.endEquityUsd - result.startEquityUsd, 6),
      maxDrawdownPct: round(this.maxDrawdown * 100, 6),
      sharpe: round(std > 0 ? (mean / std) * Math.sqrt(YEAR_MS / run.equityIntervalMs) : 0, 6),
      orders: this.ordersTotal,
      ordersFilled: this.ordersFilled,
      ordersDenied: this.ordersDenied,
      fillRatio: round(this.ordersTotal > 0 ? this.ordersFilled / this.ordersTotal : 0, 6),
      statuses: Object.fromEntries(Object.entries(this.statuses).sort(([a], [b]) => (a < b ? -1 : 1))),
      trades: result.fills,
      makerTrades: this.makerTrades,
      feesUsd: round(result.feesUsd, 6),
      fundingUsd: round(result.fundingUsd, 6),
      tradedNotionalUsd: round(result.tradedNotionalUsd, 6),
      turnover: round(result.tradedNotionalUsd / result.startEquityUsd, 6),
      liquidations: result.liquidations,
      requests: result.requests,
      data: {
        files: run.dataFiles,
        events: result.events,
        firstEventNs: result.firstEventNs?.toString() ?? null,
        lastEventNs: result.lastEventNs?.toString() ?? null,
      },
      configHash: run.configHash,
      seed: run.seed,
      models: run.models,
      account: result.account,
    };
  }
}

/** Writes the run's CSV files while it runs and its summary at the end; `dir` is created. */
export class ResultsWriter implements BacktestSink {
  private readonly orders: CsvFile;
  private readonly trades: CsvFile;
  private readonly fundingFile: CsvFile;
  private equityFile: CsvFile | undefined;
  private readonly meter = new SummaryMeter();

  constructor(
    readonly dir: string,
    private readonly symbols: readonly string[],
    private readonly progressLine?: (events: number, timeNs: bigint) => void,
  ) {
    mkdirSync(dir, { recursive: true });
    this.orders = new CsvFile(join(dir, 'orders.csv'), [
      'order_id',
      'symbol',
      'side',
      'type',
      'tif',
      'price',
      'trigger_price',
      'size',
      'reduce_only',
      'status',
      'reason',
      'filled_size',
      'avg_fill_price',
      'created_ns',
      'ended_ns',
      'strategy',
      'intent_seq',
      'intent_leg',
      'intent_data_ms',
      'queue_ahead_base',
    ]);
    this.trades = new CsvFile(join(dir, 'trades.csv'), [
      'time_ns',
      'order_id',
      'symbol',
      'side',
      'price',
      'size',
      'fee_usd',
      'maker',
      'cause',
      'mid',
      'queue_ahead_base',
    ]);
    this.fundingFile = new CsvFile(join(dir, 'funding.csv'), ['time_ns', 'symbol', 'amount_usd', 'rate']);
  }

  order(o: SimOrder, origin: OrderOrigin | undefined): void {
    this.meter.order(o);
    const open = o.status === 'placed' || o.status === 'working';
    this.orders.row([
      o.id,
      o.m.symbol,
      o.side,
      o.kind,
      o.tif,
      o.price,
      o.triggerTicks > 0 ? o.m.price(o.triggerTicks) : '',
      o.size,
      o.reduceOnly,
      o.status,
      o.reason,
      o.m.size(o.filledLots),
      o.filledLots > 0 ? o.avgFillPrice : '',
      o.createdNs,
      open ? '' : o.endedNs,
      origin?.strategy,
      origin?.intent?.seq,
      origin?.intent?.leg,
      origin?.intent?.dataTimeMs,
      o.aheadAtRest,
    ]);
  }

  /** A row for an order refused before it reached the exchange: its local id, the refusal as status and reason. */
  denied(e: OrderEvent): void {
    this.meter.denied();
    const ns = BigInt(e.timeMs) * 1_000_000n;
    this.orders.row([
      e.orderId,
      e.symbol,
      e.side,
      '',
      '',
      e.price,
      '',
      e.size,
      '',
      e.status,
      e.reason,
      0,
      '',
      ns,
      ns,
      e.strategy,
      e.intent?.seq,
      e.intent?.leg,
      e.intent?.dataTimeMs,
      '',
    ]);
  }

  fill(f: Fill, midUsd: number, queueAheadBase: number): void {
    this.meter.fill(f);
    this.trades.row([f.venueTimeNs, f.orderId, f.symbol, f.side, f.price, f.size, f.feeUsd, f.maker, f.cause, midUsd, queueAheadBase]);
  }

  funding(symbol: string, amountUsd: number, rate: number, timeNs: bigint): void {
    this.fundingFile.row([timeNs, symbol, amountUsd, rate]);
  }

  equity(timeNs: bigint, equityUsd: number, positions: readonly number[], midsUsd: readonly number[]): void {
    this.equityFile ??= new CsvFile(join(this.dir, 'equity.csv'), [
      'time_ns',
      'equity_usd',
      ...this.symbols.map((s) => `position_${s}`),
      ...this.symbols.map((s) => `mid_${s}`),
    ]);
    this.equityFile.row([timeNs, round(equityUsd, 6), ...positions, ...midsUsd]);
    this.meter.equity(timeNs, equityUsd);
  }

  progress(events: number, timeNs: bigint): void {
    this.progressLine?.(events, timeNs);
  }

  /** Closes the CSV files and writes summary.json; returns the summary. */
  finish(result: BacktestResult, run: RunDescription): Summary {
    this.orders.close();
    this.trades.close();
    this.fundingFile.close();
    this.equityFile?.close();
    const summary = this.meter.summary(result, run);
    writeFileSync(join(this.dir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
    return summary;
  }
}

function round(x: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(x * f) / f;
}
