// The daemon config's `backtest:` section: the exchange models, the account's starting collateral when the config gives
// none, the equity sampling interval and the market terms a recording may lack. Invariant: every key has a default, so
// a daemon config without the section backtests as it is.

import { literal, nullable, number, object, optional, parse, string, tagged, transform, withDefault, type Infer, type Schema } from '../core/schema.js';

const STRICT = { strict: true } as const;
const ms = number({ min: 0, max: 3_600_000 });

const latencyVariants = {
  constant: object({ model: literal('constant'), ms }, STRICT),
  uniform: object({ model: literal('uniform'), minMs: ms, maxMs: ms }, STRICT),
  normal: object({ model: literal('normal'), meanMs: ms, stdMs: ms }, STRICT),
  lognormal: object({ model: literal('lognormal'), medianMs: ms, sigma: number({ min: 0, max: 10 }) }, STRICT),
};
const journalLatency = object(
  { model: literal('journal'), path: string({ minLength: 1, maxLength: 4096 }), share: withDefault(number({ min: 0, max: 1 }), 0.5) },
  STRICT,
);
const latencySchema = tagged('model', { ...latencyVariants, journal: journalLatency });
const feedLatencySchema = tagged('model', { ...latencyVariants, recorded: object({ model: literal('recorded') }, STRICT) });
const queueSchema = tagged('model', {
  riskAverse: object({ model: literal('riskAverse') }, STRICT),
  power: object({ model: literal('power'), power: number({ gt: 0, max: 10 }) }, STRICT),
  log: object({ model: literal('log') }, STRICT),
});

function defaulted<T>(s: Schema<T>): Schema<T> {
  return transform(optional(nullable(s)), (v) => v ?? parse(s, {}));
}

export const backtestConfigSchema = defaulted(
  object(
    {
      /** Starting collateral, USD, when the traded account has no faucetUsd. Default 100000. */
      collateralUsd: withDefault(number({ gt: 0, max: 1e12 }), 100_000),
      queue: withDefault(queueSchema, { model: 'riskAverse' }),
      latency: defaulted(
        object(
          {
            feed: withDefault(feedLatencySchema, { model: 'recorded' }),
            entry: withDefault(latencySchema, { model: 'constant', ms: 1 }),
            response: withDefault(latencySchema, { model: 'constant', ms: 1 }),
          },
          STRICT,
        ),
      ),
      equityIntervalMs: withDefault(number({ integer: true, min: 1, max: 86_400_000 }), 60_000),
      makerFeeRate: withDefault(number({ min: -0.01, max: 0.01 }), 0.0002),
      takerFeeRate: withDefault(number({ min: 0, max: 0.01 }), 0.00035),
      fundingIntervalMs: withDefault(number({ integer: true, min: 1000, max: 7 * 86_400_000 }), 3_600_000),
    },
    STRICT,
  ),
);
export type BacktestConfig = Infer<typeof backtestConfigSchema>;
