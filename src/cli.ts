#!/usr/bin/env node
// perpbot command line: dispatches subcommands; errors go to stderr as `CODE: message` (docs/errors.md) with a non-zero
// exit status. Invariant: exit 0 success, 1 runtime or input error (one line, no stack; PERPBOT_DEBUG=1 shows that of an
// uncatalogued error), 2 usage error; secrets are never printed.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { account, accountHelp } from './app/commands/account.js';
import { agent, agentHelp } from './app/commands/agent.js';
import { faucet, faucetHelp } from './app/commands/faucet.js';
import { keygen, keygenHelp } from './app/commands/keygen.js';
import { leverage, leverageHelp } from './app/commands/leverage.js';
import { order, orderHelp } from './app/commands/order.js';
import { watch, watchHelp } from './app/commands/watch.js';
import { sign, signHelp } from './app/commands/sign.js';
import { venue, venueHelp } from './app/commands/local-venue.js';
import { run, runHelp } from './app/commands/run.js';
import { checkConfig, checkConfigHelp } from './app/commands/check-config.js';
import { report, reportHelp } from './app/commands/report.js';
import { record, recordHelp } from './app/commands/record.js';
import { backtest, backtestHelp } from './app/commands/backtest.js';
import { newCommand, newHelp } from './app/commands/new.js';
import { UsageError } from './app/args.js';
import { PerpbotError } from './core/errors.js';

type Command = { run: (argv: string[], out: (line: string) => void) => number | Promise<number>; help: string; summary: string };

const COMMANDS: Record<string, Command> = {
  run: { run, help: runHelp, summary: 'run the trading daemon (default config/default.yaml)' },
  'check-config': { run: checkConfig, help: checkConfigHelp, summary: 'validate a daemon config file and its strategies' },
  report: { run: report, help: reportHelp, summary: 'PnL, fees, funding, volume and fill ratio from the journal (--html: a page of charts)' },
  new: { run: newCommand, help: newHelp, summary: 'write a new strategy, its test and a config (new strategy NAME)' },
  keygen: { run: keygen, help: keygenHelp, summary: 'create a new Ed25519 keypair file' },
  sign: { run: sign, help: signHelp, summary: 'encode and sign a request (v1 or current dialect)' },
  venue: { run: venue, help: venueHelp, summary: 'run the local venue (HTTP + WebSocket + market flow)' },
  account: { run: account, help: accountHelp, summary: 'query an account (orders, fills, positions, history)' },
  order: { run: order, help: orderHelp, summary: 'place, cancel or cancel all orders' },
  leverage: { run: leverage, help: leverageHelp, summary: "set a market's maximum leverage" },
  agent: { run: agent, help: agentHelp, summary: 'authorize or revoke an agent wallet' },
  faucet: { run: faucet, help: faucetHelp, summary: 'request test collateral' },
  watch: { run: watch, help: watchHelp, summary: 'print the messages of venue topics' },
  record: { run: record, help: recordHelp, summary: 'record market data to a file (or generate a synthetic recording)' },
  backtest: { run: backtest, help: backtestHelp, summary: 'replay recordings through the strategies on a simulated exchange' },
};

function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `perpbot: automated trading on a perpetual-futures venue

Usage: perpbot <command> [options]     (perpbot help <command> or perpbot <command> --help for details)
       perpbot --version

Commands:
${lines.join('\n')}`;
}

/** The version in the package.json above this file (src/ when run from source, dist/src/ when built). */
function version(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) return 'unknown';
  }
}

/**
 * One line for a runtime error (a line a problem for ConfigErrors): its message, then those of its causes that it does
 * not already contain (a failed connection names the address there).
 */
function describeError(e: unknown): string {
  let text = '';
  for (let c: unknown = e, n = 0; c instanceof Error && n < 4; c = c.cause, n++) {
    if (!text.includes(c.message)) text = text ? `${text}: ${c.message}` : c.message;
  }
  return text || String(e);
}

export async function main(argv: string[]): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V') {
    out(`perpbot ${version()}`);
    return 0;
  }
  if (name === 'help' && rest.length > 0) {
    const asked = COMMANDS[rest[0]!];
    if (asked) {
      out(asked.help);
      return 0;
    }
    process.stderr.write(`USAGE: unknown command ${JSON.stringify(rest[0])}\n\n${mainHelp()}\n`);
    return 2;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    out(mainHelp());
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`USAGE: unknown command ${JSON.stringify(name)}\n\n${mainHelp()}\n`);
    return 2;
  }
  try {
    return await command.run(rest, out);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.code}: ${e.message}\n\n${command.help}\n`);
      return 2;
    }
    if (e instanceof PerpbotError) process.stderr.write(`${e.code}: ${describeError(e)}\n`);
    else if (process.env.PERPBOT_DEBUG) throw e;
    else process.stderr.write(`perpbot ${name}: error: ${describeError(e)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
