import { EMPTY, map, NEVER, Observable, of, Subject, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { Intent, OrderEvent } from '../../../src/core/intent.js';
import { defineStrategy, schema as s, type StrategyContext } from '../../../src/strategy/api.js';
import { StrategyHost, type HostedIntent, type StrategyStatus } from '../../../src/strategy/host.js';
import { fakeContext, recordingLogger } from './helpers.js';

const cancelAll = (v: number): Intent => ({ kind: 'cancelAll', dataTimeMs: 1000 + v, dataVersion: v });

/** A strategy whose stream is whatever `make` returns. */
function strategy(make: (ctx: StrategyContext) => Observable<unknown>) {
  return defineStrategy({ name: 'scripted', params: s.object({}), create: (ctx) => make(ctx) as Observable<Intent> });
}

function setup(onStopped?: (name: string, reason: string) => void | Promise<unknown>) {
  const clock = new ManualClock(5_000_000_000n);
  const stopped: Array<[string, string]> = [];
  const log = recordingLogger();
  const host = new StrategyHost({
    clock,
    log,
    onStopped: (name, reason) => {
      stopped.push([name, reason]);
      return onStopped?.(name, reason);
    },
  });
  const out: HostedIntent[] = [];
  host.intents$.subscribe((i) => out.push(i));
  const ctx = (name: string, symbols: string[] = []) =>
    fakeContext({ name, symbols, scheduler: new TestScheduler(() => undefined), orders$: host.orders$(name) });
  const start = (name: string, make: (ctx: StrategyContext) => Observable<unknown>, symbols: string[] = []) =>
    host.start({ name, definition: strategy(make), params: {}, context: ctx(name, symbols) });
  return { host, clock, stopped, out, log, start };
}

describe('StrategyHost isolation', () => {
  it('stops only the strategy whose stream errors; the others keep emitting (marbles)', () => {
    const ts = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    ts.run(({ cold, expectObservable }) => {
      const stopped: string[] = [];
      const host = new StrategyHost({ clock: new ManualClock(), onStopped: (name, reason) => void stopped.push(`${name}: ${reason}`) });
      const values = { a: cancelAll(1), b: cancelAll(2), x: cancelAll(10), y: cancelAll(11), z: cancelAll(12) };
      expectObservable(host.intents$.pipe(map((i) => `${i.strategy}:${i.intent.dataVersion}`))).toBe('a-x-b-y---z', {
        a: 'bad:1',
        b: 'bad:2',
        x: 'good:10',
        y: 'good:11',
        z: 'good:12',
      });
      ts.schedule(() => {
        host.start({
          name: 'bad',
          definition: strategy(() => cold('a---b-#', values, new Error('kaput'))),
          params: {},
          context: fakeContext({ scheduler: ts }),
        });
        host.start({ name: 'good', definition: strategy(() => cold('--x---y---z', values)), params: {}, context: fakeContext({ scheduler: ts }) });
      }, 0);
      ts.schedule(() => {
        expect(stopped).toEqual(['bad: error: kaput']);
        expect(host.snapshot().map((x) => [x.name, x.state])).toEqual([
          ['bad', 'failed'],
          ['good', 'running'],
        ]);
      }, 8);
    });
  });

  it('marks a strategy whose create() throws as failed, calls onStopped, and keeps the others', () => {
    const { host, stopped, out, start } = setup();
    const good = new Subject<Intent>();
    start('good', () => good);
    const status = start('broken', () => {
      throw new Error('no market data');
    });
    expect(status).toMatchObject({ name: 'broken', state: 'failed', reason: 'create() threw: no market data' });
    expect(stopped).toEqual([['broken', 'create() threw: no market data']]);
    good.next(cancelAll(1));
    expect(out).toEqual([{ strategy: 'good', intent: cancelAll(1), seq: 1 }]);
    expect(host.status('good')?.state).toBe('running');
  });

  it('fails a strategy whose create() returns something other than an Observable', () => {
    const { host } = setup();
    host.start({
      name: 'odd',
      definition: defineStrategy({ name: 'odd', params: s.object({}), create: () => [cancelAll(1)] as unknown as Observable<Intent> }),
      params: {},
      context: fakeContext({ scheduler: new TestScheduler(() => undefined) }),
    });
    expect(host.status('odd')).toMatchObject({ state: 'failed', reason: 'create() threw: create() did not return an Observable' });
  });

  it('stops a strategy emitting garbage, with a reason naming the field, before anything reaches intents$', () => {
    const { host, stopped, out, start } = setup();
    const source = new Subject<unknown>();
    start('mm', () => source);
    source.next({ kind: 'quoteSet', symbol: 'BTC-USD', dataTimeMs: 1, dataVersion: 1, quotes: [{ side: 'buy', price: 100, size: 1 }] });
    source.next({ kind: 'quoteSet', symbol: 'BTC-USD', dataTimeMs: 1, dataVersion: 2, quotes: [{ side: 'buy', price: -5, size: 1 }] });
    source.next(cancelAll(3));
    expect(out.map((i) => i.intent.dataVersion)).toEqual([1]);
    const reason = 'invalid intent: intent.quotes[0].price: must be > 0, got -5';
    expect(host.status('mm')).toMatchObject({ state: 'failed', reason });
    expect(stopped).toEqual([['mm', reason]]);
    expect(source.observed).toBe(false);
  });

  it('names the offending field for other kinds of garbage', () => {
    const cases: Array<[unknown, string]> = [
      [null, 'intent: expected object, got null'],
      [
        { kind: 'nuke', dataTimeMs: 1, dataVersion: 1 },
        'intent.kind: expected "place" | "cancel" | "cancelAll" | "replace" | "quoteSet" | "basket", got "nuke"',
      ],
      [{ kind: 'cancelAll', dataTimeMs: NaN, dataVersion: 1 }, 'intent.dataTimeMs: expected a finite number, got NaN'],
      [
        {
          kind: 'place',
          dataTimeMs: 1,
          dataVersion: 1,
          order: { symbol: 'BTC-USD', side: 'buy', price: 1, size: 1, tif: 'GTC', reduceOnly: false, clientTag: 'a b' },
        },
        'intent.order.clientTag: expected printable ASCII without spaces, got "a b"',
      ],
      [{ kind: 'cancel', dataTimeMs: 1, dataVersion: 1, symbol: 'BTC-USD', ref: {} }, 'intent.ref.orderId: missing field'],
      [
        {
          kind: 'quoteSet',
          symbol: 'BTC-USD',
          dataTimeMs: 1,
          dataVersion: 1,
          quotes: [
            { side: 'buy', price: 101, size: 1 },
            { side: 'sell', price: 100, size: 1 },
          ],
        },
        'intent.quotes: quotes cross themselves: buy at 101 >= sell at 100',
      ],
    ];
    for (const [garbage, message] of cases) {
      const { host, start } = setup();
      start('x', () => of(garbage));
      expect(host.status('x')).toMatchObject({ state: 'failed', reason: `invalid intent: ${message}` });
    }
  });

  it('refuses intents for markets the strategy does not trade', () => {
    const { host, out, start } = setup();
    const quote = { kind: 'quoteSet', symbol: 'ETH-USD', dataTimeMs: 1, dataVersion: 1, quotes: [] };
    start('mm', () => of(cancelAll(1), quote), ['BTC-USD']);
    expect(out).toHaveLength(1);
    expect(host.status('mm')?.reason).toBe("invalid intent: intent.symbol: ETH-USD is not one of the strategy's markets (BTC-USD)");
  });

  it('survives an onStopped that throws or rejects', async () => {
    const { host, log, start } = setup(() => {
      throw new Error('cancel failed');
    });
    start('a', () => throwError(() => new Error('x')));
    expect(host.status('a')?.state).toBe('failed');
    const rejecting = setup(() => Promise.reject(new Error('cancel rejected')));
    rejecting.start('b', () => NEVER);
    await rejecting.host.stop('b');
    expect(rejecting.host.status('b')?.state).toBe('stopped');
    expect(log.lines.some((l) => l.level === 'error' && l.message === 'onStopped threw')).toBe(true);
    expect(rejecting.log.lines.some((l) => l.level === 'error' && l.message === 'onStopped failed')).toBe(true);
  });
});

describe('StrategyHost lifecycle', () => {
  it('goes starting → running → stopping → stopped, staying in stopping until onStopped settles', async () => {
    let release!: () => void;
    const { host, clock, stopped, start } = setup(() => new Promise<void>((r) => (release = r)));
    const changes: StrategyStatus[] = [];
    host.changes$.subscribe((c) => changes.push(c));
    let unsubscribed = false;
    start('mm', () => new Observable(() => () => void (unsubscribed = true)));
    expect(changes.map((c) => c.state)).toEqual(['starting', 'running']);
    clock.advanceMs(250);
    const done = host.stop('mm', 'operator request');
    expect(unsubscribed).toBe(true);
    expect(host.status('mm')).toEqual({ name: 'mm', state: 'stopping', reason: 'operator request', sinceMs: 5250, failures: 0 });
    expect(stopped).toEqual([['mm', 'operator request']]);
    await Promise.resolve();
    expect(host.status('mm')?.state).toBe('stopping');
    release();
    await done;
    expect(changes.map((c) => [c.state, c.reason])).toEqual([
      ['starting', undefined],
      ['running', undefined],
      ['stopping', 'operator request'],
      ['stopped', 'operator request'],
    ]);
    // Stopping again changes nothing and calls onStopped no more.
    await host.stop('mm');
    expect(stopped).toHaveLength(1);
  });

  it('treats a completed stream as a stop with reason "completed"', async () => {
    const { host, stopped, out, start } = setup();
    start('once', () => of(cancelAll(1)));
    expect(out).toHaveLength(1);
    expect(host.status('once')).toMatchObject({ state: 'stopping', reason: 'completed' });
    await host.stop('once');
    expect(host.status('once')).toMatchObject({ state: 'stopped', reason: 'completed' });
    expect(stopped).toEqual([['once', 'completed']]);
    start('empty', () => EMPTY);
    expect(host.status('empty')?.state).toBe('stopping');
  });

  it('keeps what each strategy last reported, after it stopped too', async () => {
    const { host } = setup();
    const definition = defineStrategy({
      name: 'reporter',
      params: s.object({}),
      create: (ctx) => {
        ctx.report({ progress: 0.5 });
        ctx.report({ progress: 1, done: true });
        return EMPTY;
      },
    });
    const context = fakeContext({ name: 'r', scheduler: new TestScheduler(() => undefined), report: (f) => host.report('r', f) });
    host.start({ name: 'r', definition, params: {}, context });
    await host.stop('r');
    expect(host.reportOf('r')).toEqual({ progress: 1, done: true });
    expect(host.reportOf('other')).toBeUndefined();
  });

  it('publishes every status on status$, current first', () => {
    const { host, start } = setup();
    start('a', () => NEVER);
    const seen: string[][] = [];
    host.status$.subscribe((all) => seen.push(all.map((x) => `${x.name}:${x.state}`)));
    start('b', () => throwError(() => new Error('bad')));
    expect(seen).toEqual([['a:running'], ['a:running', 'b:starting'], ['a:running', 'b:failed']]);
  });

  it('refuses to start a running name, and restarts a failed or stopped one', async () => {
    const { host, start } = setup();
    start('a', () => NEVER);
    expect(() => start('a', () => NEVER)).toThrow('strategy a is already running');
    await host.stop('a');
    expect(start('a', () => NEVER).state).toBe('running');
    start('b', () => throwError(() => new Error('x')));
    expect(start('b', () => NEVER).state).toBe('running');
    expect(() => host.stop('nobody')).toThrow('no strategy named nobody');
  });

  it('counts the failed runs of each strategy across restarts', async () => {
    const { host, start } = setup();
    start('a', () => throwError(() => new Error('x')));
    start('b', () => NEVER);
    expect(host.status('a')).toMatchObject({ state: 'failed', failures: 1 });
    start('a', () => throwError(() => new Error('y')));
    start('a', () => NEVER);
    expect(host.status('a')).toMatchObject({ state: 'running', failures: 2 });
    await host.stop('b');
    expect(host.status('b')).toMatchObject({ state: 'stopped', failures: 0 });
  });

  it('stopAll stops every strategy and leaves failed ones failed', async () => {
    const { host, stopped, start } = setup();
    start('a', () => NEVER);
    start('b', () => NEVER);
    start('c', () => throwError(() => new Error('x')));
    await host.stopAll('shutdown');
    expect(host.snapshot().map((x) => [x.name, x.state, x.reason])).toEqual([
      ['a', 'stopped', 'shutdown'],
      ['b', 'stopped', 'shutdown'],
      ['c', 'failed', 'error: x'],
    ]);
    expect(stopped.map(([n]) => n).sort()).toEqual(['a', 'b', 'c']);
  });
});

describe('StrategyHost order events', () => {
  const event = (strategy: string, orderId: string): OrderEvent => ({
    strategy,
    orderId,
    clientTag: undefined,
    symbol: 'BTC-USD',
    side: 'buy',
    price: 100,
    size: 1,
    filledSize: 0,
    status: 'rejectedCrossing',
    reason: 'would cross',
    timeMs: 1,
  });

  it('routes each event to its own strategy only, while it runs', async () => {
    const { host, start } = setup();
    const seen: Record<string, string[]> = { a: [], b: [] };
    for (const name of ['a', 'b']) {
      start(name, (ctx) => {
        ctx.account.orders$.subscribe((e) => seen[name]!.push(e.orderId));
        return NEVER;
      });
    }
    const events = new Subject<OrderEvent>();
    host.routeOrderEvents(events);
    events.next(event('a', 'o1'));
    events.next(event('b', 'o2'));
    expect(host.routeOrderEvent(event('nobody', 'o3'))).toBe(false);
    await host.stop('a');
    expect(host.routeOrderEvent(event('a', 'o4'))).toBe(false);
    events.next(event('b', 'o5'));
    expect(seen).toEqual({ a: ['o1'], b: ['o2', 'o5'] });
  });

  it('lets a strategy react to its order events within its own stream', () => {
    const { host, out, start } = setup();
    start('echo', (ctx) =>
      ctx.account.orders$.pipe(map((e): Intent => ({ kind: 'cancel', symbol: e.symbol, ref: { orderId: e.orderId }, dataTimeMs: e.timeMs, dataVersion: 0 }))),
    );
    expect(host.routeOrderEvent(event('echo', 'o9'))).toBe(true);
    expect(out).toEqual([{ strategy: 'echo', intent: { kind: 'cancel', symbol: 'BTC-USD', ref: { orderId: 'o9' }, dataTimeMs: 1, dataVersion: 0 }, seq: 1 }]);
  });

  it("numbers each strategy's valid intents from 1 (HostedIntent.seq), on after a restart", async () => {
    const { host, out, start } = setup();
    const a = new Subject<unknown>();
    const b = new Subject<unknown>();
    start('a', () => a);
    start('b', () => b);
    a.next(cancelAll(1));
    b.next(cancelAll(2));
    a.next(cancelAll(3));
    await host.stop('a');
    start('a', () => a);
    a.next(cancelAll(4));
    expect(out.map((i) => [i.strategy, i.intent.dataVersion, i.seq])).toEqual([
      ['a', 1, 1],
      ['b', 2, 1],
      ['a', 3, 2],
      ['a', 4, 3],
    ]);
  });
});
