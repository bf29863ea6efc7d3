// Open orders across a `kill -9` of the daemon (the built CLI in a child process, current dialect, the same journal):
// with `execution.unknownOrders: adopt` a resting order the killed daemon placed is its strategy's again after the
// restart; by default it is cancelled; a parked trigger basket is cancelled even under adopt (its orders are not listed,
// so what it would place could not be tracked), and the mark then fires nothing.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, startDaemonProcess, waitForStatus, type DaemonProcess } from '../../../bench/support/daemon-process.js';
import { base58Encode } from '../../../src/protocol/base58.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { Journal } from '../../../src/store/index.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';
import { venueAtMark, MARK_SYMBOL } from '../venue/at-mark.js';
import { Trader } from '../venue/harness.js';

const cleanup = cleanups();
const running: DaemonProcess[] = [];
afterEach(() => {
  for (const d of running.splice(0)) d.kill();
});

const SYMBOL = MARK_SYMBOL;

/** A plugin in a user's folder (`perpbot` is this package): once the account is known, places what `place` names. */
const PLUGIN = `import { filter, map, merge, NEVER, take } from 'rxjs';
import { defineStrategy, schema as s, symbolSchema } from 'perpbot';

const buy = (symbol, clientTag, price, tif) => ({ symbol, side: 'buy', size: 1, price, tif, reduceOnly: false, clientTag });

export default defineStrategy({
  name: 'placer',
  params: s.object({ symbol: symbolSchema, place: s.literal('nothing', 'rest', 'basket') }, { strict: true }),
  symbols: (p) => [p.symbol],
  create(ctx, p) {
    const stamp = () => ({ dataTimeMs: ctx.clock.nowMs(), dataVersion: 0 });
    const intent = () =>
      p.place === 'rest'
        ? { kind: 'place', order: buy(p.symbol, 'bid', 95, 'GTC'), ...stamp() }
        : {
            kind: 'basket',
            symbol: p.symbol,
            whenMark: { above: true, price: 102 },
            orders: [buy(p.symbol, 'take', 103, 'IOC'), buy(p.symbol, 'rest', 101, 'GTC')],
            ...stamp(),
          };
    return merge(ctx.account.state$.pipe(take(1), filter(() => p.place !== 'nothing'), map(intent)), NEVER);
  },
});
`;

interface StatusOrder {
  strategy: string;
  orderId: string | null;
  price: number | null;
  status: string;
}

type Place = 'nothing' | 'rest' | 'basket';

/** A current-dialect venue at mark 100 with an ask at 103 and a bid at 97, a funded key, and daemons to start on it. */
async function setUp() {
  const { venue, setMark, lp } = await venueAtMark(cleanup, 'current', 23, [false, 103, 5], [true, 97, 5]);
  const key = Keypair.fromBytes(randomBytes(32));
  await new Trader(venue, key).faucet(10_000);

  const dir = mkdtempSync(join(tmpdir(), 'perpbot-restart-orders-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules/perpbot'));
  symlinkSync(join(ROOT, 'node_modules/rxjs'), join(dir, 'node_modules/rxjs'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(dir, 'placer.mjs'), PLUGIN);
  const secret = base58Encode(Uint8Array.from(JSON.parse(key.keyFileText()) as number[]));
  let configs = 0;
  /** Starts the daemon placing `place`, with `unknownOrders` (the default when undefined); resolves once it is ready. */
  const launch = async (place: Place, unknownOrders?: 'adopt' | 'cancel') => {
    const path = join(dir, `daemon-${configs++}.yaml`);
    writeFileSync(
      path,
      [
        `venue: {mode: remote, url: ${venue.url}, wsUrl: ${venue.wsUrl}, dialect: current, network: ${venue.network}}`,
        'accounts:',
        '  - name: main',
        '    secretKey: ${MAIN_SECRET}',
        'strategies:',
        `  - {name: placer, module: ${join(dir, 'placer.mjs')}, params: {symbol: ${SYMBOL}, place: ${place}}}`,
        `journal: {path: ${join(dir, 'journal.sqlite')}}`,
        ...(unknownOrders ? [`execution: {unknownOrders: ${unknownOrders}}`] : []),
        'shutdown: {deadlineMs: 3000}',
        '',
      ].join('\n'),
    );
    const d = startDaemonProcess(['--config', path], { MAIN_SECRET: secret, PERPBOT_METRICS_PORT: '0', PERPBOT_DATA_DIR: dir });
    running.push(d);
    const [, base] = await d.line(/metrics\s+(http:\/\/127\.0\.0\.1:\d+)\/metrics/);
    await waitForStatus(`${base}/readyz`, 200);
    const openOrders = async () => ((await (await fetch(`${base}/status`)).json()) as { accounts: { openOrders: StatusOrder[] }[] }).accounts[0]!.openOrders;
    return { d, openOrders };
  };
  const account = key.publicKey;
  /** The account's open orders as the venue's query answers them (a parked basket is one). */
  const atVenue = async () => (await lp.query('openOrders', account)).map((r) => r.openOrder as { orderId: string; price: number });
  const journaled = () => {
    const journal = Journal.open(join(dir, 'journal.sqlite'));
    try {
      return {
        orders: journal.journaledOrders().filter((o) => o.account === account),
        fills: journal.fills().filter((f) => f.account === account),
      };
    } finally {
      journal.close();
    }
  };
  return { launch, atVenue, setMark, journaled };
}

describe('open orders across a kill -9 of the daemon', () => {
  it('unknownOrders adopt: a resting order the killed daemon placed is its strategy’s again; SIGTERM then cancels it', async () => {
    const { launch, atVenue, journaled } = await setUp();
    const first = await launch('rest');
    await until(async () => (await first.openOrders()).some((o) => o.status === 'placed'), 'the bid resting', 20_000);
    const [bid] = await first.openOrders();
    first.d.child.kill('SIGKILL');
    expect(await first.d.exited).toBe('SIGKILL');

    const second = await launch('nothing', 'adopt');
    expect((await second.openOrders()).map((o) => [o.strategy, o.orderId, o.price, o.status])).toEqual([['placer', bid!.orderId, 95, 'placed']]);
    expect((await atVenue()).map((o) => o.orderId)).toEqual([bid!.orderId]);
    second.d.child.kill('SIGTERM');
    expect(await second.d.exited).toBe(0);
    expect(await atVenue()).toEqual([]);
    expect(journaled().orders.map((o) => [o.strategy, o.orderId, o.status])).toEqual([['placer', bid!.orderId, 'cancelled']]);
  }, 60_000);

  it('by default the restarted daemon cancels that order', async () => {
    const { launch, atVenue } = await setUp();
    const first = await launch('rest');
    await until(async () => (await first.openOrders()).some((o) => o.status === 'placed'), 'the bid resting', 20_000);
    first.d.child.kill('SIGKILL');
    await first.d.exited;

    const second = await launch('nothing');
    await until(async () => (await atVenue()).length === 0, 'the bid cancelled at start');
    // The venue removes the order before the daemon hears of the cancel: its status may say pendingCancel a moment longer.
    await until(async () => (await second.openOrders()).length === 0, 'the daemon told of the cancel');
    expect(await second.openOrders()).toEqual([]);
  }, 60_000);

  it('a parked basket is cancelled even under adopt; the mark then fires nothing and nothing is filled', async () => {
    const { launch, atVenue, setMark, journaled } = await setUp();
    const first = await launch('basket');
    await until(async () => (await first.openOrders()).filter((o) => o.status === 'untriggered').length === 2, 'both orders parked', 20_000);
    expect(await atVenue()).toHaveLength(1);
    first.d.child.kill('SIGKILL');
    await first.d.exited;

    const second = await launch('nothing', 'adopt');
    await until(async () => (await atVenue()).length === 0, 'the basket cancelled at start');
    await setMark(102);
    await setMark(102.5);
    expect(await atVenue()).toEqual([]);
    expect(await second.openOrders()).toEqual([]);
    second.d.child.kill('SIGTERM');
    expect(await second.d.exited).toBe(0);
    expect(journaled().fills).toEqual([]);
  }, 60_000);
});
