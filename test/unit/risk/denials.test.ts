import { describe, expect, it } from 'vitest';
import { DenialCounter } from '../../../src/risk/denials.js';
import type { PlannedOp, RiskDecision } from '../../../src/risk/types.js';

const place = (strategy: string): PlannedOp => ({
  kind: 'place',
  strategy,
  order: { symbol: 'BTC-USD', side: 'buy', size: 0.001, price: 50_000, tif: 'GTC', reduceOnly: false },
  stamp: { dataTimeMs: 0, dataVersion: 0 },
});
const cancel = (strategy: string): PlannedOp => ({ kind: 'cancel', strategy, symbol: 'BTC-USD' });
const OK: RiskDecision = { ok: true };
const leverage: RiskDecision = { ok: false, reason: 'LEVERAGE', detail: 'equity unknown or not positive (0 USD)' };
const rate: RiskDecision = { ok: false, reason: 'CANCEL_RATE', detail: 'cancel rate limit reached' };

function setup() {
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const counter = new DenialCounter({
    logIntervalMs: 30_000,
    log: { warn: (fields, message) => void lines.push({ fields: fields as Record<string, unknown>, message }) },
  });
  return { counter, lines };
}

describe('DenialCounter', () => {
  it('logs the first denial of a reason at once, then at most one summary per strategy and reason per interval', () => {
    const { counter, lines } = setup();
    for (let t = 0; t < 12_000; t += 100) counter.record(place('mm'), leverage, 1_000 + t);
    expect(lines.map((l) => l.message)).toEqual(['risk denied 1 operation of strategy mm: LEVERAGE (equity unknown or not positive (0 USD))']);
    counter.flush(20_000);
    expect(lines).toHaveLength(1);
    counter.flush(31_000);
    expect(lines[1]).toEqual({
      fields: { strategy: 'mm', reason: 'LEVERAGE', denied: 119, deniedTotal: 120, windowS: 30, detail: 'equity unknown or not positive (0 USD)' },
      message: 'risk denied 119 operations of strategy mm in 30 s: LEVERAGE (equity unknown or not positive (0 USD))',
    });
    counter.flush(90_000);
    expect(lines).toHaveLength(2);
    counter.record(place('other'), leverage, 90_000);
    expect(lines.at(-1)!.fields).toMatchObject({ strategy: 'other', denied: 1 });
  });

  it('tracks since when every order was denied: an approved place ends it, cancels do not start it', () => {
    const { counter } = setup();
    counter.record(cancel('mm'), rate, 500);
    expect(counter.of('mm')).toMatchObject({ total: 1, byReason: { CANCEL_RATE: 1 }, allDeniedSinceMs: undefined });
    counter.record(place('mm'), leverage, 1_000);
    counter.record(place('mm'), leverage, 2_000);
    counter.record(cancel('mm'), OK, 2_500);
    expect(counter.of('mm')).toEqual({
      total: 3,
      byReason: { CANCEL_RATE: 1, LEVERAGE: 2 },
      allDeniedSinceMs: 1_000,
      lastDetail: { CANCEL_RATE: rate.detail, LEVERAGE: leverage.detail },
    });
    counter.record(place('mm'), OK, 3_000);
    expect(counter.of('mm').allDeniedSinceMs).toBeUndefined();
    expect(counter.of('quiet')).toEqual({ total: 0, byReason: {}, allDeniedSinceMs: undefined, lastDetail: {} });
  });
});
