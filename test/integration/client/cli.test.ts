import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/app/args.js';
import { account } from '../../../src/app/commands/account.js';
import { agent } from '../../../src/app/commands/agent.js';
import { faucet } from '../../../src/app/commands/faucet.js';
import { leverage } from '../../../src/app/commands/leverage.js';
import { order } from '../../../src/app/commands/order.js';
import { watch } from '../../../src/app/commands/watch.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { key, LoopbackVenue } from '../../support/loopback-venue.js';

const KEY = Keypair.generate();
const home = mkdtempSync(join(tmpdir(), 'perpbot-cli-'));
const keyFile = join(home, 'key.json');
writeFileSync(keyFile, KEY.keyFileText(), { mode: 0o600 });

let venue: LoopbackVenue;
let lines: string[];
const out = (line: string) => lines.push(line);
const common = () => ['--url', venue.httpUrl, '--ws-url', venue.wsUrl];
const signedArgs = () => [...common(), '--key', keyFile];
const lastAction = () => JSON.parse(venue.actionBodies.at(-1)!) as { action: Record<string, unknown>; account: string; signer: string };

beforeAll(async () => {
  process.env.PERPBOT_HOME = home;
  venue = await LoopbackVenue.start({
    onAction: (path) =>
      path === '/order'
        ? { status: 200, body: JSON.stringify({ status: 'ok', response: { type: 'order', data: { statuses: [{ resting: { oid: key(0x44) } }] } } }) }
        : {
            status: 200,
            body: JSON.stringify({ status: 'error', response: { type: 'faucet', data: { statuses: [{ error: { message: 'unauthorized signer' } }] } } }),
          },
  });
});

afterAll(async () => {
  delete process.env.PERPBOT_HOME;
  await venue.close();
});

beforeEach(() => {
  lines = [];
});

describe('perpbot venue commands against a loopback venue', () => {
  it('account prints a table, or JSON with --json', async () => {
    venue.placeOrder(KEY.publicKey, key(0x51), 'BTC-USD', true, 100, 1);
    expect(await account(['openOrders', '--user', KEY.publicKey, ...common()], out)).toBe(0);
    expect(lines[0]).toMatch(/^open orders:\nsymbol\s+orderId\s+price/);
    expect(lines[0]).toContain(key(0x51).slice(0, 8));
    lines = [];
    await account(['fullAccount', '--user', KEY.publicKey, '--json', ...common()], out);
    expect(JSON.parse(lines[0]!)[0].fullAccount.openOrders[0].orderId).toBe(key(0x51));
  });

  it('order place / cancel / cancel-all sign v1 actions with increasing durable nonces', async () => {
    expect(await order(['place', 'BTC-USD', 'buy', '0.5', '--price', '100', '--tif', 'ALO', ...signedArgs()], out)).toBe(0);
    expect(lastAction().action).toMatchObject({
      type: 'order',
      orders: [{ order: { c: 'BTC-USD', b: true, px: 100, sz: 0.5, r: false, t: { limit: { tif: 'ALO' } } } }],
    });
    expect(lines.join('\n')).toMatch(/accepted \(order\)[\s\S]*resting[\s\S]*order ids: /);
    const n1 = BigInt(venue.actionBodies.at(-1)!.match(/"nonce":(\d+)/)![1]!);
    await order(['place', 'BTC-USD', 'sell', '1', ...signedArgs()], out);
    expect(lastAction().action).toMatchObject({ orders: [{ order: { b: false, px: 0, t: { trigger: { is_market: true, triggerPx: 0 } } } }] });
    await order(['cancel', 'BTC-USD', key(0x44), ...signedArgs()], out);
    expect(lastAction().action).toMatchObject({ orders: [{ cancel: { c: 'BTC-USD', oid: key(0x44) } }] });
    await order(['cancel-all', ...signedArgs(), '--json'], out);
    expect(lastAction().action).toMatchObject({ orders: [{ cancelAll: { c: [] } }] });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ outcome: 'accepted' });
    const n4 = BigInt(venue.actionBodies.at(-1)!.match(/"nonce":(\d+)/)![1]!);
    expect(n4).toBeGreaterThan(n1);
    expect(readdirSync(join(home, 'nonces'))).toEqual([`${KEY.publicKey}.nonce`]);
  });

  it('the current dialect posts its own action shapes to /order', async () => {
    await order(['place', 'BTC-USD', 'buy', '1', '--price', '100', '--dialect', 'current', '--network', 'testnet', ...signedArgs()], out);
    expect(JSON.parse(venue.actionBodies.at(-1)!)).toMatchObject({ actions: [{ l: { c: 'BTC-USD', b: true, px: 100, sz: 1, tif: 'GTC' } }] });
  });

  it('order place --trigger: a stop-market (px 0.0), a stop-limit at --limit, a reduce-only take-profit in the current dialect', async () => {
    await order(['place', 'BTC-USD', 'sell', '1', '--trigger', '95', '--reduce-only', ...signedArgs()], out);
    expect(lastAction().action).toMatchObject({
      orders: [{ order: { c: 'BTC-USD', b: false, px: 0, sz: 1, r: true, t: { trigger: { is_market: true, triggerPx: 95 } } } }],
    });
    await order(['place', 'BTC-USD', 'buy', '1', '--trigger', '105', '--limit', '106', ...signedArgs()], out);
    expect(lastAction().action).toMatchObject({ orders: [{ order: { b: true, px: 106, r: false, t: { trigger: { is_market: false, triggerPx: 105 } } } }] });
    const current = ['--dialect', 'current', '--network', 'testnet'];
    await order(['place', 'BTC-USD', 'sell', '1', '--trigger', '105', '--take-profit', '--reduce-only', ...current, ...signedArgs()], out);
    expect(JSON.parse(venue.actionBodies.at(-1)!)).toMatchObject({ actions: [{ tp: { c: 'BTC-USD', d: true, sz: 1, tr: 105, i: false } }] });
    expect(() => order(['place', 'BTC-USD', 'sell', '1', '--trigger', '105', ...current, ...signedArgs()], out)).toThrow(/reduceOnly: .*must be reduce-only/);
  });

  it('order place refuses a market order with a price: --trigger with --price, --limit or --take-profit without --trigger, a trigger not GTC', () => {
    expect(() => order(['place', 'BTC-USD', 'sell', '1', '--trigger', '95', '--price', '95', ...signedArgs()], out)).toThrow(
      /market order, whose price is 0\.0 \(specification\): drop --price, or give --limit PX/,
    );
    expect(() => order(['place', 'BTC-USD', 'sell', '1', '--limit', '95', ...signedArgs()], out)).toThrow(/--limit is the limit price of a trigger order/);
    expect(() => order(['place', 'BTC-USD', 'sell', '1', '--take-profit', ...signedArgs()], out)).toThrow(/--take-profit needs --trigger/);
    expect(() => order(['place', 'BTC-USD', 'sell', '1', '--trigger', '95', '--tif', 'IOC', ...signedArgs()], out)).toThrow(/--tif must be GTC/);
    expect(() => order(['place', 'BTC-USD', 'sell', '1', '--trigger', '0', ...signedArgs()], out)).toThrow(/--trigger must be a positive number/);
  });

  it('leverage, agent and faucet send their actions; a rejected outcome exits 1', async () => {
    await leverage(['BTC-USD', '7', ...signedArgs()], out);
    expect(lastAction().action).toMatchObject({ type: 'updateUserSettings', settings: { m: [['BTC-USD', 7]] } });
    await agent(['add', key(0x77), ...signedArgs()], out);
    expect(lastAction().action).toMatchObject({ type: 'agentWalletCreation', agent: key(0x77), delete: false });
    lines = [];
    expect(await faucet(['--amount', '1000', ...signedArgs()], out)).toBe(1);
    expect(lastAction().action).toMatchObject({ type: 'faucet', user: KEY.publicKey, amount: 1000 });
    expect(lines[0]).toBe('rejected: unauthorized signer');
  });

  it('watch prints validated topic messages (JSON lines with --json)', async () => {
    venue.setBook('BTC-USD', [[100, 1]], [[101, 1]]);
    expect(await watch(['l2delta.BTC-USD', '--count', '1', '--json', ...common()], out)).toBe(0);
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'l2Delta', topic: 'l2delta.BTC-USD', data: { book: { updateType: 'snapshot' } } });
  });

  it('usage mistakes are UsageErrors (exit 2)', () => {
    expect(() => order(['place', 'BTC-USD', 'up', '1', ...signedArgs()], out)).toThrow(UsageError);
    expect(() => order(['place', 'BTC-USD', 'buy', '-1', ...signedArgs()], out)).toThrow(UsageError);
    expect(() => order(['modify'], out)).toThrow(UsageError);
    expect(() => watch(['candles.BTC-USD'], out)).toThrow(UsageError);
    expect(() => leverage(['BTC-USD', '5', '--dialect', 'v9'], out)).toThrow(UsageError);
    return expect(account(['balances', '--user', KEY.publicKey], out)).rejects.toThrow(UsageError);
  });
});
