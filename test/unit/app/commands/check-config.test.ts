import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../src/app/args.js';
import { checkConfig, checkConfigHelp } from '../../../../src/app/commands/check-config.js';
import { ConfigErrors } from '../../../../src/core/errors.js';

const ROOT = resolve(import.meta.dirname, '../../../..');

async function run(argv: string[]): Promise<{ status: number; lines: string[] }> {
  const lines: string[] = [];
  const status = await checkConfig(argv, (line) => lines.push(line));
  return { status, lines };
}

describe('perpbot check-config', () => {
  it('prints a one-line summary of a valid config and returns 0', async () => {
    const file = join(ROOT, 'config/default.yaml');
    expect(await run([file])).toEqual({ status: 0, lines: [`${file}: ok (1 account, 1 strategy, venue local, dialect v1)`] });
  });

  it('summarizes a remote venue with its URL', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'perpbot-check-')), 'remote.yaml');
    writeFileSync(
      file,
      [
        'venue: {mode: remote, url: "https://venue.example/api/v1", wsUrl: "wss://venue.example/ws", dialect: current}',
        'accounts: [{name: a, keyFile: a.key, createKey: true}, {name: b, keyFile: b.key, createKey: true, agentOf: a}]',
        'strategies:',
        '  - {name: one, module: market-maker, account: b, params: {symbol: BTC-USD, size: 0.001, maxPosition: 0.01}}',
        '  - {name: two, module: market-maker, account: b, params: {symbol: ETH-USD, size: 0.01, maxPosition: 0.1}}',
      ].join('\n'),
    );
    expect((await run([file])).lines).toEqual([`${file}: ok (2 accounts, 2 strategies, venue remote https://venue.example/api/v1, dialect current)`]);
  });

  it('throws ConfigErrors listing every problem at once: the file, the strategies and their params, the key files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-check-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(join(dir, 'garbage.key'), 'not a key');
    writeFileSync(
      file,
      [
        'accounts:',
        '  - name: main',
        '    keyFile: k.key',
        '    faucetUsd: -5',
        '  - name: other',
        '    keyFile: garbage.key',
        'strategies:',
        '  - module: market-maker',
        '    colour: red',
        '    params: {symbol: BTC-USD, size: -1}',
        '  - module: ./nowhere.ts',
      ].join('\n'),
    );
    const e = await run([file]).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ConfigErrors);
    expect((e as ConfigErrors).message.split('\n')).toEqual([
      `7 problems in ${file}:`,
      `  accounts[0].keyFile (line 3): ${join(dir, 'k.key')} does not exist (set createKey: true to create it)`,
      '  accounts[0].faucetUsd (line 4): must be > 0, got -5',
      `  accounts[1].keyFile (line 6): key file ${join(dir, 'garbage.key')}: not valid base58`,
      '  strategies[0].colour (line 9): unknown field',
      '  strategies[0].params.size (line 10): must be > 0, got -1',
      '  strategies[0].params.maxPosition (line 10): missing field',
      expect.stringMatching(/^ {2}strategies\[1\]\.module \(line 11\): no strategy module ".*nowhere\.ts" \(tried /),
    ]);
  });

  it('prints its help, and rejects a missing or extra FILE as a usage error', async () => {
    expect(await run(['--help'])).toEqual({ status: 0, lines: [checkConfigHelp] });
    await expect(run([])).rejects.toThrow(UsageError);
    await expect(run(['a.yaml', 'b.yaml'])).rejects.toThrow(/unexpected argument "b.yaml"/);
  });
});
