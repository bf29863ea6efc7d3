// The daemon's accounts: signing keys from the config (files created on request) and the start-up actions
// (faucet, agent authorization, leverage). Invariants: secrets stay inside Keypair; each action is sent once.

import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { HttpClient } from '../../client/http.js';
import { ConfigError } from '../../core/errors.js';
import type { Dialect, Network } from '../../core/types.js';
import { Keypair } from '../../protocol/keys.js';
import { Gauge, type Registry } from 'prom-client';
import type { NonceSources } from '../../protocol/nonce.js';
import type { AccountConfig } from '../config/index.js';
import { agentAction, failedItems, faucetAction, leverageAction, signAction } from '../commands/actions.js';

export interface DaemonAccount {
  readonly name: string;
  readonly key: Keypair;
  /** The traded account (base58): the key's own, or the owner's for an agent. */
  readonly account: string;
  /** Name of the owning account when the key is an agent. */
  readonly agentOf: string | undefined;
  readonly config: AccountConfig;
}

function keyOf(c: AccountConfig, index: number, warn: (message: string) => void): Keypair {
  if (c.secretKey !== undefined) return Keypair.fromBase58(c.secretKey, `accounts[${index}].secretKey`);
  const file = c.keyFile!;
  if (!existsSync(file)) {
    if (!c.createKey) throw new ConfigError(`accounts[${index}].keyFile`, `${file} does not exist (set createKey: true to create it)`);
    const key = Keypair.generate();
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, key.keyFileText(), { mode: 0o600, flag: 'wx' });
    return key;
  }
  return Keypair.fromFile(file, warn);
}

/** Loads every account's key (creating key files where asked) and resolves agents to their owners' accounts. */
export function loadAccounts(configs: readonly AccountConfig[], warn: (message: string) => void): DaemonAccount[] {
  const keys = new Map(configs.map((c, i) => [c.name, keyOf(c, i, warn)]));
  return configs.map((c) => ({
    name: c.name,
    key: keys.get(c.name)!,
    account: c.agentOf === undefined ? keys.get(c.name)!.publicKey : keys.get(c.agentOf)!.publicKey,
    agentOf: c.agentOf,
    config: c,
  }));
}

export interface SetupOptions {
  http: HttpClient;
  dialect: Dialect;
  network: Network;
  /** The process's nonce sources (the trading sessions use the same ones). */
  nonces: NonceSources;
  log: { info(fields: object, message: string): void };
}

/** The start-up actions of one account, in order: collateral, agent authorization by the owner, leverage. */
function setupActions(
  a: DaemonAccount,
  byName: ReadonlyMap<string, DaemonAccount>,
  dialect: Dialect,
): { what: string; signer: DaemonAccount; actions: unknown }[] {
  const steps: { what: string; signer: DaemonAccount; actions: unknown }[] = [];
  if (a.config.faucetUsd !== undefined)
    steps.push({ what: `faucet ${a.config.faucetUsd} USD`, signer: a, actions: faucetAction(dialect, a.account, a.config.faucetUsd) });
  if (a.agentOf !== undefined)
    steps.push({ what: `authorize agent ${a.key.publicKey}`, signer: byName.get(a.agentOf)!, actions: agentAction(dialect, a.key.publicKey, false) });
  for (const [symbol, leverage] of Object.entries(a.config.leverage))
    steps.push({ what: `leverage ${symbol} ${leverage}x`, signer: a, actions: leverageAction(dialect, symbol, leverage) });
  return steps;
}

/**
 * Sends every account's start-up actions, each signed once with a durable nonce. Throws PerpbotError naming the
 * account and step when the venue does not accept one (the daemon must not trade a half-prepared account).
 */
export async function prepareAccounts(accounts: readonly DaemonAccount[], opts: SetupOptions): Promise<void> {
  const byName = new Map(accounts.map((a) => [a.name, a]));
  for (const a of accounts) {
    for (const step of setupActions(a, byName, opts.dialect)) {
      const signer = step.signer.key;
      const request = signAction(opts.dialect, opts.network, signer, opts.nonces.of(signer.publicKey).next(), step.actions, step.signer.account);
      const outcome = await opts.http.submit(request);
      const failed = outcome.outcome === 'accepted' ? failedItems(outcome.response.response.data.statuses)[0] : undefined;
      const refused = outcome.outcome !== 'accepted' ? outcome.reason : failed && `${failed.status}: ${failed.reason}`;
      if (refused !== undefined)
        throw new ConfigError(`accounts.${a.name}`, `${step.what}: the venue did not accept it (${refused})${signatureHint(refused, opts)}`);
      opts.log.info({ account: a.name, step: step.what }, 'account prepared');
    }
  }
}

/**
 * What a refused signature likely means: in the current dialect every signature covers the network byte, so a venue on
 * another network refuses each one (the local venue says "bad signature"); empty for any other refusal.
 */
function signatureHint(refused: string, opts: Pick<SetupOptions, 'dialect' | 'network'>): string {
  if (opts.dialect !== 'current' || !/signature/i.test(refused)) return '';
  return `; current-dialect signatures cover the network byte and venue.network is ${opts.network}: check that the venue is on that network`;
}

/** A nonce lead over the clock beyond this is warned about at start (a restart leaves at most the reserve window, 10 s). */
const NONCE_LEAD_WARN_NS = 30_000_000_000n;

export interface NonceLeadOptions {
  registry: Registry;
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
}

/**
 * Logs how far each account's signing key's latest nonce is ahead of the clock (a warning when beyond
 * NONCE_LEAD_WARN_NS) and exports it at each scrape as perpbot_nonce_lead_seconds{account}.
 */
export function reportNonceLead(accounts: readonly DaemonAccount[], nonces: NonceSources, opts: NonceLeadOptions): void {
  const leadSeconds = (a: DaemonAccount) => Number(nonces.of(a.key.publicKey).leadNs()) / 1e9;
  new Gauge({
    name: 'perpbot_nonce_lead_seconds',
    help: "How far the latest nonce of each account's signing key is ahead of the clock, seconds (the venue refuses nonces 24 h away)",
    labelNames: ['account'],
    registers: [opts.registry],
    collect() {
      for (const a of accounts) this.set({ account: a.name }, leadSeconds(a));
    },
  });
  for (const a of accounts) {
    const fields = { account: a.name, signer: a.key.publicKey, nonceLeadSeconds: leadSeconds(a) };
    if (nonces.of(a.key.publicKey).leadNs() > NONCE_LEAD_WARN_NS)
      opts.log.warn(fields, 'nonces run far ahead of the clock (the clock went back, or an older version ratcheted them): the venue refuses nonces 24 h away');
    else opts.log.info(fields, 'nonce lead over the clock');
  }
}
