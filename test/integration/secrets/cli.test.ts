// Secrets suite, the command line (issue 20): every command that takes a key (keygen, sign, faucet, agent, order,
// check-config, run), with the key in a file or in $PERPBOT_SECRET_KEY in each accepted form, succeeding and failing
// (venue refusals, a bad value next to the key, a malformed or mismatched key, the key where a path or a config goes):
// stdout and stderr never hold any encoding of the secret. keygen prints the public key only and writes the file.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../../bench/support/daemon-process.js';
import { base58Encode } from '../../../src/protocol/base58.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { reportSuite, Tally } from '../auth/report.js';
import { describeFindings, secretScanner, type SecretScanner } from './scanner.js';

const CLI = join(ROOT, 'dist/src/cli.js');
const dir = mkdtempSync(join(tmpdir(), 'perpbot-secrets-cli-'));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (asynchronously: the venue it talks to runs in this process). */
function perpbot(args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<Run> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: dir, env: { ...process.env, PERPBOT_HOME: dir, PERPBOT_SECRET_KEY: '', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  child.stdin.end(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}

/**
 * A key from a known seed, its scanner, and its secret in each accepted text form. Both base58 forms start with a
 * letter: a JSON parser then quotes the text in its error (one starting with a digit is read as a number first).
 */
function knownKey() {
  for (;;) {
    const seed = new Uint8Array(randomBytes(32));
    const key = Keypair.fromBytes(seed);
    const [seed58, keypair58] = [base58Encode(seed), base58Encode(Uint8Array.of(...seed, ...key.publicKeyBytes))];
    if (/^[A-Za-z]/.test(seed58) && /^[A-Za-z]/.test(keypair58)) return { seed, key, scanner: secretScanner(seed, key.publicKeyBytes), seed58, keypair58 };
  }
}

const tally = new Tally(['commands', 'bytes', 'findings']);

function expectNoSecret(r: Run, scanners: SecretScanner[], label: string): void {
  const contents = new Map<string, string>([
    ['stdout', r.stdout],
    ['stderr', r.stderr],
  ]);
  const findings = scanners.flatMap((s) => [...contents].flatMap(([name, text]) => s.scan(name, text)));
  const test = expect.getState().currentTestName!.split(' > ').at(-1)!.split(':')[0]!;
  tally.add(test, 'commands');
  tally.add(test, 'bytes', Buffer.byteLength(r.stdout) + Buffer.byteLength(r.stderr));
  tally.add(test, 'findings', findings.length);
  expect(findings, `${label}\n${describeFindings(findings, contents)}`).toEqual([]);
}

const main = knownKey();
const keyFile = join(dir, 'main.json');
const base58File = join(dir, 'main.b58');
writeFileSync(keyFile, main.key.keyFileText(), { mode: 0o600 });
writeFileSync(base58File, `${main.keypair58}\n`, { mode: 0o600 });

let venue: Venue;
beforeAll(async () => {
  venue = await startVenue({ flow: false, seed: 24 });
});
afterAll(async () => {
  reportSuite('secrets', 'cli', tally.table('case'));
  await venue.close();
});
const at = () => ['--url', venue.url, '--ws-url', venue.wsUrl];

describe('secrets: the command line never shows a secret key', () => {
  it('keygen prints only the public key; the file it writes holds the secret (and the scanner finds it there)', async () => {
    const out = join(dir, 'generated.json');
    const r = await perpbot(['keygen', '--out', out]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const values = JSON.parse(readFileSync(out, 'utf8')) as number[];
    const generated = Keypair.fromFile(out);
    expect(r.stdout).toBe(`${generated.publicKey}\n`);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const scanner = secretScanner(Uint8Array.from(values.slice(0, 32)), generated.publicKeyBytes);
    expect(scanner.scan('key file', readFileSync(out)).length).toBeGreaterThan(0);
    expectNoSecret(r, [scanner], 'keygen --out');
    const again = await perpbot(['keygen', '--out', out]);
    expect(again.status).toBe(2);
    expectNoSecret(again, [scanner], 'keygen over an existing file');
    const dry = await perpbot(['keygen']);
    expect(dry.stdout).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}\n$/);
  }, 120_000);

  it('sign with a key file (JSON array and base58), both dialects, every wallet mode', async () => {
    const order = '{"type":"order","orders":[{"order":{"c":"BTC-USD","b":true,"px":50000,"sz":0.001,"r":false,"t":{"limit":{"tif":"GTC"}}}}]}';
    for (const file of [keyFile, base58File]) {
      const v1 = await perpbot(['sign', '--dialect', 'v1', '--actions', '-', '--key', file], {}, order);
      expect(v1.status, v1.stderr).toBe(0);
      expectNoSecret(v1, [main.scanner], `sign v1 ${file}`);
      for (const mode of ['raw', 'base58', 'offchain']) {
        const current = await perpbot(['sign', '--dialect', 'current', '--mode', mode, '--actions', '-', '--key', file], {}, '[{"cxa":{"c":[]}}]');
        expect(current.status, current.stderr).toBe(0);
        expectNoSecret(current, [main.scanner], `sign current ${mode}`);
      }
    }
  }, 120_000);

  it('faucet, agent, leverage and order with the key in $PERPBOT_SECRET_KEY (seed and keypair forms) and in a file; refusals too', async () => {
    const agent = Keypair.generate().publicKey;
    const stranger = Keypair.generate().publicKey;
    const runs: [string, string[], NodeJS.ProcessEnv, number][] = [
      ['faucet, env seed', ['faucet', '--amount', '1000', ...at()], { PERPBOT_SECRET_KEY: main.seed58 }, 0],
      ['faucet, env keypair, --json', ['faucet', '--amount', '1000', '--json', ...at()], { PERPBOT_SECRET_KEY: main.keypair58 }, 0],
      ['agent add, key file', ['agent', 'add', agent, '--key', keyFile, ...at()], {}, 0],
      ['leverage, base58 key file', ['leverage', 'BTC-USD', '3', '--key', base58File, ...at()], {}, 0],
      ['order place, env', ['order', 'place', 'BTC-USD', 'buy', '0.001', '--price', '40000', ...at()], { PERPBOT_SECRET_KEY: main.keypair58 }, 0],
      [
        'order for an account it may not act for (refused)',
        ['order', 'place', 'BTC-USD', 'buy', '0.001', '--price', '40000', '--account', stranger, '--key', keyFile, ...at()],
        {},
        1,
      ],
      ['agent removal of a key that is not an agent (refused)', ['agent', 'remove', stranger, '--key', keyFile, '--json', ...at()], {}, 1],
      ['leverage of an unknown market (refused)', ['leverage', 'DOGE-USD', '3', ...at()], { PERPBOT_SECRET_KEY: main.seed58 }, 1],
      ['a venue that is not there', ['faucet', '--url', 'http://127.0.0.1:9/api/v1'], { PERPBOT_SECRET_KEY: main.seed58 }, 1],
    ];
    for (const [label, args, env, status] of runs) {
      const r = await perpbot(args, env);
      expect(r.status, `${label}: ${r.stdout}${r.stderr}`).toBe(status);
      expectNoSecret(r, [main.scanner], label);
    }
    expect(venue.engine.agents(main.key.publicKey)).toEqual([agent]);
  }, 120_000);

  it('a malformed or mismatched key, in a file or in the environment, is refused without echoing it', async () => {
    const other = knownKey();
    const mismatched = base58Encode(Uint8Array.of(...main.seed, ...other.key.publicKeyBytes));
    const truncated = main.keypair58.slice(0, -3);
    const badChar = `${main.seed58.slice(0, -1)}0`;
    const files: [string, string][] = [
      ['63 values', JSON.stringify([...main.seed, ...main.key.publicKeyBytes.slice(1)])],
      ['a value of 256', JSON.stringify([...main.seed.slice(1), 256, ...main.key.publicKeyBytes])],
      ['mismatched halves', JSON.stringify([...main.seed, ...other.key.publicKeyBytes])],
      ['not JSON', `[${[...main.seed].join(',')}`],
      ['base58 with a bad character', badChar],
      ['group-readable', main.key.keyFileText()],
    ];
    for (const [label, text] of files) {
      const path = join(dir, `bad-${label.replace(/\W+/g, '-')}.json`);
      writeFileSync(path, text, { mode: label === 'group-readable' ? 0o644 : 0o600 });
      const r = await perpbot(['faucet', '--key', path, ...at()]);
      if (label !== 'group-readable') expect(r.status, r.stderr).not.toBe(0);
      expectNoSecret(r, [main.scanner, other.scanner], `key file: ${label}`);
    }
    for (const [label, value] of [
      ['mismatched keypair', mismatched],
      ['truncated', truncated],
      ['bad character', badChar],
      ['seed and keypair joined', `${main.seed58}${main.keypair58}`],
      ['with spaces inside', `${main.seed58.slice(0, 20)} ${main.seed58.slice(20)}`],
    ]) {
      const r = await perpbot(['faucet', ...at()], { PERPBOT_SECRET_KEY: value });
      expect(r.status, `${label}: ${r.stdout}`).not.toBe(0);
      expectNoSecret(r, [main.scanner, other.scanner], `env: ${label}`);
    }
  }, 120_000);
});

describe('secrets: configs holding a key never show it, whatever is wrong with them', () => {
  const config = (name: string, lines: string[]) => {
    const path = join(dir, `${name}.yaml`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  };
  const strategy = ['strategies:', '  - module: market-maker', '    params: {symbol: BTC-USD, size: 0.001, maxPosition: 0.01}'];
  const local = ['venue: {mode: local, local: {flow: false}}', `journal: {path: ${join(dir, 'journal.sqlite')}}`, 'telemetry: {port: 0, statusIntervalMs: 0}'];

  it('check-config and run: a good config, and a bad value next to the key (env or literal), in several places', async () => {
    const env = { PERPBOT_SECRET_KEY: main.keypair58 };
    const good = config('good', ['accounts:', '  - name: main', '    secretKey: ${PERPBOT_SECRET_KEY}', ...strategy, ...local]);
    const ok = await perpbot(['check-config', good], env);
    expect(ok.status, ok.stderr).toBe(0);
    expectNoSecret(ok, [main.scanner], 'check-config good');
    const cases: [string, string[]][] = [
      ['negative faucet next to the key', ['accounts:', '  - name: main', '    secretKey: ${PERPBOT_SECRET_KEY}', '    faucetUsd: -1', ...strategy, ...local]],
      ['unknown key next to the key', ['accounts:', '  - name: main', '    secretKey: ${PERPBOT_SECRET_KEY}', '    colour: red', ...strategy, ...local]],
      ['keyFile and secretKey both', ['accounts:', '  - name: main', '    secretKey: ${PERPBOT_SECRET_KEY}', `    keyFile: ${keyFile}`, ...strategy, ...local]],
      [
        'literal secret, bad sibling',
        ['accounts:', '  - name: main', `    secretKey: ${main.keypair58}`, '    leverage: {BTC-USD: lots}', ...strategy, ...local],
      ],
      [
        'literal secret, YAML syntax error after it',
        ['accounts:', '  - name: main', `    secretKey: ${main.keypair58}`, '   faucetUsd: [1', ...strategy, ...local],
      ],
      ['literal secret in flow style, YAML error', ['accounts:', `  - {name: main, secretKey: ${main.keypair58}, faucetUsd: 1`, ...strategy, ...local]],
      ['literal seed that does not decode', ['accounts:', '  - name: main', `    secretKey: ${main.seed58.slice(0, -1)}0`, ...strategy, ...local]],
      [
        'literal secret quoted, duplicated key',
        ['accounts:', '  - name: main', `    secretKey: "${main.keypair58}"`, `    secretKey: "${main.seed58}"`, ...strategy, ...local],
      ],
    ];
    for (const [label, lines] of cases) {
      const path = config(label.replace(/\W+/g, '-'), lines);
      for (const command of [
        ['check-config', path],
        ['run', '--config', path],
      ]) {
        const r = await perpbot(command, env);
        expect(r.status, `${label} ${command[0]}: ${r.stdout}${r.stderr}`).toBe(1);
        expectNoSecret(r, [main.scanner], `${label} (${command[0]})`);
      }
    }
  }, 120_000);

  const misplaced: [string, string[]][] = [
    ['keyFile', ['accounts:', '  - name: main', '    keyFile: ${PERPBOT_SECRET_KEY}', ...strategy, ...local]],
    ['keyFile with createKey', ['accounts:', '  - name: main', '    keyFile: ${PERPBOT_SECRET_KEY}', '    createKey: true', ...strategy, ...local]],
    ['an account name', ['accounts:', '  - name: ${PERPBOT_SECRET_KEY}', `    keyFile: ${keyFile}`, ...strategy, ...local]],
    ['agentOf', ['accounts:', '  - name: main', `    keyFile: ${keyFile}`, '    agentOf: ${PERPBOT_SECRET_KEY}', ...strategy, ...local]],
    [
      'a strategy symbol',
      [
        'accounts:',
        '  - name: main',
        `    keyFile: ${keyFile}`,
        'strategies:',
        '  - module: market-maker',
        '    params: {symbol: "${PERPBOT_SECRET_KEY}", size: 0.001, maxPosition: 0.01}',
        ...local,
      ],
    ],
  ];
  it.each(misplaced)(
    'the secret given as %s: check-config and run refuse it without showing it',
    async (label, lines) => {
      const path = config(`misplaced-${label.replace(/\W+/g, '-')}`, lines);
      for (const command of [
        ['check-config', path],
        ['run', '--config', path],
      ]) {
        const r = await perpbot(command, { PERPBOT_SECRET_KEY: main.keypair58 });
        expect(r.status, `${label}: ${r.stdout}${r.stderr}`).toBe(1);
        expectNoSecret(r, [main.scanner], `secret as ${label} (${command[0]})`);
      }
    },
    60_000,
  );

  it.each([
    ['check-config KEYFILE', (file: string) => ['check-config', file]],
    ['run --config KEYFILE', (file: string) => ['run', '--config', file]],
    ['sign --actions KEYFILE', (file: string) => ['sign', '--dialect', 'v1', '--actions', file, '--account', main.key.publicKey]],
  ] as [string, (file: string) => string[]][])(
    'the key file given where another file goes: %s fails without showing it',
    async (label, args) => {
      for (const file of [keyFile, base58File]) {
        const r = await perpbot(args(file));
        expect(r.status, `${label} ${file}: ${r.stdout}${r.stderr}`).not.toBe(0);
        expectNoSecret(r, [main.scanner], `${label} (${file})`);
      }
    },
    60_000,
  );
});
