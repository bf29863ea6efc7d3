// Secrets suite, the daemon (issue 20): `perpbot run` spawned on config/default.yaml (local venue) with its key in a key
// file, and with an inline secretKey from an environment variable (plus an agent key file it creates), taken through
// start, trading, /status /metrics /readyz /livez reads, refused control calls, the kill switch (POST /kill, SIGUSR2),
// venue refusals (its orders cancelled under it; its agent revoked), and a graceful stop. Then stdout, stderr, every file
// it wrote (journal, WAL, lock) and every HTTP answer are scanned for every encoding of every secret key involved.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { ROOT, sample, startDaemonProcess, waitForStatus, type DaemonProcess } from '../../../bench/support/daemon-process.js';
import { base58Encode } from '../../../src/protocol/base58.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { ACTION_PATHS, type Action } from '../../../src/protocol/v1/actions.js';
import { http } from '../venue/harness.js';
import { bodyOf, signed } from '../auth/support.js';
import { reportSuite, Tally } from '../auth/report.js';
import { describeFindings, secretScanner, type Finding, type SecretScanner } from './scanner.js';

const TOKEN = 'secrets-suite-token';
const running: DaemonProcess[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.kill();
});
const tally = new Tally(['artifacts', 'bytes', 'secrets', 'encodings', 'findings']);
afterAll(() => reportSuite('secrets', 'daemon', tally.table('run')));

/** Everything the run showed the outside world, by name. */
class Artifacts {
  readonly contents = new Map<string, string | Uint8Array>();
  private n = 0;

  add(name: string, content: string | Uint8Array): void {
    this.contents.set(`${++this.n} ${name}`, content);
  }

  /** GETs or POSTs `path` on the daemon's control server and keeps the answer (status line, headers, body). */
  async http(base: string, path: string, init?: RequestInit): Promise<Response> {
    const r = await fetch(`${base}${path}`, init);
    const body = await r.clone().text();
    this.add(`${init?.method ?? 'GET'} ${path}`, `${r.status} ${[...r.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${body}`);
    return r;
  }

  /** Every file under `dir` except `skip` (key files, which hold the secret by design). */
  files(dir: string, skip: readonly string[]): void {
    for (const name of readdirSync(dir, { recursive: true }) as string[]) {
      const path = join(dir, name);
      if (skip.includes(path) || !statSync(path).isFile()) continue;
      this.add(`file ${name}`, new Uint8Array(readFileSync(path)));
    }
  }

  scan(scanners: readonly SecretScanner[]): Finding[] {
    return [...this.contents].flatMap(([name, content]) => scanners.flatMap((s) => s.scan(name, content)));
  }
}

/** A key made from a known seed, with its scanner. */
function knownKey(): { seed: Uint8Array; key: Keypair; scanner: SecretScanner } {
  const seed = new Uint8Array(randomBytes(32));
  const key = Keypair.fromBytes(seed);
  return { seed, key, scanner: secretScanner(seed, key.publicKeyBytes) };
}

/** config/default.yaml with `edit` applied, written into `dir`. */
function defaultConfig(dir: string, edit: (doc: ReturnType<typeof parseDocument>) => void): string {
  const doc = parseDocument(readFileSync(join(ROOT, 'config/default.yaml'), 'utf8'));
  doc.setIn(['telemetry', 'statusIntervalMs'], 1000);
  doc.setIn(['log', 'level'], 'debug');
  edit(doc);
  const path = join(dir, 'perpbot.yaml');
  writeFileSync(path, doc.toString());
  return path;
}

function launch(config: string, dataDir: string, env: NodeJS.ProcessEnv = {}): DaemonProcess {
  const d = startDaemonProcess(['--config', config], { PERPBOT_METRICS_PORT: '0', PERPBOT_DATA_DIR: dataDir, PERPBOT_CONTROL_TOKEN: TOKEN, ...env });
  running.push(d);
  return d;
}

interface Running {
  base: string;
  venueUrl: string;
}

async function started(d: DaemonProcess, artifacts: Artifacts): Promise<Running> {
  const [, base] = await d.line(/metrics\s+(http:\/\/127\.0\.0\.1:\d+)\/metrics/);
  const [, venueUrl] = await d.line(/venue\s+local venue (http:\/\/127\.0\.0\.1:\d+\/api\/v1)/);
  await waitForStatus(`${base}/readyz`, 200);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const text = await (await artifacts.http(base!, '/metrics')).text();
    if ((sample(text, 'perpbot_open_orders') ?? 0) > 0) break;
    if (Date.now() > deadline) throw new Error(`no open orders within 30 s:\n${d.stdout.join('\n')}\n${d.stderr.join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { base: base!, venueUrl: venueUrl! };
}

/** Every control-server read and the refused and accepted control calls. */
async function exercise(artifacts: Artifacts, base: string): Promise<void> {
  for (const path of ['/metrics', '/status', '/readyz', '/livez', '/nope', '/status?verbose=1']) await artifacts.http(base, path);
  await artifacts.http(base, '/kill', { method: 'POST' });
  await artifacts.http(base, '/kill', { method: 'POST', headers: { authorization: 'Bearer wrong' } });
  await artifacts.http(base, '/kill', {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: '{"reason":',
  });
  await artifacts.http(base, '/metrics', { method: 'POST' });
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  expect((await artifacts.http(base, '/kill', { method: 'POST', headers: auth, body: JSON.stringify({ reason: 'secrets suite' }) })).status).toBe(200);
  await waitForStatus(`${base}/readyz`, 503);
  for (const path of ['/readyz', '/status', '/metrics']) await artifacts.http(base, path);
  expect((await artifacts.http(base, '/resume', { method: 'POST', headers: auth })).status).toBe(200);
  await waitForStatus(`${base}/readyz`, 200);
}

/** Signs `action` with `key` for `account` and posts it to the daemon's embedded venue; returns the answer's body. */
async function venueAction(venueUrl: string, key: Keypair, action: Action, account = key.publicKey): Promise<unknown> {
  const r = signed(key, action, BigInt(Date.now()) * 1_000_000n + 999_999n, account);
  const reply = await http(`${venueUrl}${ACTION_PATHS[action.type]}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodyOf(r) });
  return reply.body;
}

/** Waits until a line of stdout or stderr matches `re`. */
async function untilOutput(d: DaemonProcess, re: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (![...d.stdout, ...d.stderr].some((l) => re.test(l))) {
    if (Date.now() > deadline) throw new Error(`no output line ${re} within ${timeoutMs} ms:\n${d.stderr.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stopped(d: DaemonProcess, artifacts: Artifacts): Promise<void> {
  d.child.kill('SIGTERM');
  expect(await d.exited, d.stderr.join('\n')).toBe(0);
  artifacts.add('stdout', d.stdout.join('\n'));
  artifacts.add('stderr', d.stderr.join('\n'));
}

function expectClean(artifacts: Artifacts, scanners: readonly SecretScanner[]): void {
  const findings = artifacts.scan(scanners);
  const run = expect.getState().currentTestName!.split(' > ').at(-1)!.split(':')[0]!;
  tally.add(run, 'artifacts', artifacts.contents.size);
  tally.add(
    run,
    'bytes',
    [...artifacts.contents.values()].reduce((n, c) => n + (typeof c === 'string' ? Buffer.byteLength(c) : c.byteLength), 0),
  );
  tally.add(run, 'secrets', scanners.length);
  tally.add(
    run,
    'encodings',
    scanners.reduce((n, s) => n + s.encodings.length + s.raw.length, 0),
  );
  tally.add(run, 'findings', findings.length);
  expect(findings, describeFindings(findings, artifacts.contents)).toEqual([]);
  // The scan is not vacuous: the same artifacts with one secret planted are caught, in each scanner's every encoding.
  const stdout = [...artifacts.contents].find(([name]) => name.endsWith(' stdout'))![1] as string;
  for (const s of scanners) {
    for (const e of s.encodings) expect(s.scan('planted', `${stdout}\n${e.text}\n`).length, e.name).toBeGreaterThan(0);
  }
}

describe('secrets: perpbot run never shows a secret key', () => {
  it('with its key in a key file: start, trade, reads, control calls, kill switch, orders cancelled under it, stop', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perpbot-secrets-file-'));
    const main = knownKey();
    const keyFile = join(dataDir, 'main.key');
    writeFileSync(keyFile, main.key.keyFileText(), { mode: 0o600 });
    const config = defaultConfig(dataDir, () => undefined);
    const artifacts = new Artifacts();
    const d = launch(config, dataDir);
    const { base, venueUrl } = await started(d, artifacts);
    expect(d.stdout.join('\n')).toContain(main.key.publicKey);
    await exercise(artifacts, base);
    // Someone else (with the key) cancels the bot's orders: its own cancels of them are then refused by the venue.
    for (let i = 0; i < 3; i++) {
      await venueAction(venueUrl, main.key, { type: 'order', orders: [{ cancelAll: { c: [] } }] });
      await new Promise((r) => setTimeout(r, 300));
    }
    d.child.kill('SIGUSR2');
    await waitForStatus(`${base}/readyz`, 503);
    await artifacts.http(base, '/status');
    expect((await artifacts.http(base, '/resume', { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    await artifacts.http(base, '/metrics');
    await stopped(d, artifacts);
    artifacts.files(dataDir, [keyFile]);
    expect([...artifacts.contents.keys()].some((n) => n.endsWith('perpbot.sqlite'))).toBe(true);
    // The key file itself holds the secret: the scanner sees it there.
    expect(main.scanner.scan('key file', readFileSync(keyFile)).length).toBeGreaterThan(0);
    expectClean(artifacts, [main.scanner]);
  }, 120_000);

  it('with an inline secretKey from an environment variable and an agent key file it creates: the agent revoked under it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'perpbot-secrets-env-'));
    const main = knownKey();
    const secret = base58Encode(Uint8Array.of(...main.seed, ...main.key.publicKeyBytes));
    const botFile = join(dataDir, 'bot.key');
    const config = defaultConfig(dataDir, (doc) => {
      doc.set('accounts', [
        { name: 'main', secretKey: '${PERPBOT_SECRET_KEY}', faucetUsd: 100000 },
        { name: 'bot', keyFile: '${PERPBOT_DATA_DIR}/bot.key', createKey: true, agentOf: 'main' },
      ]);
      doc.setIn(['strategies', 0, 'account'], 'bot');
    });
    const artifacts = new Artifacts();
    const d = launch(config, dataDir, { PERPBOT_SECRET_KEY: secret });
    const { base, venueUrl } = await started(d, artifacts);
    const bot = Keypair.fromFile(botFile);
    const botSeed = new Uint8Array((JSON.parse(readFileSync(botFile, 'utf8')) as number[]).slice(0, 32));
    const botScanner = secretScanner(botSeed, bot.publicKeyBytes);
    await exercise(artifacts, base);
    // The owner revokes the agent: the venue refuses the daemon's orders and cancels (unauthorized signer) until
    // risk halts trading on repeated rejections; the agent is then authorized again and trading resumed.
    expect(await venueAction(venueUrl, main.key, { type: 'agentWalletCreation', agent: bot.publicKey, delete: true })).toMatchObject({ status: 'ok' });
    await untilOutput(d, /venue rejections/, 30_000);
    for (const path of ['/status', '/metrics', '/readyz']) await artifacts.http(base, path);
    expect(await venueAction(venueUrl, main.key, { type: 'agentWalletCreation', agent: bot.publicKey, delete: false })).toMatchObject({ status: 'ok' });
    expect((await artifacts.http(base, '/resume', { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    await waitForStatus(`${base}/readyz`, 200);
    await stopped(d, artifacts);
    artifacts.files(dataDir, [botFile]);
    expectClean(artifacts, [main.scanner, botScanner]);
  }, 120_000);
});
