import { describe, expect, it } from 'vitest';
import { sample } from '../../../bench/support/daemon-process.js';
import { RegistryMetricBackends } from '../../../src/app/daemon/metrics.js';
import { MAX_SERIES_PER_METRIC } from '../../../src/strategy/api.js';
import { silentStrategyLogger } from '../../../src/strategy/context.js';
import { createMetrics } from '../../../src/telemetry/metrics.js';

describe('strategy metrics in the daemon registry', () => {
  it('exports ctx.metrics prefixed perpbot_strategy_ with account and strategy labels, one metric shared by instances', async () => {
    const m = createMetrics();
    const backends = new RegistryMetricBackends(m.registry);
    const a = backends.forStrategy('main', 'mm-btc', silentStrategyLogger);
    const b = backends.forStrategy('other', 'mm-eth', silentStrategyLogger);
    a.counter('quote_sets_total', { help: 'Quote sets emitted' }).inc();
    a.counter('quote_sets_total').inc(2);
    b.counter('quote_sets_total', { help: 'Quote sets emitted' }).inc();
    a.gauge('inventory_ratio', { labelNames: ['side'] }).set(0.5, { side: 'buy' });
    a.histogram('decide_seconds', { buckets: [0.001, 0.01] }).observe(0.002);
    const text = await m.text();
    expect(text).toMatch(/^# HELP perpbot_strategy_quote_sets_total Quote sets emitted$/m);
    expect(sample(text, 'perpbot_strategy_quote_sets_total', { account: 'main', strategy: 'mm-btc' })).toBe(3);
    expect(sample(text, 'perpbot_strategy_quote_sets_total', { account: 'other', strategy: 'mm-eth' })).toBe(1);
    expect(sample(text, 'perpbot_strategy_inventory_ratio', { side: 'buy', account: 'main', strategy: 'mm-btc' })).toBe(0.5);
    expect(sample(text, 'perpbot_strategy_decide_seconds_bucket', { le: '0.01', strategy: 'mm-btc' })).toBe(1);
  });

  it('refuses the daemon labels, the daemon metric names and a second declaration that differs; bounds the series', async () => {
    const m = createMetrics();
    const backends = new RegistryMetricBackends(m.registry);
    const warnings: string[] = [];
    const a = backends.forStrategy('main', 'a', { ...silentStrategyLogger, warn: (_f, msg) => void warnings.push(msg) });
    const b = backends.forStrategy('main', 'b', silentStrategyLogger);
    expect(() => a.counter('x_total', { labelNames: ['account'] })).toThrow('metric x_total: label account is added by the daemon; choose another name');
    expect(() => a.gauge('running')).toThrow("metric running: perpbot_strategy_running is one of the daemon's own metrics; choose another name");
    a.counter('orders_total', { labelNames: ['side'] });
    expect(() => b.gauge('orders_total', { labelNames: ['side'] })).toThrow(/metric orders_total: already a counter with labels \[side\]/);
    const levels = a.gauge('level_size', { labelNames: ['level'] });
    for (let i = 0; i <= MAX_SERIES_PER_METRIC; i++) levels.set(i, { level: String(i) });
    expect(warnings).toEqual(['metric has too many label combinations; new ones are dropped']);
    expect(sample(await m.text(), 'perpbot_strategy_level_size', { level: String(MAX_SERIES_PER_METRIC) })).toBeUndefined();
  });
});
