// The daemon YAML of the built-in market maker that the backtest, sweep and pool tests run (a fixed throwaway key).
// Invariant: the same arguments give the same text.

import { base58Encode } from '../../src/protocol/base58.js';

const PARAMS = 'symbol: BTC-USD, size: 0.001, halfSpreadBps: 2, maxPosition: 0.01, minIntervalMs: 250';

/** `extraParams` are appended to the market maker's params; `backtest` is the backtest section's body (indented two spaces). */
export function marketMakerYaml(opts: { extraParams?: string; backtest?: string } = {}): string {
  return `accounts:
  - name: main
    secretKey: ${base58Encode(new Uint8Array(32).fill(5))}
    faucetUsd: 50000
strategies:
  - module: market-maker
    params: { ${PARAMS}${opts.extraParams ? `, ${opts.extraParams}` : ''} }
backtest:
${opts.backtest ?? '  equityIntervalMs: 1000\n'}`;
}
