// `perpbot run [--config FILE]`: the long-lived trading daemon (what `npm start` runs with config/default.yaml).
// Invariant: the whole config is validated (every problem listed) before anything connects or starts.

import { destination } from 'pino';
import { checkDaemonConfig } from '../config/index.js';
import { startDaemon } from '../daemon/daemon.js';
import { exitOnUncaught, untilStopped } from '../daemon/lifecycle.js';
import { createLogger } from '../../telemetry/index.js';
import { tuneJitForTrading } from '../../latency/jit.js';
import { parseCommand, UsageError } from '../args.js';

/** Time allowed after the cancel deadline for closing connections, the journal and the servers, ms. */
export const CLOSE_MARGIN_MS = 5_000;

export const runHelp = `perpbot run [--config FILE]

Runs the trading daemon: the strategies of FILE trade through risk and execution against the
configured venue (or the embedded local venue), with a journal, metrics and control endpoints.
The banner and status lines go to stdout, JSON logs to stderr.
  --config   YAML config (default config/default.yaml; every key documented there)

Check a config without starting anything: perpbot check-config FILE.
SIGTERM or SIGINT stops it: strategies stop, orders are cancelled, the journal is flushed.
A second signal exits at once. SIGUSR2 halts trading (kill switch); POST /resume resumes.`;

export async function run(argv: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseCommand(argv, { config: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, true);
  if (values.help) {
    out(runHelp);
    return 0;
  }
  if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  tuneJitForTrading();
  const { config, strategies } = await checkDaemonConfig(values.config ?? 'config/default.yaml');
  const logger = createLogger({ level: config.log.level, destination: destination({ dest: 2, sync: false }) });
  exitOnUncaught(logger);
  const daemon = await startDaemon({ config, strategies, logger, out });
  return untilStopped(daemon, config.shutdown.deadlineMs + CLOSE_MARGIN_MS, logger);
}
