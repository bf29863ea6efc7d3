// `perpbot check-config FILE --online` against a real local venue (loopback, port 0): markets, lots, minimum notional
// and collateral, every problem at once with its key and line; and the daemon's start refuses an order size below the lot.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../../src/app/commands/check-config.js';
import { checkDaemonConfig } from '../../../src/app/config/index.js';
import { startDaemon } from '../../../src/app/daemon/daemon.js';
import { ConfigErrors, TransportError } from '../../../src/core/errors.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { createLogger } from '../../../src/telemetry/index.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { Trader } from '../venue/harness.js';
import { cleanups } from '../../support/cleanups.js';

const ROOT = resolve(import.meta.dirname, '../../..');

const cleanup = cleanups();

async function venue(): Promise<Venue> {
  const v = await startVenue({ port: 0, verifyOnWorker: false });
  cleanup.push(() => v.close());
  v.step(); // both sides of every book
  return v;
}

/** A key file in `dir`; with `faucetUsd`, its account is funded on `v` first. */
async function keyFile(dir: string, name: string, v: Venue, faucetUsd?: number): Promise<void> {
  const key = Keypair.generate();
  writeFileSync(join(dir, name), key.keyFileText(), { mode: 0o600 });
  if (faucetUsd !== undefined) expect((await new Trader(v, key).faucet(faucetUsd)).status).toBe(200);
}

function configFile(dir: string, v: Venue, lines: string[]): string {
  const file = join(dir, 'daemon.yaml');
  writeFileSync(file, [`venue: {mode: remote, url: "${v.url}", wsUrl: "${v.wsUrl}"}`, ...lines, ''].join('\n'));
  return file;
}

async function run(argv: string[]): Promise<{ status: number; lines: string[] }> {
  const lines: string[] = [];
  const status = await checkConfig(argv, (line) => lines.push(line));
  return { status, lines };
}

describe('perpbot check-config --online', () => {
  it('lists order sizes and a maximum position below the lot, an unknown market, a notional below the minimum and an unfunded account at once, with keys and lines', async () => {
    const v = await venue();
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-online-'));
    await keyFile(dir, 'broke.key', v);
    await keyFile(dir, 'rich.key', v, 100);
    const file = configFile(dir, v, [
      'accounts:', //                                   2
      '  - name: broke', //                             3
      '    keyFile: broke.key', //                      4
      '  - name: rich', //                              5
      '    keyFile: rich.key', //                       6
      'strategies:', //                                 7
      '  - name: tiny', //                              8
      '    module: market-maker', //                    9
      '    account: rich', //                           10
      '    params:', //                                 11
      '      symbol: BTC-USD', //                       12
      '      size: 0.00001', //                         13
      '      maxPosition: 0.01', //                     14
      '  - name: ghost', //                             15
      '    module: market-maker', //                    16
      '    account: rich', //                           17
      '    params: {symbol: DOGE-USD, size: 1, maxPosition: 10}', // 18
      '  - name: small', //                             19
      '    module: market-maker', //                    20
      '    account: broke', //                          21
      '    params: {symbol: ETH-USD, size: 0.0025, maxPosition: 0.0005}', // 22
    ]);
    const lines: string[] = [];
    const e = await checkConfig([file, '--online'], (l) => lines.push(l)).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ConfigErrors);
    expect((e as ConfigErrors).message.split('\n')).toEqual([
      `5 problems in ${file}:`,
      expect.stringMatching(
        /^ {2}accounts\[0\] \(line 3\): "broke" has no collateral: it holds 0\.00 USD of collateral on the venue, and no faucetUsd is set, so risk denies every order \(LEVERAGE\)/,
      ),
      '  strategies[0].params.size (line 13): 0.00001 is below the lot size 0.0001 of BTC-USD: every order rounds down to 0 and none is placed',
      '  strategies[1].params.symbol (line 18): the venue lists no market DOGE-USD (markets: BTC-USD, ETH-USD, SOL-USD)',
      expect.stringMatching(
        /^ {2}strategies\[2\]\.params\.size \(line 22\): 0\.0025 \(0\.002 on the lot grid\) × mid [\d.]+ = [\d.]+ USD is below the minimum notional 10 USD of ETH-USD: the venue refuses such orders \(a size of at least 0\.003 is needed\)$/,
      ),
      '  strategies[2].params.maxPosition (line 22): 0.0005 is below the lot size 0.001 of ETH-USD: not one lot can be bought or sold',
    ]);
    // "rich" holds 100 USD: 0.01 BTC (about 970 USD) at 5x (risk.maxLeverage) needs about 194 USD of margin.
    expect(lines).toEqual([
      expect.stringMatching(
        /^warning: accounts\[1\] \(line 5\): "rich": its strategies' largest positions \(BTC-USD [\d.]+ USD at 5x\) need [\d.]+ USD of margin, more than its collateral \(100\.00 USD on the venue\)/,
      ),
    ]);
  });

  it('passes a good config: funded accounts (or faucetUsd for a key still to be created), sizes on the lot grid above the minimum notional', async () => {
    const v = await venue();
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-online-'));
    await keyFile(dir, 'rich.key', v, 100_000);
    const file = configFile(dir, v, [
      'accounts:',
      '  - {name: rich, keyFile: rich.key}',
      '  - {name: fresh, keyFile: fresh.key, createKey: true, faucetUsd: 1000}',
      'strategies:',
      '  - {name: btc, module: market-maker, account: rich, params: {symbol: BTC-USD, size: 0.001, maxPosition: 0.01}}',
      '  - {name: eth, module: market-maker, account: fresh, params: {symbol: ETH-USD, size: 0.01, maxPosition: 0.1}}',
    ]);
    expect(await run([file, '--online'])).toEqual({
      status: 0,
      lines: [`${file}: ok online (2 accounts, 2 strategies, venue remote ${v.url}, dialect v1; 2 markets and 2 accounts checked on ${v.url})`],
    });
    // Without --online nothing is asked: the same file checks offline against a venue that is gone.
    await v.close();
    expect((await run([file])).lines).toEqual([`${file}: ok (2 accounts, 2 strategies, venue remote ${v.url}, dialect v1)`]);
  });

  it('checks the shipped default config (venue.local) against a fresh embedded venue on a free port', async () => {
    const file = join(ROOT, 'config/default.yaml');
    const { status, lines } = await run([file, '--online']);
    expect(status).toBe(0);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ok online \\(1 account, 1 strategy, venue local, dialect v1; 1 market and 1 account checked on a fresh embedded venue\\)$`,
        ),
      ),
    ]);
  });

  it('paper trading: the simulated collateral counts, not what the key holds on the venue', async () => {
    const v = await venue();
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-online-'));
    await keyFile(dir, 'broke.key', v);
    const lines = [
      'accounts: [{name: broke, keyFile: broke.key, paper: {collateralUsd: 5000}}]',
      'strategies:',
      '  - {module: market-maker, params: {symbol: BTC-USD, size: 0.001, maxPosition: 0.01}}',
    ];
    const paper = join(dir, 'paper.yaml');
    writeFileSync(paper, [`venue: {mode: paper, url: "${v.url}", wsUrl: "${v.wsUrl}"}`, ...lines, ''].join('\n'));
    expect((await run([paper, '--online'])).lines.at(-1)).toMatch(
      new RegExp(`^${paper}: ok online \\(1 account, 1 strategy, venue paper ${v.url}, dialect v1; `),
    );
    const remote = configFile(dir, v, lines);
    await expect(run([remote, '--online'])).rejects.toThrow(/"broke" has no collateral/);
  });

  it('says which venue did not answer when it is down', async () => {
    const v = await venue();
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-online-'));
    await keyFile(dir, 'rich.key', v);
    const file = configFile(dir, v, [
      'accounts: [{name: rich, keyFile: rich.key}]',
      'strategies: [{module: market-maker, params: {symbol: BTC-USD, size: 0.001, maxPosition: 0.01}}]',
    ]);
    await v.close();
    const e = await run([file, '--online']).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(TransportError);
    expect((e as Error).message).toContain(`online checks: the venue at ${v.url} did not answer`);
  });
});

describe('daemon start', () => {
  it('refuses an order size below the lot, naming the key, before any account is funded', async () => {
    const v = await venue();
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-online-'));
    const key = Keypair.generate();
    writeFileSync(join(dir, 'main.key'), key.keyFileText(), { mode: 0o600 });
    const file = configFile(dir, v, [
      'accounts: [{name: main, keyFile: main.key, faucetUsd: 10000}]',
      'strategies: [{module: market-maker, params: {symbol: BTC-USD, size: 0.00001, maxPosition: 0.01}}]',
      'journal: {path: journal.sqlite}',
      'telemetry: {port: 0, statusIntervalMs: 0}',
    ]);
    const { config, strategies } = await checkDaemonConfig(file);
    const start = startDaemon({ config, strategies, logger: createLogger({ level: 'silent' }), out: () => undefined });
    await expect(start).rejects.toThrow(ConfigErrors);
    await expect(start).rejects.toThrow(
      'strategies[0].params.size: 0.00001 is below the lot size 0.0001 of BTC-USD: every order rounds down to 0 and none is placed',
    );
    expect(v.engine.marginSummary(key.publicKey).totalBalance).toBe(0);
  });
});
