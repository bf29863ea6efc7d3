import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromHex } from '../../src/protocol/bytes.js';
import { SignatureVerifier } from '../../src/protocol/verify.js';
import { perpbotSync, ROOT } from '../support/cli.js';

const VECTORS = resolve(ROOT, 'test/fixtures/vectors/bulk-keychain/wallet-mode-vectors.json');

const perpbot = (args: string[], input?: string) => perpbotSync(args, { input });

const dir = mkdtempSync(join(tmpdir(), 'perpbot-cli-'));
const seedFile = join(dir, 'seed9.json');
writeFileSync(seedFile, JSON.stringify(new Array(32).fill(9)), { mode: 0o600 });

describe('perpbot CLI', () => {
  it('--help lists the commands; an unknown command exits 2', () => {
    const help = perpbot(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/keygen/);
    expect(help.stdout).toMatch(/sign/);
    const bad = perpbot(['frobnicate']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown command "frobnicate"/);
  });

  it('keygen writes a 0600 key file, prints only the public key, and refuses to overwrite', () => {
    const out = join(dir, 'new-key.json');
    const r = perpbot(['keygen', '--out', out]);
    expect(r.status).toBe(0);
    const pub = r.stdout.trim();
    expect(pub).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const bytes = JSON.parse(readFileSync(out, 'utf8')) as number[];
    expect(bytes).toHaveLength(64);
    expect(r.stdout).not.toContain(String(bytes.slice(0, 8)));
    const again = perpbot(['keygen', '--out', out]);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
  });

  it('reproduces every published wallet-mode vector signature (Raw, Base58, Offchain) end to end', () => {
    const { vectors } = JSON.parse(readFileSync(VECTORS, 'utf8')) as { vectors: any[] };
    for (const v of vectors) {
      const r = perpbot(
        [
          'sign',
          '--dialect',
          'current',
          '--actions',
          '-',
          '--account',
          v.account,
          '--nonce',
          v.nonce,
          '--network',
          v.domain,
          '--key',
          seedFile,
          '--mode',
          v.mode.toLowerCase(),
        ],
        JSON.stringify(v.actions),
      );
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.signable).toBe(v.raw_hex);
      expect(out.message).toBe(v.message_hex);
      expect(out.signature).toBe(v.signature);
      expect(out.body).toEqual({ actions: v.actions, nonce: v.nonce, account: v.account, signer: v.signer, signature: v.signature });
    }
  });

  it('signs a v1 order whose signature verifies over the printed message, with a bare-integer nonce and predicted order ids', () => {
    const action = {
      type: 'order',
      orders: [{ order: { c: 'BTC-USD', b: true, px: 100.5, sz: 0.25, r: false, t: { limit: { tif: 'GTC' } } } }, { cancelAll: { c: [] } }],
    };
    const nonce = '1763770000000000123';
    const r = perpbot(['sign', '--dialect', 'v1', '--actions', '-', '--nonce', nonce, '--key', seedFile], JSON.stringify(action));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`"nonce":${nonce}`);
    const out = JSON.parse(r.stdout);
    expect(out.message).toBe(out.signable);
    expect(new SignatureVerifier().verify(out.body.signer, fromHex(out.message), out.signature)).toBe(true);
    expect(out.orderIds).toHaveLength(2);
    expect(out.orderIds[0]).toMatch(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/);
    expect(out.orderIds[1]).toBeNull();
  });

  it('bad input: errors name the field on stderr, exit 1, nothing on stdout', () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['current', [{ l: { c: 'BTC-USD', b: true, px: '100', sz: -1, tif: 'GTC', r: false, i: false } }], /actions\[0\]\.l\.sz/],
      ['current', [{ l: { c: 'btc-usd', b: true, px: '100', sz: 1, tif: 'GTC', r: false, i: false } }], /actions\[0\]\.l\.c/],
      [
        'v1',
        { type: 'order', orders: [{ order: { c: 'BTC-USD', b: true, px: 1, sz: 1, r: false, t: { limit: { tif: 'FOK' } } } }] },
        /action\.orders\[0\]\.order\.t\.limit\.tif/,
      ],
    ];
    for (const [dialect, actions, field] of cases) {
      const r = perpbot(['sign', '--dialect', dialect, '--actions', '-', '--nonce', '1', '--key', seedFile], JSON.stringify(actions));
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(field);
    }
    const badAccount = perpbot(['sign', '--dialect', 'current', '--actions', '-', '--nonce', '1', '--account', 'short'], '[{"cxa":{"c":[]}}]');
    expect(badAccount.stderr).toMatch(/account: expected 32 bytes of base58/);
    expect(badAccount.status).toBe(1);
    expect(badAccount.stderr).toMatch(/account: expected 32 bytes of base58/);
    const badNonce = perpbot(['sign', '--dialect', 'current', '--actions', '-', '--nonce=-5', '--key', seedFile], '[{"cxa":{"c":[]}}]');
    expect(badNonce.status).toBe(1);
    expect(badNonce.stderr).toMatch(/nonce/);
    const notJson = perpbot(['sign', '--dialect', 'current', '--actions', '-', '--key', seedFile], '[{');
    expect(notJson.status).toBe(1);
    expect(notJson.stderr).toMatch(/actions: not valid JSON/);
  });

  it('usage errors exit 2 and print the command help', () => {
    for (const args of [['sign'], ['sign', '--dialect', 'v2', '--actions', '-'], ['sign', '--bogus']]) {
      const r = perpbot(args, '[]');
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/perpbot sign --dialect/);
    }
  });

  it('prints an error as CODE: message on one line: a missing config file, a bad argument, a bad key file', () => {
    const missing = perpbot(['check-config', join(dir, 'nope.yaml')]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(`CONFIG: 1 problem in ${join(dir, 'nope.yaml')}:\n  ${join(dir, 'nope.yaml')}: cannot read: ENOENT\n`);
    const badArgument = perpbot(['watch', 'ticker.BTC-USD', '--count', 'x']);
    expect(badArgument.status).toBe(2);
    expect(badArgument.stderr).toMatch(/^USAGE: --count must be a positive number; got "x"\n\nperpbot watch TOPIC/);
    const badKey = perpbot(['sign', '--dialect', 'v1', '--actions', '-', '--key', join(dir, 'no-key.json')], '{}');
    expect(badKey.status).toBe(1);
    expect(badKey.stderr).toBe(`INVALID_INPUT: key file ${join(dir, 'no-key.json')}: cannot read: ENOENT\n`);
    const unknown = perpbot(['frobnicate']);
    expect(unknown.stderr).toMatch(/^USAGE: unknown command "frobnicate"\n/);
  });

  it('a venue URL of the wrong scheme is a usage error naming the option (exit 2)', () => {
    const http = perpbot(['account', 'openOrders', '--user', '11111111111111111111111111111111', '--url', 'ftp://x/api/v1']);
    expect(http.status).toBe(2);
    expect(http.stderr).toMatch(/^USAGE: --url must be an http\(s\) URL; got "ftp:\/\/x\/api\/v1"\n/);
    for (const wsUrl of ['nope', 'ftp://x/ws']) {
      const ws = perpbot(['watch', 'ticker.BTC-USD', '--ws-url', wsUrl, '--timeout', '1']);
      expect(ws.status).toBe(2);
      expect(ws.stderr).toMatch(new RegExp(`^USAGE: --ws-url must be a ws\\(s\\) URL; got "${wsUrl.replace(/[/.]/g, '\\$&')}"\n`));
    }
  });

  it('never prints the secret key', () => {
    const r = perpbot(['sign', '--dialect', 'current', '--actions', '-', '--nonce', '1', '--key', seedFile, '--network', 'devnet'], '[{"cxa":{"c":[]}}]');
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/9,9,9,9/);
  });
});
