// `perpbot backtest --data FILE... --config FILE [--seed N] [--out DIR]`: replays recordings through the daemon config's
// strategies, risk and execution on the simulated exchange (docs/backtest.md) and writes results/<run>/.
// Invariants: the outputs depend only on the data, the config file and the seed; Ctrl-C stops the replay, and the
// partial results are still written (summary.json says partial: true).

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openRecordings } from '../../backtest/data.js';
import { latencyName, queueModelName } from '../../backtest/models.js';
import type { RecordingReader } from '../../backtest/recording/events.js';
import { readRecording } from '../../backtest/recording/reader.js';
import { type BacktestOptions, runBacktest, singleAccount } from '../../backtest/replay.js';
import { ResultsWriter, type Summary } from '../../backtest/results.js';
import { unverifiedSigner } from '../../backtest/signer.js';
import { fromBacktest, renderReport } from '../../report/index.js';
import { MemoryNonceStore } from '../../protocol/nonce.js';
import { parseCommand, required, seedOf } from '../args.js';
import { checkDaemonConfig, type DaemonConfig } from '../config/index.js';
import type { LoadedStrategy } from '../../strategy/loader.js';
import { startTrading } from '../trading.js';
import { progressReporter } from './progress.js';
import { stopOnSignals } from './stop-signals.js';
import { formatTable } from './table.js';

export const backtestHelp = `perpbot backtest --data FILE... --config FILE [--seed N] [--out DIR]

Replays recorded market data (perpbot record) through the strategies, risk limits and execution of a
daemon config, on a simulated exchange with queue position, latency, fees, funding and margin
(docs/backtest.md; its models are the config's backtest: section).
  --data     recordings, in time order (--data A B or --data A --data B)
  --config   the daemon's YAML config (strategies, risk, accounts[].faucetUsd as starting collateral)
  --seed     seed of the latency draws and of the backtest's key (default 1)
  --out      results directory (default results/<config name>-seed<N>)

Writes summary.json, orders.csv, trades.csv, funding.csv, equity.csv and report.html (charts, one
self-contained page: docs/reports.md), and prints the summary. The same data, config and seed give
byte-identical files. Ctrl-C stops early and writes the partial results.`;

/** `open` reads one recording (default readRecording: the docs/recording.md format). */
export async function backtest(argv: string[], out: (line: string) => void, open: (path: string) => RecordingReader = readRecording): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      data: { type: 'string', multiple: true },
      config: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (values.help) {
    out(backtestHelp);
    return 0;
  }
  const dataFiles = [...(values.data ?? []), ...positionals];
  required('data', dataFiles[0]);
  const configPath = required('config', values.config);
  const seed = seedOf(values.seed);

  const { config, strategies } = await checkDaemonConfig(configPath);
  const { collateralUsd, models } = backtestSetup(config);
  const configHash = createHash('sha256').update(readFileSync(configPath)).digest('hex');
  const dir = values.out ?? join('results', `${configPath.replace(/^.*[\\/]/, '').replace(/\.ya?ml$/, '')}-seed${seed}`);
  const data = openRecordings(dataFiles, open);
  const symbols = data.markets.map((m) => m.symbol);

  const progress = progressReporter({ stream: process.stderr, fraction: data.fractionRead });
  const writer = new ResultsWriter(dir, symbols, progress.line);
  const stop = stopOnSignals(['SIGINT'], 'stopping: the results so far are written (partial)');
  let summary: Summary;
  try {
    const result = await runBacktest({
      ...backtestOptions(config, strategies),
      events: data.events,
      markets: data.markets,
      collateralUsd,
      seed,
      sink: writer,
      progressEvery: 20_000,
      signal: stop.signal,
    });
    progress.done();
    summary = writer.finish(result, {
      configHash,
      seed,
      models,
      dataFiles,
      equityIntervalMs: config.backtest.equityIntervalMs,
    });
  } finally {
    stop.dispose();
  }
  writeFileSync(join(dir, 'report.html'), renderReport(fromBacktest(dir)));
  out(summaryTable(summary, dir));
  return 0;
}

/**
 * The daemon config's backtest checks and figures: one account (ConfigError otherwise, from singleAccount), that
 * account's starting collateral (faucetUsd, else backtest.collateralUsd), and the names of the models.
 */
export function backtestSetup(config: DaemonConfig): { collateralUsd: number; models: Record<string, string> } {
  const accountName = singleAccount(config.strategies);
  const bt = config.backtest;
  return {
    collateralUsd: config.accounts.find((a) => a.name === accountName)?.faucetUsd ?? bt.collateralUsd,
    models: {
      queue: queueModelName(bt.queue),
      feedLatency: latencyName(bt.latency.feed),
      entryLatency: latencyName(bt.latency.entry),
      responseLatency: latencyName(bt.latency.response),
    },
  };
}

/** What a backtest takes from a daemon config: the session (its strategies, risk, batch size), the models, the market defaults. */
export function backtestOptions(
  config: DaemonConfig,
  strategies: readonly LoadedStrategy[],
): Pick<BacktestOptions, 'startSession' | 'dialect' | 'models' | 'defaults' | 'equityIntervalMs'> {
  const bt = config.backtest;
  return {
    startSession: (venue, key) =>
      startTrading({
        venue,
        key,
        dialect: config.venue.dialect,
        network: config.venue.network,
        nonceStore: new MemoryNonceStore(),
        strategies,
        risk: config.risk,
        execution: { maxBatchItems: config.execution.maxBatchItems },
        signer: unverifiedSigner(key.publicKey),
      }),
    dialect: config.venue.dialect,
    models: { queue: bt.queue, feed: bt.latency.feed, entry: bt.latency.entry, response: bt.latency.response },
    defaults: { makerFeeRate: bt.makerFeeRate, takerFeeRate: bt.takerFeeRate, fundingIntervalMs: bt.fundingIntervalMs },
    equityIntervalMs: bt.equityIntervalMs,
  };
}

function summaryTable(s: Summary, dir: string): string {
  const rows = [
    { metric: 'return %', value: s.returnPct },
    { metric: 'pnl USD', value: s.pnlUsd },
    { metric: 'max drawdown %', value: s.maxDrawdownPct },
    { metric: 'sharpe (annualized)', value: s.sharpe },
    { metric: 'orders', value: s.orders },
    { metric: 'fill ratio', value: s.fillRatio },
    { metric: 'trades (maker)', value: `${s.trades} (${s.makerTrades})` },
    { metric: 'fees USD', value: s.feesUsd },
    { metric: 'funding USD', value: s.fundingUsd },
    { metric: 'turnover', value: s.turnover },
    { metric: 'liquidations', value: s.liquidations },
    { metric: 'events', value: s.data.events },
  ];
  return `${s.partial ? 'PARTIAL backtest (stopped early)' : 'backtest'}: results in ${dir}\n${formatTable(rows)}`;
}
