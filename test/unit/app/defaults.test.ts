import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { resolve, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDaemonConfig, parseDaemonConfig } from '../../../src/app/config/index.js';
import { venueOf } from '../../../src/app/commands/connection.js';
import { sign } from '../../../src/app/commands/sign.js';
import { venueOptions } from '../../../src/app/venue-config.js';
import { startVenue } from '../../../src/venue-sim/server/index.js';
import { ALICE, limit } from '../venue-sim/helpers.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const ACCOUNT = ALICE;
const SIGNER = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
const MINIMAL = ['accounts:', '  - name: main', '    keyFile: main.key', 'strategies:', '  - module: market-maker', ''].join('\n');

describe('defaults shared by npm start, the daemon and the command line', () => {
  it("config/default.yaml's embedded venue keeps the spec's last 5000 rows of each history", async () => {
    const { config } = await checkDaemonConfig(join(ROOT, 'config/default.yaml'), {});
    const venue = await startVenue({ port: 0, ...venueOptions(config.venue.local), flow: false });
    try {
      // 5001 IOC orders that find no liquidity (flow off: an empty book) end cancelled; the history keeps 5000.
      const account = ACCOUNT;
      const { engine } = venue;
      engine.faucet(account, 1_000_000);
      for (let i = 0; i < 5001; i++) engine.applyOrderAction(account, [limit('BTC-USD', true, 50_000, 0.001, 'IOC')]);
      expect(engine.orderHistory(account)).toHaveLength(5000);
    } finally {
      await venue.close();
    }
  });

  it('the command line and the daemon sign for the same network (testnet) unless mainnet is named', () => {
    const daemon = parseDaemonConfig(MINIMAL, 'minimal.yaml', { baseDir: ROOT, env: {} }).venue.network;
    expect(daemon).toBe('testnet');
    expect(venueOf({}, {}).network).toBe(daemon);
    expect(venueOf({ network: 'mainnet' }, {}).network).toBe('mainnet');
    const actions = join(mkdtempSync(join(tmpdir(), 'perpbot-defaults-')), 'actions.json');
    writeFileSync(actions, '[{"cxa":{"c":[]}}]');
    const signed = (...extra: string[]) => {
      const lines: string[] = [];
      sign(['--dialect', 'current', '--actions', actions, '--nonce', '1', '--account', SIGNER, ...extra], (l) => lines.push(l));
      return lines.join('\n');
    };
    expect(signed()).toBe(signed('--network', daemon));
    expect(signed()).not.toBe(signed('--network', 'mainnet'));
  });
});
