// `perpbot check-config FILE`: validates a daemon config (interpolation, schema, cross-field checks, strategy params).
// Invariant: connects to nothing and starts nothing; every problem is reported at once, each with its key and line.

import { checkDaemonConfig } from '../config/index.js';
import { parseCommand, UsageError } from '../args.js';

export const checkConfigHelp = `perpbot check-config FILE

Validates the daemon config FILE as \`perpbot run --config FILE\` reads it: \${NAME} placeholders
are filled from the environment, every key is checked, the strategies are loaded and their params
validated. Nothing connects. Prints a summary and exits 0, or lists every problem with its key
path and line and exits 1.`;

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export async function checkConfig(argv: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseCommand(argv, { help: { type: 'boolean', short: 'h' } }, true);
  if (values.help) {
    out(checkConfigHelp);
    return 0;
  }
  const [file, extra] = positionals;
  if (file === undefined) throw new UsageError('missing FILE');
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
  const { config, strategies } = await checkDaemonConfig(file);
  const venue = config.venue.mode === 'local' ? 'local' : `remote ${config.venue.url}`;
  out(`${file}: ok (${count(config.accounts.length, 'account', 'accounts')}, ${count(strategies.length, 'strategy', 'strategies')}, venue ${venue}, dialect ${config.venue.dialect})`);
  return 0;
}
