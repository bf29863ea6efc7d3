// `perpbot check-config FILE [--online]`: validates a daemon config (interpolation, schema, cross-field checks, strategy
// params, key files) and, with --online, against the venue (markets, lot and minimum notional, collateral).
// Invariants: without --online nothing connects and nothing starts; every problem is reported at once, each with its key and line.

import { existsSync } from 'node:fs';
import { HttpClient } from '../../client/http.js';
import { ConfigErrors, TransportError } from '../../core/errors.js';
import { COLLATERAL_COIN } from '../../protocol/current/inbound-account.js';
import { Keypair } from '../../protocol/keys.js';
import type { Book } from '../../protocol/v1/stream.js';
import { bookUpdateOf, marketRulesOf } from '../../protocol/vocabulary.js';
import { mid } from '../../strategy/api.js';
import type { LoadedStrategy } from '../../strategy/loader.js';
import { startVenue } from '../../venue-sim/server/index.js';
import { checkDaemonConfig, type DaemonConfig } from '../config/index.js';
import { collateralFindings, marketRuleFindings, type AccountFunds } from '../config/checks.js';
import { venueOptions } from '../venue-config.js';
import { parseCommand, UsageError } from '../args.js';
import type { YamlDocument } from '../yaml-config.js';

export const checkConfigHelp = `perpbot check-config FILE [--online]

Validates the daemon config FILE as \`perpbot run --config FILE\` reads it: \${NAME} placeholders
are filled from the environment, every key is checked, the strategies are loaded and their params
validated, the key files are read. Nothing connects. Prints a summary and exits 0, or lists every
problem with its key path and line and exits 1.

  --online  also ask the venue (reads only, nothing is signed): every strategy's markets are listed;
            its order sizes (as the strategy declares them) are at least one lot and, at the current
            mid, at least the market's minimum notional; every account that runs strategies holds
            collateral or has faucetUsd (a warning when its strategies' largest positions need more
            margin than it holds). With venue.mode local, a fresh embedded venue (venue.local
            settings, on a free loopback port) answers, as the daemon's own would at start: its
            accounts start empty, so each needs faucetUsd. Runs only once the offline checks pass.`;

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export async function checkConfig(argv: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseCommand(argv, { help: { type: 'boolean', short: 'h' }, online: { type: 'boolean' } }, true);
  if (values.help) {
    out(checkConfigHelp);
    return 0;
  }
  const [file, extra] = positionals;
  if (file === undefined) throw new UsageError('missing FILE');
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
  const { config, strategies, doc } = await checkDaemonConfig(file);
  const venue = config.venue.mode === 'local' ? 'local' : `${config.venue.mode} ${config.venue.url}`;
  const summary = `${count(config.accounts.length, 'account', 'accounts')}, ${count(strategies.length, 'strategy', 'strategies')}, venue ${venue}, dialect ${config.venue.dialect}`;
  if (!values.online) {
    out(`${file}: ok (${summary})`);
    return 0;
  }
  const online = await onlineChecks(config, strategies, doc);
  for (const w of online.warnings) out(`warning: ${w.message}`);
  if (online.errors.length > 0) throw new ConfigErrors(file, online.errors);
  out(`${file}: ok online (${summary}; ${online.facts})`);
  return 0;
}

/** The mid of a one-level book, when it has both sides (its arrival time is not read). */
function midOf(book: Book): number | undefined {
  const { bids, asks } = bookUpdateOf(book, 0n);
  return mid({ bestBid: () => bids[0], bestAsk: () => asks[0] });
}

/** The public key of an account that signs with its own key; undefined while its key file is still to be created. */
function ownKey(a: DaemonConfig['accounts'][number], index: number): string | undefined {
  if (a.secretKey !== undefined) return Keypair.fromBase58(a.secretKey, `accounts[${index}].secretKey`).publicKey;
  return existsSync(a.keyFile!) ? Keypair.fromFile(a.keyFile!, () => undefined).publicKey : undefined;
}

/** Reads markets, mids and the owners' accounts from the venue (an embedded one for venue.mode local) and checks the config against them. */
async function onlineChecks(config: DaemonConfig, strategies: readonly LoadedStrategy[], doc: YamlDocument) {
  const local =
    config.venue.mode === 'local'
      ? await startVenue({
          ...venueOptions(config.venue.local),
          dialect: config.venue.dialect,
          network: config.venue.network,
          host: '127.0.0.1',
          port: 0,
          verifyOnWorker: false,
        })
      : undefined;
  const url = local?.url ?? config.venue.url!;
  const http = new HttpClient({
    baseUrl: url,
    dialect: config.venue.dialect,
    timeoutMs: config.http.timeoutMs,
    rateLimitMaxWaitMs: config.http.rateLimitMaxWaitMs,
    readRetries: 1,
  });
  try {
    // One flow round: the embedded venue's books have both sides, as they do by the time the daemon quotes.
    local?.step();
    const markets = new Map((await http.exchangeInfo()).map((m) => [m.symbol, marketRulesOf(m)]));
    const symbols = [...new Set(strategies.flatMap((s) => s.symbols))].filter((s) => markets.has(s));
    const mids = new Map<string, number>();
    for (const symbol of symbols) {
      const price = midOf(await http.l2book(symbol, 1));
      if (price !== undefined) mids.set(symbol, price);
    }
    const funds = new Map<string, AccountFunds>();
    for (const [i, a] of config.accounts.entries()) {
      if (config.venue.mode === 'paper') {
        funds.set(a.name, { collateralUsd: a.paper?.collateralUsd ?? config.backtest.collateralUsd, leverage: new Map() });
        continue;
      }
      const key = a.agentOf === undefined ? ownKey(a, i) : undefined;
      if (key === undefined) continue;
      const [row] = await http.account('fullAccount', key);
      const collateralUsd = row?.fullAccount.marginSummary.positions.find((c) => c.coin === COLLATERAL_COIN)?.size ?? 0;
      funds.set(a.name, { collateralUsd, leverage: new Map(row?.fullAccount.settings.maxLeverage ?? []) });
    }
    const rules = marketRuleFindings(strategies, markets, mids);
    const money = collateralFindings(config, strategies, markets, mids, funds);
    const problem = (i: { field: string; message: string }) => doc.problem(i.field, i.message);
    const byLine = (a: { line: number | undefined }, b: { line: number | undefined }) => (a.line ?? Infinity) - (b.line ?? Infinity);
    const where = local ? `a fresh embedded venue` : url;
    return {
      errors: [...rules.errors, ...money.errors].map(problem).sort(byLine),
      warnings: [...rules.warnings, ...money.warnings].map(problem).sort(byLine),
      facts: `${count(symbols.length, 'market', 'markets')} and ${count(new Set(config.strategies.map((s) => s.account)).size, 'account', 'accounts')} checked on ${where}`,
    };
  } catch (e) {
    if (e instanceof TransportError) throw new TransportError(`online checks: the venue at ${url} did not answer`, { cause: e });
    throw e;
  } finally {
    http.close();
    await local?.close();
  }
}
