import { firstValueFrom, of, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { MAX_SERIES_PER_METRIC, type Fill } from '../../../src/strategy/api.js';
import { MemoryMetrics } from '../../../src/strategy/context.js';
import { book, fakeContext, recordingLogger } from './helpers.js';

const scheduler = new TestScheduler(() => undefined);

describe('createStrategyContext', () => {
  it('serves only the strategy markets and their rules', () => {
    const ctx = fakeContext({ name: 'mm', symbols: ['BTC-USD'], scheduler, books: { 'BTC-USD': of(book([[1, 1]], [[2, 1]])) } });
    expect(ctx.symbols).toEqual(['BTC-USD']);
    expect(() => ctx.market.book$('BTC-USD')).not.toThrow();
    expect(() => ctx.market.book$('ETH-USD')).toThrow('strategy mm: market ETH-USD is not one of its markets (BTC-USD)');
    expect(() => ctx.market.trades$('ETH-USD')).toThrow(/not one of its markets/);
    expect(ctx.rules('BTC-USD')).toEqual({ symbol: 'BTC-USD', tickSizeUsd: 0.1, lotSizeBase: 0.0001, minNotionalUsd: 10, maxLeverage: 50 });
    expect(Object.isFrozen(ctx.rules('BTC-USD'))).toBe(true);
    expect(() => ctx.rules('DOGE-USD')).toThrow('strategy mm: no market rules for DOGE-USD');
  });

  it('hands on a frozen copy of what the strategy reports, refusing values /status cannot show', () => {
    const reports: object[] = [];
    const ctx = fakeContext({ scheduler, report: (r) => reports.push(r) });
    const fields = { progress: 0.5, side: 'buy', done: false, avgPriceUsd: null };
    ctx.report(fields);
    expect(reports).toEqual([fields]);
    expect(reports[0]).not.toBe(fields);
    expect(Object.isFrozen(reports[0])).toBe(true);
    expect(() => ctx.report({ progress: Number.NaN })).toThrow('report.progress: expected a finite number, a string, a boolean or null, got NaN');
    expect(() => ctx.report({ nested: {} as unknown as string })).toThrow(/report\.nested/);
    expect(reports).toHaveLength(1);
  });

  it('without symbols any market may be read', () => {
    const ctx = fakeContext({ scheduler });
    expect(() => ctx.market.book$('ETH-USD')).not.toThrow();
    expect(ctx.rules('ETH-USD').tickSizeUsd).toBe(0.01);
  });

  it('passes on fills of its markets only', async () => {
    const fill = (symbol: string): Fill => ({
      symbol,
      orderId: 'o1',
      side: 'buy',
      price: 100,
      size: 1,
      feeUsd: 0.01,
      maker: true,
      cause: 'trade',
      venueTimeNs: 1n,
    });
    const ctx = fakeContext({ symbols: ['BTC-USD'], scheduler, fills$: of(fill('BTC-USD'), fill('ETH-USD'), fill('BTC-USD')) });
    expect((await firstValueFrom(ctx.account.fills$.pipe(toArray()))).map((f) => f.symbol)).toEqual(['BTC-USD', 'BTC-USD']);
  });

  it('reads time from the injected clock', () => {
    const ts = new TestScheduler(() => undefined);
    ts.run(() => {
      const ctx = fakeContext({ scheduler: ts });
      ts.schedule(() => expect(ctx.clock.nowMs()).toBe(42), 42);
    });
  });
});

describe('MemoryMetrics', () => {
  it('keeps counters, gauges and histograms by label set', () => {
    const m = new MemoryMetrics();
    const c = m.counter('quotes_total', { labelNames: ['side'] });
    c.inc(1, { side: 'buy' });
    c.inc(2, { side: 'buy' });
    c.inc(1, { side: 'sell' });
    expect(m.counter('quotes_total')).toBeDefined();
    expect(m.value('quotes_total', { side: 'buy' })).toBe(3);
    const g = m.gauge('inventory_ratio');
    g.set(0.5);
    g.dec(0.25);
    expect(m.value('inventory_ratio')).toBe(0.25);
    const h = m.histogram('compute_seconds');
    h.observe(0.001);
    h.observe(0.003);
    expect(m.read('compute_seconds')).toEqual([{ labels: {}, value: 0.004, count: 2 }]);
  });

  it('refuses bad names, undeclared labels, a name reused for another kind, and decreasing counters', () => {
    const m = new MemoryMetrics();
    expect(() => m.counter('Quotes-Total')).toThrow('metric name must be snake_case');
    expect(() => m.counter('x_total', { labelNames: ['a', 'b', 'c', 'd', 'e'] })).toThrow('at most 4 label names');
    const c = m.counter('x_total', { labelNames: ['side'] });
    expect(() => c.inc(1, { order_id: 'abc' })).toThrow('metric x_total: labels must be exactly [side], got [order_id]');
    expect(() => c.inc(1)).toThrow(/labels must be exactly \[side\]/);
    expect(() => c.inc(-1, { side: 'buy' })).toThrow('cannot decrease');
    expect(() => m.gauge('x_total')).toThrow('metric x_total is a counter, not a gauge');
  });

  it('bounds the series of a metric, dropping new label sets with one warning', () => {
    const log = recordingLogger();
    const m = new MemoryMetrics(log);
    const c = m.counter('by_level_total', { labelNames: ['level'] });
    for (let i = 0; i < MAX_SERIES_PER_METRIC + 10; i++) c.inc(1, { level: String(i) });
    expect(m.read('by_level_total')).toHaveLength(MAX_SERIES_PER_METRIC);
    expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    c.inc(1, { level: '0' });
    expect(m.value('by_level_total', { level: '0' })).toBe(2);
  });
});
