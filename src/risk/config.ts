// Risk limits: the validated `risk:` section of the daemon config, with every default in one place.
// Invariants: units are in every key name; a parsed config is complete (defaults applied) and frozen.

import { parse, array, number, object, optional, record, string, transform, type Infer, type Schema } from '../core/schema.js';
import { symbolSchema } from '../core/types.js';

const STRICT = { strict: true } as const;
const positive = () => number({ gt: 0 });
const count = (min: number) => number({ integer: true, min });
const perSymbol = () => record(positive(), { key: symbolSchema, maxKeys: 1000 });

const rateSchema = object({ perSecond: positive(), burst: count(1) }, STRICT);

/** A token bucket: `perSecond` sustained, at most `burst` at once (bucket size). */
export type RateConfig = Infer<typeof rateSchema>;

/**
 * The `risk:` section as written in YAML (every key optional; defaults in RISK_DEFAULTS).
 * Comparisons are inclusive: a value equal to its limit passes.
 */
export const riskConfigInputSchema = object(
  {
    /** Largest order, base units, for symbols not in `maxOrderSizeBaseBySymbol`. Default: no base-unit limit. */
    maxOrderSizeBase: optional(positive()),
    /** Per-symbol largest order, base units (overrides `maxOrderSizeBase`). Default: {}. */
    maxOrderSizeBaseBySymbol: optional(perSymbol()),
    /** Largest order notional (size × limit price, or × mark for a market order), USD. Default 1000. */
    maxOrderNotionalUsd: optional(positive()),
    /**
     * Largest worst-case position of one symbol, USD at mark: |position + same-side open orders + order|.
     * Only checked for orders that grow it. Default 5000.
     */
    maxPositionNotionalUsd: optional(positive()),
    /** Per-symbol override of `maxPositionNotionalUsd`, USD. Default: {}. */
    maxPositionNotionalUsdBySymbol: optional(perSymbol()),
    /** Largest sum of every symbol's worst-case position, USD at mark. Default 10000. */
    maxTotalPositionNotionalUsd: optional(positive()),
    /** Limit prices must lie within this distance of the mark, basis points of the mark. Default 500 (5 %). */
    priceBandBps: optional(positive()),
    /** Largest number of open plus pending orders, all symbols. Default 50. */
    maxOpenOrders: optional(count(1)),
    /** Places (token bucket). Default 10/s, burst 20. */
    orderRate: optional(rateSchema),
    /** Cancels: their own, larger bucket. Default 25/s, burst 50. */
    cancelRate: optional(rateSchema),
    /**
     * Cap on account leverage (total worst-case position notional / equity), on top of the order's market
     * maxLeverage (the lower of the two applies). Default 5.
     */
    maxLeverage: optional(positive()),
    /** Loss since the start of the UTC day beyond which the state becomes REDUCING (until the next UTC day or resume), USD. Default 500. */
    dailyLossLimitUsd: optional(positive()),
    /**
     * A loss beyond the limit latches REDUCING until the next UTC day only once it has lasted this long; a reading that
     * recovers sooner (equity read as 0 across a venue restart, then credited again) lifts REDUCING, ms. Default 10000.
     */
    dailyLossConfirmMs: optional(count(0)),
    /** Places computed from market data older than this are denied STALE_INPUT, ms. Default 5000. */
    staleInputBudgetMs: optional(count(0)),
    /** `count` venue rejections within `windowMs` set HALTED until resume. Default 10 within 60000 ms, ignoring rejectedCrossing (post-only). */
    repeatedRejects: optional(
      object(
        {
          count: count(1),
          windowMs: count(1),
          ignoreStatuses: optional(array(string({ minLength: 1, maxLength: 64 }), { maxLength: 64 })),
        },
        STRICT,
      ),
    ),
    /** A venue connection lost for this long sets HALTED until it is restored, ms. Default 10000. */
    disconnectGraceMs: optional(count(0)),
  },
  STRICT,
);
export type RiskConfigInput = Infer<typeof riskConfigInputSchema>;

/** A complete risk configuration (see riskConfigInputSchema for each key's meaning and units). */
export interface RiskConfig {
  readonly maxOrderSizeBase: number | undefined;
  readonly maxOrderSizeBaseBySymbol: Readonly<Record<string, number>>;
  readonly maxOrderNotionalUsd: number;
  readonly maxPositionNotionalUsd: number;
  readonly maxPositionNotionalUsdBySymbol: Readonly<Record<string, number>>;
  readonly maxTotalPositionNotionalUsd: number;
  readonly priceBandBps: number;
  readonly maxOpenOrders: number;
  readonly orderRate: RateConfig;
  readonly cancelRate: RateConfig;
  readonly maxLeverage: number;
  readonly dailyLossLimitUsd: number;
  readonly dailyLossConfirmMs: number;
  readonly staleInputBudgetMs: number;
  readonly repeatedRejects: { readonly count: number; readonly windowMs: number; readonly ignoreStatuses: readonly string[] };
  readonly disconnectGraceMs: number;
}

/** Defaults sized for a small paper-trading bot (about 1000 USD of collateral). */
export const RISK_DEFAULTS: RiskConfig = Object.freeze({
  maxOrderSizeBase: undefined,
  maxOrderSizeBaseBySymbol: Object.freeze({}),
  maxOrderNotionalUsd: 1_000,
  maxPositionNotionalUsd: 5_000,
  maxPositionNotionalUsdBySymbol: Object.freeze({}),
  maxTotalPositionNotionalUsd: 10_000,
  priceBandBps: 500,
  maxOpenOrders: 50,
  orderRate: Object.freeze({ perSecond: 10, burst: 20 }),
  cancelRate: Object.freeze({ perSecond: 25, burst: 50 }),
  maxLeverage: 5,
  dailyLossLimitUsd: 500,
  dailyLossConfirmMs: 10_000,
  staleInputBudgetMs: 5_000,
  repeatedRejects: Object.freeze({ count: 10, windowMs: 60_000, ignoreStatuses: Object.freeze(['rejectedCrossing']) }),
  disconnectGraceMs: 10_000,
});

/** `input` completed with RISK_DEFAULTS (keys given replace the default wholesale, maps included). */
export function withRiskDefaults(input: RiskConfigInput): RiskConfig {
  const d = RISK_DEFAULTS;
  const rejects = input.repeatedRejects;
  return Object.freeze({
    maxOrderSizeBase: input.maxOrderSizeBase ?? d.maxOrderSizeBase,
    maxOrderSizeBaseBySymbol: Object.freeze({ ...(input.maxOrderSizeBaseBySymbol ?? d.maxOrderSizeBaseBySymbol) }),
    maxOrderNotionalUsd: input.maxOrderNotionalUsd ?? d.maxOrderNotionalUsd,
    maxPositionNotionalUsd: input.maxPositionNotionalUsd ?? d.maxPositionNotionalUsd,
    maxPositionNotionalUsdBySymbol: Object.freeze({ ...(input.maxPositionNotionalUsdBySymbol ?? d.maxPositionNotionalUsdBySymbol) }),
    maxTotalPositionNotionalUsd: input.maxTotalPositionNotionalUsd ?? d.maxTotalPositionNotionalUsd,
    priceBandBps: input.priceBandBps ?? d.priceBandBps,
    maxOpenOrders: input.maxOpenOrders ?? d.maxOpenOrders,
    orderRate: Object.freeze({ ...(input.orderRate ?? d.orderRate) }),
    cancelRate: Object.freeze({ ...(input.cancelRate ?? d.cancelRate) }),
    maxLeverage: input.maxLeverage ?? d.maxLeverage,
    dailyLossLimitUsd: input.dailyLossLimitUsd ?? d.dailyLossLimitUsd,
    dailyLossConfirmMs: input.dailyLossConfirmMs ?? d.dailyLossConfirmMs,
    staleInputBudgetMs: input.staleInputBudgetMs ?? d.staleInputBudgetMs,
    repeatedRejects: Object.freeze(
      rejects
        ? { count: rejects.count, windowMs: rejects.windowMs, ignoreStatuses: Object.freeze([...(rejects.ignoreStatuses ?? d.repeatedRejects.ignoreStatuses)]) }
        : d.repeatedRejects,
    ),
    disconnectGraceMs: input.disconnectGraceMs ?? d.disconnectGraceMs,
  });
}

/** Validates the `risk:` section and applies the defaults (embed it in the daemon's config schema). */
export const riskConfigSchema: Schema<RiskConfig> = transform(riskConfigInputSchema, withRiskDefaults);

/** A complete config from a partial one (tests, programmatic use); throws ValidationError naming the bad key. */
export function riskConfig(input: unknown = {}): RiskConfig {
  return parse(riskConfigSchema, input, 'risk');
}
