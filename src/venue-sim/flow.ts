// Synthetic participants that make the local venue a live market: a reference price (random walk
// with occasional jumps) fed to the oracle, liquidity providers quoting depthUsd a side around it, and takers.
// Invariant: for a given seed the sequence of actions is identical; all randomness comes from one PRNG.

import { ConfigError } from '../core/errors.js';
import { sha256Base58 } from '../protocol/hash.js';
import type { Engine, MarketInfo, OrderActionItem } from './engine/index.js';
import { Prng } from './engine/ids.js';
import { roundToStep } from './decimals.js';

export interface FlowOptions {
  seed: number;
  /** Starting reference price per symbol, USD (default: BTC 97 000, ETH 3 500, SOL 180, else 100). */
  startPrices?: Record<string, number>;
  /** Liquidity providers per market. Default 2. */
  makers?: number;
  /** Price levels each provider quotes per side. Default 5. */
  levels?: number;
  /**
   * Notional each side of a market's book holds, over all providers and levels, USD: each order is worth
   * depthUsd / (makers × levels) on average (0.5 to 1.5 times that, at least the minimum notional). Default 1 000 000.
   */
  depthUsd?: number;
  /** Distance between a provider's price levels, bps (at least one tick). Default 2. */
  levelSpacingBps?: number;
  /** Standard deviation of the reference's log return per step. Default 0.0004. */
  volatility?: number;
  /** Probability of a jump per step, and the jump's standard deviation. Defaults 0.002 and 0.004. */
  jumpProbability?: number;
  jumpVolatility?: number;
  /** Probability that a taker trades in a step. Default 0.35. */
  takerProbability?: number;
  /** Collateral each synthetic account receives, USD. Default 100 000 000. */
  collateralUsd?: number;
}

const START_PRICES: Record<string, number> = { 'BTC-USD': 97_000, 'ETH-USD': 3_500, 'SOL-USD': 180 };

/** A stable public-key-shaped identity for a synthetic participant. */
export function flowAccount(role: string, index: number): string {
  return sha256Base58(new TextEncoder().encode(`perpbot-flow/${role}/${index}`));
}

interface MarketFlowState {
  readonly info: MarketInfo;
  ref: number;
  /** the oracle price this flow last published (0 before the first) */
  published: number;
  readonly makers: string[];
  readonly taker: string;
  takerPosition: number;
}

export class MarketFlow {
  private readonly rng: Prng;
  private readonly markets: MarketFlowState[];
  private readonly o: Required<Omit<FlowOptions, 'startPrices'>>;

  constructor(
    private readonly engine: Engine,
    opts: FlowOptions,
  ) {
    this.rng = new Prng(opts.seed);
    this.o = {
      seed: opts.seed,
      makers: opts.makers ?? 2,
      levels: opts.levels ?? 5,
      depthUsd: opts.depthUsd ?? 1_000_000,
      levelSpacingBps: opts.levelSpacingBps ?? 2,
      volatility: opts.volatility ?? 0.0004,
      jumpProbability: opts.jumpProbability ?? 0.002,
      jumpVolatility: opts.jumpVolatility ?? 0.004,
      takerProbability: opts.takerProbability ?? 0.35,
      collateralUsd: opts.collateralUsd ?? 100_000_000,
    };
    for (const key of ['makers', 'levels', 'depthUsd', 'levelSpacingBps'] as const) {
      const v = this.o[key];
      if (!(Number.isFinite(v) && v > 0)) throw new ConfigError(`flow.${key}`, `must be a positive number, got ${v}`);
    }
    this.markets = engine.markets().map((info, i) => ({
      info,
      ref: opts.startPrices?.[info.symbol] ?? START_PRICES[info.symbol] ?? 100,
      published: 0,
      makers: Array.from({ length: this.o.makers }, (_, k) => flowAccount('maker', i * 100 + k)),
      taker: flowAccount('taker', i),
      takerPosition: 0,
    }));
    for (const m of this.markets) for (const a of [...m.makers, m.taker]) engine.faucet(a, this.o.collateralUsd);
  }

  /** The current reference price of `symbol` (USD), or undefined for an unknown symbol. */
  reference(symbol: string): number | undefined {
    return this.markets.find((m) => m.info.symbol === symbol)?.ref;
  }

  /** One round: move each reference price, publish it as the oracle price, requote, maybe trade. */
  step(): void {
    for (const m of this.markets) {
      // another oracle source moved the price: follow it (publishing the old reference could leave the oracle band)
      const oracle = this.engine.marketState(m.info.symbol)!.oraclePrice;
      if (oracle > 0 && oracle !== m.published) m.ref = oracle;
      this.move(m);
      m.published = this.roundTick(m.info, m.ref);
      this.engine.setOraclePrice(m.info.symbol, m.published);
      for (const maker of m.makers) if (this.uniform() < 0.5) this.quote(m, maker);
      if (this.uniform() < this.o.takerProbability) this.take(m);
    }
  }

  private move(m: MarketFlowState): void {
    let r = this.o.volatility * this.gaussian();
    if (this.uniform() < this.o.jumpProbability) r += this.o.jumpVolatility * this.gaussian();
    m.ref *= Math.exp(r);
  }

  private quote(m: MarketFlowState, maker: string): void {
    const { info } = m;
    const items: OrderActionItem[] = [{ cancelAll: { c: [info.symbol] } }];
    const halfSpread = 2 * info.tickSize + m.ref * 0.0001 * (1 + this.uniform());
    const spacing = Math.max(info.tickSize, (m.ref * this.o.levelSpacingBps) / 10_000);
    const orderUsd = this.o.depthUsd / (this.o.makers * this.o.levels);
    for (let i = 0; i < this.o.levels; i++) {
      const offset = halfSpread + i * spacing;
      items.push(this.limit(info, true, this.floorTick(info, m.ref - offset), orderUsd));
      items.push(this.limit(info, false, this.ceilTick(info, m.ref + offset), orderUsd));
    }
    this.engine.applyOrderAction(maker, items);
  }

  private limit(info: MarketInfo, isBuy: boolean, px: number, meanUsd: number): OrderActionItem {
    return { order: { c: info.symbol, b: isBuy, px, sz: this.size(info, px, meanUsd * (0.5 + this.uniform())), r: false, t: { limit: { tif: 'GTC' } } } };
  }

  private take(m: MarketFlowState): void {
    const { info } = m;
    const limitLots = 20;
    const buyProbability = 0.5 - 0.4 * Math.tanh(m.takerPosition / limitLots);
    const isBuy = this.uniform() < buyProbability;
    const px = this.roundTick(info, m.ref);
    const sz = this.size(info, px, info.minNotional * (1 + 2 * this.uniform()));
    const { statuses } = this.engine.applyOrderAction(m.taker, [
      { order: { c: info.symbol, b: isBuy, px: 0, sz, r: false, t: { trigger: { is_market: true, triggerPx: 0 } } } },
    ]);
    const s = statuses[0];
    const filled = s && 'filled' in s ? s.filled.totalSz : s && 'partiallyFilled' in s ? s.partiallyFilled.totalSz : 0;
    m.takerPosition += (isBuy ? filled : -filled) / (sz || 1);
  }

  /** A size on the lot grid worth about `usd` (at least the minimum notional) at `px`. */
  private size(info: MarketInfo, px: number, usd: number): number {
    const lots = Math.max(1, Math.ceil(Math.max(usd, info.minNotional) / (px * info.lotSize)));
    return roundToStep(lots * info.lotSize, info.lotSize);
  }

  private roundTick(info: MarketInfo, px: number): number {
    return roundToStep(Math.max(info.tickSize, Math.round(px / info.tickSize) * info.tickSize), info.tickSize);
  }

  private floorTick(info: MarketInfo, px: number): number {
    return roundToStep(Math.max(info.tickSize, Math.floor(px / info.tickSize) * info.tickSize), info.tickSize);
  }

  private ceilTick(info: MarketInfo, px: number): number {
    return roundToStep(Math.ceil(px / info.tickSize) * info.tickSize, info.tickSize);
  }

  private uniform(): number {
    return this.rng.nextU32() / 4294967296;
  }

  private gaussian(): number {
    const u = 1 - this.uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.uniform());
  }
}
