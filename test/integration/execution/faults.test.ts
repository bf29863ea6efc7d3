// Execution under venue faults, with real parts: a venue restarted on the same port without state, and HTTP / WebSocket
// outages through a loopback proxy that is cut and restored. No order may stay stuck, and none may stay open after stop.
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/core/logger.js';
import type { QuoteSpec } from '../../../src/core/intent.js';
import type { Dialect } from '../../../src/core/types.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { startVenue, type Venue } from '../../../src/venue-sim/server/index.js';
import { cleanups } from '../../support/cleanups.js';
import { until } from '../../support/until.js';
import { FakeRisk } from '../../unit/execution/fakes.js';
import { Trader } from '../venue/harness.js';
import { Bot, resting, stamp, VenueTap, type BotNet } from './bot.js';
import { CuttableProxy } from './proxy.js';

const closers = cleanups();

async function venueOn(port: number, dialect: Dialect): Promise<Venue> {
  const venue = await startVenue({ port, flow: false, seed: 21, dialect });
  closers.push(() => venue.close());
  return venue;
}

interface LogLine {
  level: 'info' | 'warn';
  fields: Record<string, unknown>;
  message: string;
}

async function bot(venue: Venue, net: BotNet = {}): Promise<{ b: Bot; logs: LogLine[] }> {
  const logs: LogLine[] = [];
  const logger: Logger = {
    info: (fields, message) => logs.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
    warn: (fields, message) => logs.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
  };
  const b = new Bot(venue, Keypair.generate(), new FakeRisk(), { logger }, net);
  closers.push(() => b.close({ deadlineMs: 1000 }));
  await new Trader(venue, b.key).faucet(100_000);
  await b.exec.start();
  return { b, logs };
}

const quotes = (bid: number, ask: number): QuoteSpec[] => [
  { side: 'buy', price: bid, size: 0.01 },
  { side: 'sell', price: ask, size: 0.01 },
];

/** Polls `read` until `check` holds on its answer. */
async function untilAsync<T>(read: () => Promise<T>, check: (v: T) => boolean, what: string, timeoutMs = 5000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await read();
    if (check(v)) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** An outage of `ms`: the fault's length is what is tested, so it is waited out. */
const outage = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each<Dialect>(['v1', 'current'])('%s dialect', (dialect) => {
  describe('execution: a venue restart loses the resting orders', () => {
    it('an order the venue no longer knows is concluded once a query confirms it, the strategy stops re-cancelling it, and stop leaves nothing', async () => {
      const first = await venueOn(0, dialect);
      const { b, logs } = await bot(first);
      b.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(49_000, 51_000), ...stamp() });
      await resting(b, 'mm', 2);
      const lost = b.exec.openOrders('mm').map((o) => o.orderId!);

      await first.close();
      const second = await venueOn(first.port, dialect);
      const tap = new VenueTap(second);
      await new Trader(second, b.key).faucet(100_000);
      // A market maker re-quoting every 150 ms: each new quote set cancels whatever it believes rests.
      let step = 0;
      const requote = setInterval(() => {
        step++;
        b.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(49_000 - step, 51_000 + step), ...stamp() });
      }, 150);
      try {
        await until(() => lost.every((id) => b.exec.order(id)?.terminal), 'the lost orders concluded', 5000);
      } finally {
        clearInterval(requote);
      }
      for (const id of lost) {
        const last = b
          .of('mm')
          .filter((e) => e.orderId === id)
          .at(-1)!;
        expect(last.status).toBe('cancelled');
        expect(last.reason).toMatch(/lost by the venue/);
        expect(logs.some((l) => l.level === 'warn' && l.fields.orderId === id && /lost by the venue/.test(String(l.fields.reason)))).toBe(true);
      }
      await b.exec.whenIdle();
      const cancelsOfLost = tap.actions.flatMap((a) => a.items).filter((i) => 'cancel' in i && lost.includes((i as { cancel: { oid: string } }).cancel.oid));
      expect(cancelsOfLost.length).toBeLessThanOrEqual(lost.length);

      const report = await b.close({ deadlineMs: 3000 });
      expect(report).toMatchObject({ open: [], timedOut: false });
      expect((await new Trader(second, b.key).query('openOrders')).length).toBe(0);
    });
  });

  describe('execution: an HTTP outage longer than the resolve rounds', () => {
    async function stalled() {
      const venue = await venueOn(0, dialect);
      const proxy = await CuttableProxy.start(venue.port);
      closers.push(() => proxy.close());
      const { b, logs } = await bot(venue, { httpUrl: proxy.via(venue.url), timeoutMs: 200 });
      b.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(49_000, 51_000), ...stamp() });
      await resting(b, 'mm', 2);
      const old = b.exec.openOrders('mm').map((o) => o.orderId!);
      proxy.cut();
      // Cancels of the two resting orders and two new places, in one request the venue never sees.
      b.exec.submit('mm', { kind: 'quoteSet', symbol: 'BTC-USD', quotes: quotes(49_100, 50_900), ...stamp() });
      await until(
        () => old.every((id) => b.exec.order(id)?.status === 'pendingCancel') && b.exec.openOrders('mm').some((o) => o.status === 'unknown'),
        'the stranded orders',
      );
      // Longer than the four resolve rounds (20-200 ms) plus their 200 ms timeouts.
      await outage(2000);
      return { venue, proxy, b, logs, old };
    }

    it('stranded cancels and unknown places are resolved once the venue answers again: nothing stays stuck or open', async () => {
      const { venue, proxy, b, logs, old } = await stalled();
      proxy.restore();
      await until(() => b.exec.openOrders().length === 0, 'every order of the bot resolved', 5000);
      for (const id of old) expect(b.exec.order(id)?.status).toBe('cancelled');
      expect(
        b
          .latest('mm')
          .filter((e) => e.status === 'rejectedInvalid')
          .map((e) => e.reason),
      ).toEqual([expect.stringMatching(/not found at the venue/), expect.stringMatching(/not found at the venue/)]);
      await untilAsync(
        () => new Trader(venue, b.key).query('openOrders'),
        (rows) => rows.length === 0,
        'nothing of the bot open at the venue',
      );
      expect(logs.some((l) => l.level === 'warn' && /cannot be queried/.test(l.message))).toBe(true);
      expect(logs.some((l) => l.level === 'info' && /answers again/.test(l.message))).toBe(true);
    });

    it('stop right after the outage cancels what still rests: nothing of the bot stays open at the venue', async () => {
      const { venue, proxy, b } = await stalled();
      proxy.restore();
      const report = await b.close({ deadlineMs: 3000 });
      expect(report).toMatchObject({ open: [], timedOut: false });
      expect(await new Trader(venue, b.key).query('openOrders')).toEqual([]);
    });
  });
});
