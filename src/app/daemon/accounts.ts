// The daemon's accounts: signing keys from the config (files created on request) and the start-up actions
// (faucet, agent authorization, leverage). Invariants: secrets stay inside Keypair; each action is sent once.

import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { HttpClient } from '../../client/http.js';
import type { Clock } from '../../core/clock.js';
import { ConfigError } from '../../core/errors.js';
import type { Dialect, Network } from '../../core/types.js';
import { Keypair } from '../../protocol/keys.js';
import { NonceSource, type NonceStore } from '../../protocol/nonce.js';
import type { AccountConfig } from '../config/index.js';
import { agentAction, faucetAction, leverageAction, signAction } from '../commands/actions.js';

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
  nonces: NonceStore;
  clock: Clock;
  log: { info(fields: object, message: string): void };
}

/** The start-up actions of one account, in order: collateral, agent authorization by the owner, leverage. */
function setupActions(a: DaemonAccount, byName: ReadonlyMap<string, DaemonAccount>, dialect: Dialect): { what: string; signer: DaemonAccount; actions: unknown }[] {
  const steps: { what: string; signer: DaemonAccount; actions: unknown }[] = [];
  if (a.config.faucetUsd !== undefined) steps.push({ what: `faucet ${a.config.faucetUsd} USD`, signer: a, actions: faucetAction(dialect, a.account, a.config.faucetUsd) });
  if (a.agentOf !== undefined) steps.push({ what: `authorize agent ${a.key.publicKey}`, signer: byName.get(a.agentOf)!, actions: agentAction(dialect, a.key.publicKey, false) });
  for (const [symbol, leverage] of Object.entries(a.config.leverage)) steps.push({ what: `leverage ${symbol} ${leverage}x`, signer: a, actions: leverageAction(dialect, symbol, leverage) });
  return steps;
}

/**
 * Sends every account's start-up actions, each signed once with a durable nonce. Throws PerpbotError naming the
 * account and step when the venue does not accept one (the daemon must not trade a half-prepared account).
 */
export async function prepareAccounts(accounts: readonly DaemonAccount[], opts: SetupOptions): Promise<void> {
  const byName = new Map(accounts.map((a) => [a.name, a]));
  const sources = new Map<string, NonceSource>();
  for (const a of accounts) {
    for (const step of setupActions(a, byName, opts.dialect)) {
      const signer = step.signer.key;
      let nonces = sources.get(signer.publicKey);
      if (!nonces) sources.set(signer.publicKey, (nonces = new NonceSource({ signer: signer.publicKey, clock: opts.clock, store: opts.nonces })));
      const request = signAction(opts.dialect, opts.network, signer, nonces.next(), step.actions, step.signer.account);
      const outcome = await opts.http.submit(request);
      const refused = outcome.outcome !== 'accepted' ? outcome.reason : itemError(outcome.response.response.data.statuses);
      if (refused !== undefined) throw new ConfigError(`accounts.${a.name}`, `${step.what}: the venue did not accept it (${refused})`);
      opts.log.info({ account: a.name, step: step.what }, 'account prepared');
    }
  }
}

/** The first failed item status (`error`, `depositFailed`) of an accepted action, if any. */
function itemError(statuses: readonly Record<string, unknown>[]): string | undefined {
  for (const s of statuses) {
    if ('error' in s) return String(s.error);
    if ('depositFailed' in s) return String(s.depositFailed);
  }
  return undefined;
}
