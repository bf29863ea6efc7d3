import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.js';
import { object, optional, parse } from '../../../src/core/schema.js';
import { RISK_DEFAULTS, riskConfig, riskConfigSchema } from '../../../src/risk/config.js';

describe('risk config', () => {
  it('an empty section gives the documented defaults', () => {
    expect(riskConfig({})).toEqual(RISK_DEFAULTS);
    expect(RISK_DEFAULTS).toMatchObject({
      maxOrderNotionalUsd: 1_000,
      maxPositionNotionalUsd: 5_000,
      maxTotalPositionNotionalUsd: 10_000,
      priceBandBps: 500,
      maxOpenOrders: 50,
      orderRate: { perSecond: 10, burst: 20 },
      cancelRate: { perSecond: 25, burst: 50 },
      maxLeverage: 5,
      dailyLossLimitUsd: 500,
      staleInputBudgetMs: 5_000,
      repeatedRejects: { count: 10, windowMs: 60_000, ignoreStatuses: ['rejectedCrossing'] },
      disconnectGraceMs: 10_000,
    });
    expect(RISK_DEFAULTS.cancelRate.burst).toBeGreaterThan(RISK_DEFAULTS.orderRate.burst);
  });

  it('given keys replace defaults; the result is frozen', () => {
    const c = riskConfig({ maxOrderSizeBaseBySymbol: { 'BTC-USD': 0.01 }, repeatedRejects: { count: 3, windowMs: 1_000 } });
    expect(c.maxOrderSizeBaseBySymbol).toEqual({ 'BTC-USD': 0.01 });
    expect(c.repeatedRejects).toEqual({ count: 3, windowMs: 1_000, ignoreStatuses: ['rejectedCrossing'] });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('rejects unknown keys, bad symbols and out-of-range values, naming the key', () => {
    expect(() => riskConfig({ maxOrderNotional: 5 })).toThrow(ValidationError);
    expect(() => riskConfig({ maxOrderNotional: 5 })).toThrow('risk.maxOrderNotional: unknown field');
    expect(() => riskConfig({ maxOrderSizeBaseBySymbol: { btc: 1 } })).toThrow('risk.maxOrderSizeBaseBySymbol.btc');
    expect(() => riskConfig({ maxOpenOrders: 0 })).toThrow('risk.maxOpenOrders');
    expect(() => riskConfig({ orderRate: { perSecond: 0, burst: 1 } })).toThrow('risk.orderRate.perSecond');
    expect(() => riskConfig({ priceBandBps: -1 })).toThrow('risk.priceBandBps');
  });

  it('embeds in a larger config schema (the daemon) and applies defaults there', () => {
    const daemon = object({ risk: optional(riskConfigSchema) }, { strict: true });
    const parsed = parse(daemon, { risk: { maxOpenOrders: 7 } });
    expect(parsed.risk?.maxOpenOrders).toBe(7);
    expect(parsed.risk?.dailyLossLimitUsd).toBe(500);
    expect(() => parse(daemon, { risk: { maxOpenOrders: 'x' } })).toThrow('risk.maxOpenOrders');
  });
});
