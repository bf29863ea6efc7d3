import { Counter, register as globalRegistry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecutionMetrics } from '../../../src/execution/metrics.js';
import { createMetrics } from '../../../src/telemetry/metrics.js';

const PERPBOT_METRICS = [
  'perpbot_tick_to_trade_seconds',
  'perpbot_order_ack_seconds',
  'perpbot_order_events_total',
  'perpbot_submits_total',
  'perpbot_batch_items',
  'perpbot_risk_denials_total',
  'perpbot_ws_reconnects_total',
  'perpbot_ws_frames_invalid_total',
  'perpbot_ws_topics_refused_total',
  'perpbot_stream_stale_topics',
  'perpbot_http_rate_limited_total',
  'perpbot_http_answers_invalid_total',
  'perpbot_stream_data_age_seconds',
  'perpbot_book_updates_total',
  'perpbot_position_base',
  'perpbot_position_notional_usd',
  'perpbot_pnl_usd',
  'perpbot_fills_total',
  'perpbot_open_orders',
  'perpbot_equity_usd',
  'perpbot_margin_used_usd',
  'perpbot_margin_available_usd',
  'perpbot_daily_pnl_usd',
  'perpbot_daily_loss_limit_usd',
  'perpbot_trading_state',
  'perpbot_up',
  'perpbot_ready',
  'perpbot_strategy_running',
  'perpbot_strategy_failures_total',
  'perpbot_strategy_all_denied_seconds',
  'perpbot_signatures_total',
  'perpbot_signing_commitments',
];

/** `name{labels} value` of one sample line, or undefined when the text has none. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

afterEach(() => globalRegistry.clear());

describe('createMetrics', () => {
  it('exports the default process and Node.js metrics unprefixed and every perpbot metric with help and type', async () => {
    const text = await createMetrics().text();
    for (const name of ['process_resident_memory_bytes', 'process_cpu_seconds_total', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    }
    for (const name of PERPBOT_METRICS) {
      expect(text).toMatch(new RegExp(`^# HELP ${name} \\S`, 'm'));
      expect(text).toMatch(new RegExp(`^# TYPE ${name} (counter|gauge|histogram)$`, 'm'));
    }
    const names = [...text.matchAll(/^# TYPE (perpbot_\w+)/gm)].map((m) => m[1]);
    expect(names.sort()).toEqual([...PERPBOT_METRICS].sort());
  });

  it('uses its own registry: nothing from the global registry is exported, and two instances are independent', async () => {
    new Counter({ name: 'perpbot_global_only_total', help: 'registered globally' }).inc();
    const a = createMetrics();
    const b = createMetrics();
    a.wsReconnects.inc();
    expect(await a.text()).not.toContain('perpbot_global_only_total');
    expect(sample(await a.text(), 'perpbot_ws_reconnects_total')).toBe(1);
    expect(sample(await b.text(), 'perpbot_ws_reconnects_total')).toBe(0);
    expect(await globalRegistry.metrics()).not.toContain('perpbot_ws_reconnects_total');
  });

  it('serves as execution metric hooks with execution label names', async () => {
    const m = createMetrics();
    const hooks: ExecutionMetrics = m;
    hooks.orderEvents?.inc({ status: 'filled' });
    hooks.submitOutcomes?.inc({ outcome: 'rejected' }, 2);
    hooks.denials?.inc({ reason: 'MAX_POSITION' });
    hooks.batchItems?.observe(3);
    hooks.batchItems?.observe(1);
    hooks.ackLatencySeconds?.observe(0.0042);
    hooks.tickToTradeSeconds?.observe(30e-6);
    const text = await m.text();
    expect(sample(text, 'perpbot_order_events_total{status="filled"}')).toBe(1);
    expect(sample(text, 'perpbot_submits_total{outcome="rejected"}')).toBe(2);
    expect(sample(text, 'perpbot_risk_denials_total{reason="MAX_POSITION"}')).toBe(1);
    expect(sample(text, 'perpbot_batch_items_count')).toBe(2);
    expect(sample(text, 'perpbot_batch_items_sum')).toBe(4);
    expect(sample(text, 'perpbot_order_ack_seconds_bucket{le="0.005"}')).toBe(1);
    expect(sample(text, 'perpbot_order_ack_seconds_bucket{le="0.0025"}')).toBe(0);
    expect(sample(text, 'perpbot_tick_to_trade_seconds_bucket{le="0.000025"}')).toBe(0);
    expect(sample(text, 'perpbot_tick_to_trade_seconds_bucket{le="0.00005"}')).toBe(1);
  });

  it('has histogram buckets from 25 µs to 100 ms (tick-to-trade) and 100 µs to 10 s (ack)', async () => {
    const text = await createMetrics().text();
    const bounds = (name: string) => [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\}`, 'gm'))].map((m) => m[1]);
    expect(bounds('perpbot_tick_to_trade_seconds').slice(0, 1)).toEqual(['0.000025']);
    expect(bounds('perpbot_tick_to_trade_seconds').slice(-2)).toEqual(['0.1', '+Inf']);
    expect(bounds('perpbot_order_ack_seconds').slice(0, 1)).toEqual(['0.0001']);
    expect(bounds('perpbot_order_ack_seconds').slice(-2)).toEqual(['10', '+Inf']);
  });

  it('starts order statuses and submit outcomes at zero so rates see their first event', async () => {
    const text = await createMetrics().text();
    for (const status of ['placed', 'filled', 'rejectedInvalid', 'pendingNew', 'unknown']) {
      expect(sample(text, `perpbot_order_events_total{status="${status}"}`)).toBe(0);
    }
    for (const outcome of ['accepted', 'rejected', 'unknown']) expect(sample(text, `perpbot_submits_total{outcome="${outcome}"}`)).toBe(0);
  });

  it('setTradingState marks exactly the current state of each account with 1', async () => {
    const m = createMetrics();
    const states = async (account: string) => {
      const text = await m.text();
      return ['ACTIVE', 'REDUCING', 'HALTED'].map((s) => sample(text, `perpbot_trading_state{account="${account}",state="${s}"}`));
    };
    m.setTradingState('a', 'ACTIVE');
    m.setTradingState('b', 'ACTIVE');
    expect(await states('a')).toEqual([1, 0, 0]);
    m.setTradingState('a', 'REDUCING');
    expect(await states('a')).toEqual([0, 1, 0]);
    m.setTradingState('a', 'HALTED');
    expect(await states('a')).toEqual([0, 0, 1]);
    expect(await states('b')).toEqual([1, 0, 0]);
  });

  it('runs onCollect callbacks before every scrape, so gauges read state lazily', async () => {
    const m = createMetrics();
    let openOrders = 3;
    let calls = 0;
    m.onCollect(() => {
      calls++;
      m.openOrders.set({ account: 'main' }, openOrders);
    });
    m.onCollect(() => m.streamDataAgeSeconds.set({ topic: 'l2book:BTC-USD' }, calls * 0.5));
    expect(calls).toBe(0);
    expect(sample(await m.text(), 'perpbot_open_orders{account="main"}')).toBe(3);
    openOrders = 7;
    const text = await m.text();
    expect(calls).toBe(2);
    expect(sample(text, 'perpbot_open_orders{account="main"}')).toBe(7);
    expect(sample(text, 'perpbot_stream_data_age_seconds{topic="l2book:BTC-USD"}')).toBe(1);
  });

  it('exposes the Prometheus text content type', () => {
    expect(createMetrics().contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });
});
