// The local venue's YAML settings (the `perpbot venue --config` file, and the daemon's `venue:`
// section): schema, defaults and the mapping to VenueOptions. Invariant: units are in every key name.

import { array, literal, number, object, optional, string, union, type Infer } from '../core/schema.js';
import { symbolSchema } from '../core/types.js';
import { curvePublicKey32 } from '../protocol/pubkey.js';
import type { MarketConfig } from '../venue-sim/engine/index.js';
import type { BlockRecord, VenueOptions } from '../venue-sim/server/index.js';

const STRICT = { strict: true } as const;
const positive = () => number({ gt: 0 });
const fraction = () => number({ min: 0, max: 1 });

const marketSchema = object(
  {
    symbol: symbolSchema,
    tickSize: positive(),
    lotSize: positive(),
    minNotionalUsd: number({ min: 0 }),
    maxLeverage: number({ min: 1, max: 50 }),
    makerFeeRate: number({ min: -0.01, max: 0.01 }),
    takerFeeRate: number({ min: 0, max: 0.01 }),
    initialMarginFraction: fraction(),
    maintenanceMarginFraction: fraction(),
    fundingIntervalSeconds: number({ integer: true, min: 1 }),
  },
  STRICT,
);

const flowSchema = object(
  {
    makers: optional(number({ integer: true, min: 1, max: 20 })),
    levels: optional(number({ integer: true, min: 1, max: 50 })),
    depthUsd: optional(number({ gt: 0, max: 1e9 })),
    levelSpacingBps: optional(number({ gt: 0, max: 1000 })),
    volatility: optional(number({ min: 0, max: 0.1 })),
    jumpProbability: optional(fraction()),
    jumpVolatility: optional(number({ min: 0, max: 0.5 })),
    takerProbability: optional(fraction()),
    collateralUsd: optional(positive()),
    intervalMs: optional(number({ integer: true, min: 10 })),
  },
  STRICT,
);

export const venueConfigSchema = object(
  {
    host: optional(string({ maxLength: 255, minLength: 1 })),
    port: optional(number({ integer: true, min: 0, max: 65535 })),
    seed: optional(number({ integer: true, min: 0, max: 2 ** 32 - 1 })),
    flow: optional(union([literal(false, true), flowSchema])),
    tickIntervalMs: optional(number({ integer: true, min: 10 })),
    blockMs: optional(number({ integer: true, min: 0, max: 10_000 })),
    markets: optional(array(marketSchema, { minLength: 1, maxLength: 200 })),
    oracleKeys: optional(array(curvePublicKey32(), { maxLength: 100 })),
    rateLimit: optional(object({ perSecond: positive(), burst: optional(number({ integer: true, min: 1 })) }, STRICT)),
    maxBodyBytes: optional(number({ integer: true, min: 1024, max: 64 * 1024 * 1024 })),
    maxBatchItems: optional(number({ integer: true, min: 1, max: 10_000 })),
    faucetDefaultUsd: optional(positive()),
    historyLimit: optional(number({ integer: true, min: 1, max: 1_000_000 })),
    maxOpenOrdersPerAccount: optional(number({ integer: true, min: 1, max: 1_000_000 })),
    maxWaitingQueries: optional(number({ integer: true, min: 1, max: 100_000 })),
    wsMaxBufferedBytes: optional(number({ integer: true, min: 64 * 1024, max: 1024 * 1024 * 1024 })),
    oracleMaxMove: optional(number({ gt: 0, max: 1e6 })),
    oracleMaxSkewSeconds: optional(number({ integer: true, min: 1, max: 86_400 })),
  },
  STRICT,
);
export type VenueConfig = Infer<typeof venueConfigSchema>;

function market(m: Infer<typeof marketSchema>): MarketConfig {
  const { fundingIntervalSeconds, ...rest } = m;
  return { ...rest, fundingIntervalNs: BigInt(fundingIntervalSeconds) * 1_000_000_000n };
}

/** One line describing a current-generation block: its timestamp, the shuffle seed and the execution order (replayable). */
export function blockLine(b: BlockRecord): string {
  const txs = b.transactions.map((t) => `${t.account.slice(0, 8)}@${t.nonce}`).join(' ');
  return `block ${b.timestampNs} seed ${b.seed}: ${b.transactions.length} transactions [${txs}], order ${b.order.map(([t, a]) => `${t}.${a}`).join(' ')}`;
}

/** VenueOptions from a validated config (command-line overrides are applied by the caller). */
export function venueOptions(c: VenueConfig): VenueOptions {
  const flow = c.flow === undefined || c.flow === true ? true : c.flow === false ? false : (({ intervalMs: _i, ...f }) => f)(c.flow);
  return {
    ...(c.host !== undefined && { host: c.host }),
    ...(c.port !== undefined && { port: c.port }),
    ...(c.seed !== undefined && { seed: c.seed }),
    flow,
    ...(typeof c.flow === 'object' && c.flow.intervalMs !== undefined && { flowIntervalMs: c.flow.intervalMs }),
    ...(c.tickIntervalMs !== undefined && { tickIntervalMs: c.tickIntervalMs }),
    ...(c.blockMs !== undefined && { blockMs: c.blockMs }),
    ...(c.markets && { markets: c.markets.map(market) }),
    ...(c.oracleKeys && { oracleKeys: c.oracleKeys }),
    ...(c.rateLimit && { rateLimit: c.rateLimit }),
    ...(c.maxBodyBytes !== undefined && { maxBodyBytes: c.maxBodyBytes }),
    ...(c.maxBatchItems !== undefined && { maxBatchItems: c.maxBatchItems }),
    ...(c.maxWaitingQueries !== undefined && { maxWaitingQueries: c.maxWaitingQueries }),
    ...(c.wsMaxBufferedBytes !== undefined && { ws: { maxBufferedBytes: c.wsMaxBufferedBytes } }),
    engine: {
      ...(c.faucetDefaultUsd !== undefined && { faucetDefaultUsd: c.faucetDefaultUsd }),
      ...(c.historyLimit !== undefined && { historyLimit: c.historyLimit }),
      ...(c.maxBatchItems !== undefined && { maxBatchItems: c.maxBatchItems }),
      ...(c.maxOpenOrdersPerAccount !== undefined && { maxOpenOrdersPerAccount: c.maxOpenOrdersPerAccount }),
      ...(c.oracleMaxMove !== undefined && { oracleMaxMove: c.oracleMaxMove }),
      ...(c.oracleMaxSkewSeconds !== undefined && { oracleMaxSkewNs: BigInt(c.oracleMaxSkewSeconds) * 1_000_000_000n }),
    },
  };
}
