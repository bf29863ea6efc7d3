import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { account } from '../../src/app/commands/account.js';
import { order } from '../../src/app/commands/order.js';
import { Keypair } from '../../src/protocol/keys.js';
import { startVenue, type Venue } from '../../src/venue-sim/server/index.js';
import { perpbotSync, ROOT } from '../support/cli.js';

const KEY = Keypair.generate();
const home = mkdtempSync(join(tmpdir(), 'perpbot-cli-status-'));
const keyFile = join(home, 'key.json');
writeFileSync(keyFile, KEY.keyFileText(), { mode: 0o600 });

let venue: Venue;
let lines: string[];
const out = (line: string) => lines.push(line);
const signed = () => ['--url', venue.url, '--ws-url', venue.wsUrl, '--key', keyFile];

const perpbot = (args: string[]) => perpbotSync(args, { env: { PERPBOT_HOME: home } });

beforeAll(async () => {
  process.env.PERPBOT_HOME = home;
  venue = await startVenue({ port: 0, seed: 11, flow: false });
  venue.engine.faucet(KEY.publicKey, 100_000);
});

afterAll(async () => {
  delete process.env.PERPBOT_HOME;
  await venue.close();
});

beforeEach(() => {
  lines = [];
});

describe('perpbot command line: exit status follows the per-item statuses', () => {
  it('an order the venue rejects exits 1 and prints the status and the reason', async () => {
    // 0.00001 BTC is below the lot (0.0001): the venue answers rejectedInvalid with a reason.
    expect(await order(['place', 'BTC-USD', 'buy', '0.00001', '--price', '50000', ...signed()], out)).toBe(1);
    const text = lines.join('\n');
    expect(text).toMatch(/rejectedInvalid/);
    expect(text).not.toMatch(/^accepted/m);
    expect(text).toMatch(/refused/);
  });

  it('a cancel the venue answers with error exits 1 and prints the error', async () => {
    expect(await order(['cancel', 'BTC-USD', KEY.publicKey, ...signed()], out)).toBe(1);
    expect(lines.join('\n')).toMatch(/error/);
  });

  it('an order that rests exits 0', async () => {
    expect(await order(['place', 'BTC-USD', 'buy', '0.001', '--price', '50000', ...signed()], out)).toBe(0);
    expect(lines[0]).toMatch(/^accepted/);
  });

  it('account positions says it lists closed positions; open-positions lists the open ones', async () => {
    expect(await account(['positions', '--user', KEY.publicKey, '--url', venue.url], out)).toBe(0);
    expect(lines[0]).toMatch(/closed positions/);
    lines = [];
    expect(await account(['open-positions', '--user', KEY.publicKey, '--url', venue.url], out)).toBe(0);
    expect(lines[0]).toMatch(/open positions/);
  });

  it("--version prints the package version; help COMMAND prints that command's help; a venue that is not there exits 1 in one line", () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const v = perpbot(['--version']);
    expect(v.status).toBe(0);
    expect(v.stdout.trim()).toBe(`perpbot ${version}`);
    const h = perpbot(['help', 'order']);
    expect(h.status).toBe(0);
    expect(h.stdout).toMatch(/^perpbot order place SYMBOL/);
    expect(perpbot(['help', 'frobnicate']).status).toBe(2);
    const down = perpbot(['account', 'fills', '--user', KEY.publicKey, '--url', 'http://127.0.0.1:1/api/v1']);
    expect(down.status).toBe(1);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toMatch(/^TRANSPORT: POST \/account failed after \d+ attempts: /);
  });
});
