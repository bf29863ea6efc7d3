// Checks of a daemon config that a schema cannot express: between fields (names, references, mode-dependent keys) and of its key files.
// Invariant: every problem is returned at once, each naming the key path that must change.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ValidationError } from '../../core/errors.js';
import type { Issue } from '../../core/schema.js';
import { Keypair } from '../../protocol/keys.js';
import type { DaemonConfig } from './schema.js';

/**
 * Problems of a schema-valid config: account names unique; agentOf names another account that is not
 * itself an agent; each strategy's account exists; the strategies of one venue account run under one
 * config account (its own key or one agent); url and wsUrl given when the venue is remote.
 */
export function crossFieldIssues(c: DaemonConfig): Issue[] {
  const out: Issue[] = [];
  const index = new Map<string, number>();
  c.accounts.forEach((a, i) => {
    const first = index.get(a.name);
    if (first === undefined) index.set(a.name, i);
    else out.push({ field: `accounts[${i}].name`, message: `duplicate account name ${JSON.stringify(a.name)} (also accounts[${first}])` });
  });
  const unknown = (name: string) => `no account named ${JSON.stringify(name)} (accounts: ${[...index.keys()].join(', ')})`;
  c.accounts.forEach((a, i) => {
    if (a.agentOf === undefined) return;
    const field = `accounts[${i}].agentOf`;
    const principal = index.get(a.agentOf);
    if (a.agentOf === a.name) out.push({ field, message: 'an account cannot be its own agent' });
    else if (principal === undefined) out.push({ field, message: unknown(a.agentOf) });
    else if (c.accounts[principal]!.agentOf !== undefined) out.push({ field, message: `${JSON.stringify(a.agentOf)} is itself an agent; name an account that signs with its own key` });
  });
  const traders = new Map<string, string>();
  c.strategies.forEach((s, i) => {
    const at = index.get(s.account);
    if (at === undefined) return void out.push({ field: `strategies[${i}].account`, message: unknown(s.account) });
    const venueAccount = c.accounts[at]!.agentOf ?? s.account;
    const other = traders.get(venueAccount);
    if (other === undefined) traders.set(venueAccount, s.account);
    else if (other !== s.account) {
      out.push({
        field: `strategies[${i}].account`,
        message: `${JSON.stringify(s.account)} and ${JSON.stringify(other)} trade the same venue account (${JSON.stringify(venueAccount)}); give its strategies to one of them (each would cancel the other's orders as unknown)`,
      });
    }
  });
  if (c.venue.mode === 'remote') {
    for (const key of ['url', 'wsUrl'] as const) if (c.venue[key] === undefined) out.push({ field: `venue.${key}`, message: 'required when venue.mode is remote' });
  }
  return out;
}

/** A key file as the file names it, before the schema (so its problems show beside the others). */
export interface KeyFileEntry {
  readonly keyFile?: unknown;
  readonly createKey?: unknown;
}

/**
 * Problems of the key files of `accounts` (paths relative to `baseDir`): each must exist (unless createKey is true),
 * be readable and hold a key. Entries without a string keyFile are skipped. The messages never show a key.
 */
export function keyFileIssues(accounts: readonly KeyFileEntry[], baseDir: string): Issue[] {
  const out: Issue[] = [];
  accounts.forEach((a, i) => {
    if (typeof a.keyFile !== 'string' || a.keyFile === '') return;
    const file = resolve(baseDir, a.keyFile);
    const field = `accounts[${i}].keyFile`;
    if (!existsSync(file)) {
      if (a.createKey !== true) out.push({ field, message: `${file} does not exist (set createKey: true to create it)` });
      return;
    }
    try {
      Keypair.fromFile(file, () => undefined);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      out.push({ field, message: e.message });
    }
  });
  return out;
}
