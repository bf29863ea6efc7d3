// Market configuration: the default listing and the compiled per-market state (its tick and lot are Steps, see steps.ts).
// Invariant: every price inside the engine is an integer count of ticks and every size an integer count of lots.

import { ConfigError } from '../../core/errors.js';
import { SYMBOL_PATTERN } from '../../core/types.js';
import { BookSide } from './book.js';
import type { Account, BookSide as BookSideShape, Market as MarketShape, Order } from './model.js';
import { MAX_COUNT, Step } from './steps.js';
import type { MarketConfig, MarketInfo } from './types.js';

export const HOUR_NS = 3_600_000_000_000n;

/** BTC-USD, ETH-USD and SOL-USD with realistic steps; fees are the venue's base tier (2 / 3.5 bps). */
export const DEFAULT_MARKETS: readonly MarketConfig[] = [
  market('BTC-USD', 0.1, 0.0001, 50),
  market('ETH-USD', 0.01, 0.001, 25),
  market('SOL-USD', 0.001, 0.01, 20),
];

function market(symbol: string, tickSize: number, lotSize: number, maxLeverage: number): MarketConfig {
  return {
    symbol,
    tickSize,
    lotSize,
    minNotionalUsd: 10,
    maxLeverage,
    makerFeeRate: 0.0002,
    takerFeeRate: 0.00035,
    initialMarginFraction: 1 / maxLeverage,
    maintenanceMarginFraction: 1 / maxLeverage / 2,
    fundingIntervalNs: HOUR_NS,
  };
}

export class Market implements MarketShape {
  readonly symbol: string;
  readonly tick: Step;
  readonly lot: Step;
  /** quote units per (tick × lot) */
  readonly unitsPerTickLot: number;
  /** the same, for exact ledger arithmetic */
  readonly unitsPerTickLotBig: bigint;
  readonly bids: BookSideShape = new BookSide(true);
  readonly asks: BookSideShape = new BookSide(false);
  /** parked trigger orders, in placement order */
  readonly triggers = new Set<Order>();
  /** accounts with a non-zero position here, in the order they opened */
  readonly holders = new Set<Account>();
  readonly initialMarginFraction: number;
  readonly maintenanceMarginFraction: number;
  readonly maxLeverage: number;
  readonly defaultLeverage: number;
  readonly makerFeeRate: number;
  readonly takerFeeRate: number;
  readonly minNotionalUsd: number;
  readonly maxFundingRate: number;
  readonly fundingIntervalNs: bigint;
  oraclePx = 0;
  oracleNs = 0n;
  lastTradeTicks = 0;
  volumeLots = 0;
  openInterestLots = 0;
  nextFundingNs = 0n;
  premiumSum = 0;
  premiumSamples = 0;
  lastFundingRate = 0;

  constructor(
    readonly config: MarketConfig,
    readonly index: number,
    quoteScale: number,
  ) {
    const key = `markets[${index}]`;
    if (!SYMBOL_PATTERN.test(config.symbol)) throw new ConfigError(`${key}.symbol`, `expected <BASE>-USD, got ${JSON.stringify(config.symbol)}`);
    this.symbol = config.symbol;
    this.tick = new Step(config.tickSize, `${key}.tickSize`);
    this.lot = new Step(config.lotSize, `${key}.lotSize`);
    this.unitsPerTickLot = (this.tick.mantissa * this.lot.mantissa * quoteScale) / (this.tick.scale * this.lot.scale);
    if (!Number.isInteger(this.unitsPerTickLot)) throw new ConfigError(key, 'tick × lot is finer than the quote unit');
    this.unitsPerTickLotBig = BigInt(this.unitsPerTickLot);
    const fin = (name: keyof MarketConfig, v: number, lo: number, hi: number): number => {
      if (!Number.isFinite(v) || v < lo || v > hi) throw new ConfigError(`${key}.${name}`, `must lie in [${lo}, ${hi}], got ${v}`);
      return v;
    };
    this.maxLeverage = fin('maxLeverage', config.maxLeverage, 1, 50);
    this.defaultLeverage = fin('defaultLeverage', config.defaultLeverage ?? Math.min(10, this.maxLeverage), 1, this.maxLeverage);
    this.initialMarginFraction = fin('initialMarginFraction', config.initialMarginFraction, 0, 1);
    this.maintenanceMarginFraction = fin('maintenanceMarginFraction', config.maintenanceMarginFraction, 0, 1);
    this.makerFeeRate = fin('makerFeeRate', config.makerFeeRate, -0.01, 0.01);
    this.takerFeeRate = fin('takerFeeRate', config.takerFeeRate, 0, 0.01);
    if (this.makerFeeRate + this.takerFeeRate < 0) throw new ConfigError(`${key}.makerFeeRate`, 'maker rebate exceeds the taker fee');
    this.minNotionalUsd = fin('minNotionalUsd', config.minNotionalUsd, 0, 1e9);
    this.maxFundingRate = fin('maxFundingRate', config.maxFundingRate ?? 0.01, 0, 1);
    if (typeof config.fundingIntervalNs !== 'bigint' || config.fundingIntervalNs < 1_000_000_000n) {
      throw new ConfigError(`${key}.fundingIntervalNs`, 'must be a bigint of at least 1 s');
    }
    this.fundingIntervalNs = config.fundingIntervalNs;
  }

  /** Decimal places of tick × lot: the quote unit must be at least this fine. */
  static quoteDecimalsNeeded(config: MarketConfig): number {
    return new Step(config.tickSize, 'tickSize').decimals + new Step(config.lotSize, 'lotSize').decimals;
  }

  price(ticks: number): number {
    return (ticks * this.tick.mantissa) / this.tick.scale;
  }

  size(lots: number): number {
    return (lots * this.lot.mantissa) / this.lot.scale;
  }

  /** Average price of `value` (Σ ticks × lots) over `lots`, as the nearest double. */
  avgPrice(value: number, lots: number): number {
    return lots === 0 ? 0 : (value * this.tick.mantissa) / (lots * this.tick.scale);
  }

  midPrice(): number {
    const b = this.bids.best();
    const a = this.asks.best();
    return b && a ? this.price(b.priceTicks + a.priceTicks) / 2 : 0;
  }

  /** Oracle price, else book mid, else last trade, else the one best price there is, else 0 (USD). */
  markPrice(): number {
    if (this.oraclePx > 0) return this.oraclePx;
    const b = this.bids.best();
    const a = this.asks.best();
    if (b && a) return this.price(b.priceTicks + a.priceTicks) / 2;
    if (this.lastTradeTicks > 0) return this.price(this.lastTradeTicks);
    if (b) return this.price(b.priceTicks);
    if (a) return this.price(a.priceTicks);
    return 0;
  }

  /**
   * Why `price` (USD) cannot be this market's next oracle price, or undefined when it can: it must lie in
   * [one tick, MAX_COUNT ticks] and, once an oracle price is set, within a factor 1 + `maxMove` of it.
   */
  oracleProblem(price: number, maxMove: number): string | undefined {
    const lo = this.tick.value;
    const hi = this.price(MAX_COUNT);
    if (typeof price !== 'number' || !(price >= lo && price <= hi)) return `${this.symbol} oracle price must be a number in [${lo}, ${hi}], got ${price}`;
    const old = this.oraclePx;
    if (old > 0 && (price > old * (1 + maxMove) || price * (1 + maxMove) < old)) {
      return `${this.symbol} oracle price ${price} moves more than oracleMaxMove (${maxMove}, a factor ${1 + maxMove}) from ${old}`;
    }
    return undefined;
  }

  info(): MarketInfo {
    return {
      symbol: this.symbol,
      tickSize: this.tick.value,
      lotSize: this.lot.value,
      minNotional: this.minNotionalUsd,
      maxLeverage: this.maxLeverage,
      makerFeeRate: this.makerFeeRate,
      takerFeeRate: this.takerFeeRate,
      initialMarginFraction: this.initialMarginFraction,
      maintenanceMarginFraction: this.maintenanceMarginFraction,
      fundingIntervalNs: this.fundingIntervalNs,
    };
  }
}
