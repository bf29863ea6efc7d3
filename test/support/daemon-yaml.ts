// The daemon YAML the daemon tests start: one account `main` (key file keys/main.json, created) funded by the faucet, and
// the built-in market maker on BTC-USD, against a venue reached by URL.
// Invariant: the same arguments give the same text; the journal lives in the config's directory.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DaemonYamlOptions {
  /** Further keys of the account `main`, as YAML flow-mapping entries (`leverage: {BTC-USD: 3}`). */
  account?: string;
  /** The journal section's flow mapping. Default `{path: journal.sqlite}`. */
  journal?: string;
}

/** The YAML text; `venue` holds the venue's REST and WebSocket URLs. */
export function daemonYaml(venue: { url: string; wsUrl: string }, opts: DaemonYamlOptions = {}): string {
  return [
    `venue: {mode: remote, url: ${venue.url}, wsUrl: ${venue.wsUrl}}`,
    'accounts:',
    `  - {name: main, keyFile: keys/main.json, createKey: true, faucetUsd: 50000${opts.account ? `, ${opts.account}` : ''}}`,
    'strategies:',
    '  - {name: mm, module: market-maker, account: main, params: {symbol: BTC-USD, size: 0.001, maxPosition: 0.01}}',
    `journal: ${opts.journal ?? '{path: journal.sqlite}'}`,
    'telemetry: {port: 0, statusIntervalMs: 0}',
    'shutdown: {deadlineMs: 5000}',
    '',
  ].join('\n');
}

/** Writes daemonYaml to `dir`/daemon.yaml and returns that path. */
export function writeDaemonYaml(dir: string, venue: { url: string; wsUrl: string }, opts: DaemonYamlOptions = {}): string {
  const path = join(dir, 'daemon.yaml');
  writeFileSync(path, daemonYaml(venue, opts));
  return path;
}
