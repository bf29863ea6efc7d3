import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDaemonConfig, loadDaemonConfig, parseDaemonConfig } from '../../../../src/app/config/index.js';
import { ConfigErrors } from '../../../../src/core/errors.js';
import { base58Encode } from '../../../../src/protocol/base58.js';

const ROOT = resolve(import.meta.dirname, '../../../..');
const DIR = mkdtempSync(join(tmpdir(), 'perpbot-config-'));
const SECRET = base58Encode(randomBytes(32));
const MINIMAL = ['accounts:', '  - name: main', '    keyFile: keys/main.json', 'strategies:', '  - module: market-maker'];

/** Writes `lines` to a fresh file under DIR and returns its path. */
function file(lines: string[], name = `c${randomBytes(4).toString('hex')}.yaml`): string {
  const path = join(DIR, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

function parse(lines: string[], env?: NodeJS.ProcessEnv) {
  return parseDaemonConfig(lines.join('\n') + '\n', 'test.yaml', { baseDir: DIR, ...(env && { env }) });
}

async function errorsOf(fn: () => unknown): Promise<ConfigErrors> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof ConfigErrors) return e;
    throw e;
  }
  throw new Error('expected ConfigErrors');
}

const where = (e: ConfigErrors) => e.problems.map((p) => `${p.key}@${p.line}`);

describe('daemon config: schema', () => {
  it('fills every default, and a strategy trades for the first account unless it names one', () => {
    const c = parse(MINIMAL);
    expect(c.venue).toEqual({ mode: 'local', dialect: 'v1', network: 'testnet', staleAfterMs: 3000, startTimeoutMs: 60_000, local: {} });
    expect(c.accounts).toEqual([{ name: 'main', keyFile: join(DIR, 'keys/main.json'), createKey: false, leverage: {} }]);
    expect(c.strategies).toEqual([{ module: 'market-maker', account: 'main', params: {} }]);
    expect(c.risk).toEqual({});
    expect(c.execution).toEqual({ maxBatchItems: 20, flushDelayMs: 0, unknownOrders: 'cancel', signing: 'precomputed' });
    expect(c.http).toEqual({
      ordersPerSecond: 50,
      ordersBurst: 100,
      cancelsPerSecond: 100,
      cancelsBurst: 200,
      timeoutMs: 10_000,
      maxSockets: 16,
      spareSockets: 2,
      rateLimitMaxWaitMs: 30_000,
    });
    expect(c.journal).toEqual({ path: join(DIR, 'data/perpbot.sqlite'), retention: { maxAgeDays: 7, maxMegabytes: 1024, pruneIntervalMs: 1000 } });
    expect(c.telemetry).toEqual({
      host: '127.0.0.1',
      port: 9464,
      token: undefined,
      statusIntervalMs: 10_000,
      deniedNotReadyMs: 30_000,
      denialLogIntervalMs: 30_000,
    });
    expect(c.log).toEqual({ level: 'info' });
    expect(c.shutdown).toEqual({ cancelOrders: true, deadlineMs: 10_000 });
    expect(c.latency).toEqual({ dedicatedCpu: undefined, eventLoopNice: undefined, keepWarmMs: 5 });
  });

  it('reports mistakes in several sections at once, each with its key path and line', async () => {
    const lines = [
      'venue:', //                        1
      '  dialect: v2', //                 2
      'accounts:', //                     3
      '  - name: Main!', //               4
      '    keyFile: k.json', //           5
      '    leverage:', //                 6
      '      BTC-USD: 0', //              7
      'strategies: []', //                8
      'execution:', //                    9
      '  maxBatchItems: 5000', //        10
      'telemetry:', //                   11
      '  port: 70000', //                12
      'log:', //                         13
      '  level: loud', //                14
      'latency:', //                     15
      '  keepWarmMs: 0.5', //            16
    ];
    const e = await errorsOf(() => parse(lines));
    expect(where(e)).toEqual([
      'venue.dialect@2',
      'accounts[0].name@4',
      'accounts[0].leverage.BTC-USD@7',
      'strategies@8',
      'execution.maxBatchItems@10',
      'telemetry.port@12',
      'log.level@14',
      'latency.keepWarmMs@16',
    ]);
    expect(e.message).toContain('8 problems in test.yaml:\n  venue.dialect (line 2): expected "v1" | "current", got "v2"');
    expect(e.message).toContain('  strategies (line 8): array shorter than 1');
  });

  it('takes latency.eventLoopNice from -20 to 19 and names it otherwise', async () => {
    expect(parse([...MINIMAL, 'latency: {eventLoopNice: -10}']).latency.eventLoopNice).toBe(-10);
    for (const nice of ['-21', '20', '1.5']) {
      const e = await errorsOf(() => parse([...MINIMAL, `latency: {eventLoopNice: ${nice}}`]));
      expect(where(e)).toEqual(['latency.eventLoopNice@6']);
    }
  });

  it('rejects unknown keys everywhere, naming their path', async () => {
    const e = await errorsOf(() =>
      parse([...MINIMAL, '    param: {}', 'venue:', '  local:', '    prot: 1', 'risk:', '  orderRate: {perSecond: 1, burst: 1, x: 2}', 'extra: 1']),
    );
    expect(where(e)).toEqual(['strategies[0].param@6', 'venue.local.prot@9', 'risk.orderRate.x@11', 'extra@12']);
    expect(e.problems.every((p) => p.message.endsWith('unknown field'))).toBe(true);
  });

  it('requires accounts and strategies', async () => {
    expect(where(await errorsOf(() => parse(['log: {level: info}'])))).toEqual(['accounts@1', 'strategies@1']);
  });
});

describe('daemon config: paper trading', () => {
  it("takes venue.mode paper with the venue of the market data and each account's paper collateral", () => {
    const c = parse([
      'venue: {mode: paper, url: "https://venue.example/api/v1", wsUrl: "wss://venue.example/ws", dialect: current}',
      'accounts:',
      '  - {name: main, keyFile: keys/main.json, paper: {collateralUsd: 25000}}',
      '  - {name: other, keyFile: keys/other.json, paper: {}}',
      'strategies:',
      '  - module: market-maker',
    ]);
    expect(c.venue).toMatchObject({ mode: 'paper', url: 'https://venue.example/api/v1', wsUrl: 'wss://venue.example/ws', dialect: 'current' });
    expect(c.accounts.map((a) => a.paper)).toEqual([{ collateralUsd: 25_000 }, { collateralUsd: undefined }]);
  });

  it('accepts config/examples/paper.yaml once PERPBOT_SECRET_KEY is set', async () => {
    const { config } = await checkDaemonConfig(join(ROOT, 'config/examples/paper.yaml'), { PERPBOT_SECRET_KEY: SECRET });
    expect(config.venue).toMatchObject({ mode: 'paper', url: 'http://127.0.0.1:8080/api/v1', wsUrl: 'ws://127.0.0.1:8080/ws' });
    expect(config.accounts[0]!.paper).toEqual({ collateralUsd: 10_000 });
  });

  it('names the key and line of a bad paper setting, and needs url and wsUrl', async () => {
    const e = await errorsOf(() =>
      parse([
        'venue: {mode: paper}', //                                           1
        'accounts:', //                                                      2
        '  - name: main', //                                                 3
        '    keyFile: a.key', //                                             4
        '    paper: {collateralUsd: -5}', //                                 5
        '  - {name: other, keyFile: b.key, paper: {collateral: 1}}', //      6
        'strategies:', //                                                    7
        '  - module: market-maker', //                                       8
      ]),
    );
    expect(where(e)).toEqual(['accounts[0].paper.collateralUsd@5', 'accounts[1].paper.collateral@6']);
    const modes = await errorsOf(() => parse(['venue: {mode: papr}', ...MINIMAL]));
    expect(modes.message).toContain('venue.mode (line 1): expected "local" | "remote" | "paper", got "papr"');
    const missing = await errorsOf(() => parse(['venue: {mode: paper}', ...MINIMAL]));
    expect(missing.message.split('\n').slice(1)).toEqual([
      '  venue.url (line 1): required when venue.mode is paper',
      '  venue.wsUrl (line 1): required when venue.mode is paper',
    ]);
  });
});

describe('daemon config: checks between fields', () => {
  it('lists every cross-field problem', async () => {
    const e = await errorsOf(() =>
      parse([
        'venue: {mode: remote}', //                          1
        'accounts:', //                                      2
        '  - {name: main, keyFile: a.key}', //               3
        '  - {name: main, keyFile: b.key}', //               4
        '  - {name: self, keyFile: c.key, agentOf: self}', //  5
        '  - {name: ag1, keyFile: d.key, agentOf: main}', //  6
        '  - {name: ag2, keyFile: e.key, agentOf: ag1}', //   7
        '  - {name: ag3, keyFile: f.key, agentOf: nobody}', // 8
        'strategies:', //                                    9
        '  - {module: market-maker, account: ghost}', //     10
      ]),
    );
    expect(e.message.split('\n').slice(1)).toEqual([
      '  venue.url (line 1): required when venue.mode is remote',
      '  venue.wsUrl (line 1): required when venue.mode is remote',
      '  accounts[1].name (line 4): duplicate account name "main" (also accounts[0])',
      '  accounts[2].agentOf (line 5): an account cannot be its own agent',
      '  accounts[4].agentOf (line 7): "ag1" is itself an agent; name an account that signs with its own key',
      '  accounts[5].agentOf (line 8): no account named "nobody" (accounts: main, self, ag1, ag2, ag3)',
      '  strategies[0].account (line 10): no account named "ghost" (accounts: main, self, ag1, ag2, ag3)',
    ]);
  });

  it('refuses strategies of one venue account under two config accounts (the owner and its agent)', async () => {
    const e = await errorsOf(() =>
      parse([
        'accounts:', //                                       1
        '  - {name: main, keyFile: a.key}', //                2
        '  - {name: bot, keyFile: b.key, agentOf: main}', //  3
        '  - {name: other, keyFile: c.key}', //              4
        'strategies:', //                                     5
        '  - {name: a, module: market-maker, account: bot}', // 6
        '  - {name: b, module: market-maker, account: other}', // 7
        '  - {name: c, module: market-maker, account: main}', // 8
        '  - {name: d, module: market-maker, account: bot}', // 9
      ]),
    );
    expect(e.message.split('\n').slice(1)).toEqual([
      '  strategies[2].account (line 8): "main" and "bot" trade the same venue account ("main"); give its strategies to one of them (each would cancel the other\'s orders as unknown)',
    ]);
  });

  it('needs exactly one of keyFile and secretKey per account, and keyFile for createKey', async () => {
    const e = await errorsOf(() =>
      parse(
        [
          'accounts:',
          '  - {name: a}',
          '  - {name: b, keyFile: b.key, secretKey: "${KEY}"}',
          '  - {name: c, secretKey: "${KEY}", createKey: true}',
          'strategies: [{module: market-maker}]',
        ],
        { KEY: SECRET },
      ),
    );
    expect(e.message.split('\n').slice(1)).toEqual([
      '  accounts[0] (line 2): give exactly one of keyFile and secretKey',
      '  accounts[1] (line 3): give exactly one of keyFile and secretKey',
      '  accounts[2] (line 4): createKey needs keyFile',
    ]);
  });

  it('never shows a secret key in any message', async () => {
    const badSecret = base58Encode(randomBytes(20));
    const lines = [
      'accounts:',
      '  - name: a',
      '    secretKey: ${KEY}',
      '    extra: 1',
      '  - name: b',
      '    secretKey: ${BAD}',
      'strategies:',
      '  - module: market-maker',
      '    account: ${KEY}',
    ];
    const e = await errorsOf(() => parse(lines, { KEY: SECRET, BAD: badSecret }));
    expect(where(e)).toEqual(['accounts[0].extra@4', 'accounts[1].secretKey@6', 'strategies[0].account@9']);
    expect(e.problems[1]!.message).toMatch(/expected the base58 text of a 32-byte seed or a 64-byte keypair \(value not shown\)$/);
    for (const secret of [SECRET, badSecret, SECRET.slice(0, 12), badSecret.slice(0, 12)]) expect(e.message).not.toContain(secret);
    expect(parse(['accounts:', '  - name: a', '    secretKey: ${KEY}', 'strategies: [{module: market-maker}]'], { KEY: SECRET }).accounts[0]!.secretKey).toBe(
      SECRET,
    );
  });
});

describe('daemon config: paths and environment', () => {
  it('resolves relative paths against the config file directory; built-in names and absolute paths stay', () => {
    const sub = join(DIR, 'conf');
    mkdirSync(sub, { recursive: true });
    const path = file(
      [
        'accounts:',
        '  - {name: main, keyFile: ../keys/main.key}',
        '  - {name: abs, keyFile: /etc/perpbot/abs.key}',
        'strategies:',
        '  - {module: market-maker}',
        '  - {module: ./mine.ts, name: a}',
        '  - {module: ../lib/theirs.js, name: b}',
        'journal: {path: journal.sqlite}',
        'backtest: {latency: {entry: {model: journal, path: live.sqlite}, response: {model: journal, path: /data/live.sqlite, share: 0.4}}}',
      ],
      'conf/paths.yaml',
    );
    const c = loadDaemonConfig(path, {});
    expect(c.accounts.map((a) => a.keyFile)).toEqual([join(DIR, 'keys/main.key'), '/etc/perpbot/abs.key']);
    expect(c.strategies.map((s) => s.module)).toEqual(['market-maker', join(sub, 'mine.ts'), join(DIR, 'lib/theirs.js')]);
    expect(c.journal.path).toBe(join(sub, 'journal.sqlite'));
    expect(c.backtest.latency.entry).toEqual({ model: 'journal', path: join(sub, 'live.sqlite'), share: 0.5 });
    expect(c.backtest.latency.response).toEqual({ model: 'journal', path: '/data/live.sqlite', share: 0.4 });
  });

  it('interpolates from the given environment: numbers, empty tokens, unset variables with their line', async () => {
    const lines = [...MINIMAL, 'telemetry:', '  port: ${PORT:-9464}', '  token: ${TOKEN:-}', 'journal:', '  path: ${JOURNAL}'];
    const env = { PORT: '0', JOURNAL: '/var/lib/perpbot/j.sqlite' };
    expect(parse(lines, env).telemetry).toEqual({
      host: '127.0.0.1',
      port: 0,
      token: undefined,
      statusIntervalMs: 10_000,
      deniedNotReadyMs: 30_000,
      denialLogIntervalMs: 30_000,
    });
    expect(parse(lines, { ...env, TOKEN: 's3cret-token' }).telemetry.token).toBe('s3cret-token');
    expect(parse(lines, env).journal.path).toBe('/var/lib/perpbot/j.sqlite');
    expect(where(await errorsOf(() => parse(lines, {})))).toEqual(['journal.path@10']);
  });
});

describe('checkDaemonConfig', () => {
  it('loads the strategies and reports their problems with the lines of their keys', async () => {
    const path = file([
      'accounts: [{name: main, keyFile: k.key, createKey: true}]', //  1
      'strategies:', //                                2
      '  - name: one', //                              3
      '    module: market-maker', //                   4
      '    params:', //                                5
      '      symbol: BTC-USD', //                      6
      '      size: 0', //                              7
      '      maxPosition: 1', //                       8
      '  - module: ./missing-strategy.ts', //          9
    ]);
    const e = await errorsOf(() => checkDaemonConfig(path, {}));
    expect(where(e)).toEqual(['strategies[0].params.size@7', 'strategies[1].module@9']);
    expect(e.problems[0]!.message).toBe('strategies[0].params.size (line 7): must be > 0, got 0');
    expect(e.problems[1]!.message).toMatch(/^strategies\[1\]\.module \(line 9\): no strategy module/);
  });

  it('accepts config/default.yaml (no environment needed) with the documented market maker', async () => {
    const { config, strategies } = await checkDaemonConfig(join(ROOT, 'config/default.yaml'), {});
    expect(config.venue.mode).toBe('local');
    expect(config.venue.local).toMatchObject({ port: 0, seed: 1, flow: true });
    expect(config.accounts).toMatchObject([{ name: 'main', keyFile: join(ROOT, 'data/main.key'), createKey: true, faucetUsd: 100_000 }]);
    expect(config.journal.path).toBe(join(ROOT, 'data/perpbot.sqlite'));
    expect(config.telemetry.port).toBe(9464);
    expect(config.telemetry.token).toBeUndefined();
    expect(strategies.map((s) => [s.name, s.symbols])).toEqual([['mm', ['BTC-USD']]]);
    expect(strategies[0]!.params).toMatchObject({ symbol: 'BTC-USD', levels: 2 });
  });

  it('the problem shown in the header of config/default.yaml is what a bad faucetUsd gives', () => {
    const text = readFileSync(join(ROOT, 'config/default.yaml'), 'utf8');
    const example = /^#\s+(accounts\[0\]\.faucetUsd \(line \d+\): .*)$/m.exec(text)![1]!;
    const e = (() => {
      try {
        parseDaemonConfig(text.replace(/faucetUsd: 100000/, 'faucetUsd: -1'), 'default.yaml', { baseDir: DIR, env: {} });
      } catch (x) {
        return x as ConfigErrors;
      }
      throw new Error('expected ConfigErrors');
    })();
    expect(e.problems.map((p) => p.message)).toEqual([example]);
  });

  it('accepts config/examples/remote.yaml once PERPBOT_SECRET_KEY is set, and names its line when not', async () => {
    const path = join(ROOT, 'config/examples/remote.yaml');
    const { config, strategies } = await checkDaemonConfig(path, {
      PERPBOT_SECRET_KEY: SECRET,
      PERPBOT_URL: 'https://venue.example/api/v1',
      PERPBOT_WS_URL: 'wss://venue.example/ws',
    });
    expect(config.venue).toMatchObject({
      mode: 'remote',
      url: 'https://venue.example/api/v1',
      wsUrl: 'wss://venue.example/ws',
      dialect: 'v1',
      network: 'testnet',
    });
    expect(config.accounts.map((a) => [a.name, a.agentOf])).toEqual([
      ['main', undefined],
      ['agent', 'main'],
    ]);
    expect(config.strategies.map((s) => s.account)).toEqual(['agent']);
    expect(strategies).toHaveLength(1);
    const e = await errorsOf(() => checkDaemonConfig(path, {}));
    expect(e.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^accounts\[0\]\.secretKey \(line \d+\): environment variable PERPBOT_SECRET_KEY is not set$/),
    ]);
  });
});
