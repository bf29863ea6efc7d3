// Venue engine façade: accounts, agents, faucet, leverage, oracle, order actions, schedules (funding,
// triggers, liquidation), queries and the event log. Pure, synchronous and deterministic for a seed and clock.

import { ConfigError, ValidationError } from '../../core/errors.js';
import { fundingRate, payFunding, samplePremium, type FundingParams } from './funding.js';
import { checkAccounts, liquidateQueued } from './liquidation.js';
import { conditionalInfo } from './book.js';
import { DEFAULT_MARKETS, Market } from './markets.js';
import { cancelAll, cancelOrder, fireTriggers, modifyOrder, placeOrder } from './matching.js';
import type { Account } from './model.js';
import { hashId } from './orderindex.js';
import * as q from './queries.js';
import { State } from './state.js';
import * as subs from './subaccounts.js';
import type { CreateSubAccountResult, RemoveSubAccountResult, RenameSubAccountResult, TransferResult } from './subaccounts.js';
import type {
  ConditionalInfo,
  AccountQueryResponse,
  AccountQueryType,
  AgentResult,
  BookSnapshot,
  ClosedPositionRow,
  EngineClock,
  EngineEvent,
  EngineOptions,
  FaucetResult,
  FillRow,
  FullAccountRow,
  ActivityRow,
  FundingPaymentRow,
  RiskRow,
  LedgerAudit,
  LeverageEntry,
  MarginSummary,
  MarketInfo,
  MarketState,
  OpenOrderRow,
  OracleResult,
  OraclePrice,
  OrderActionContext,
  OrderActionItem,
  OrderActionResult,
  OrderHistoryRow,
  ItemStatus,
  PositionUpdateEvent,
} from './types.js';

/** One place or cancel item's status (order ids missing from the action are generated from the seed). */
function applyItem(st: State, account: string, item: OrderActionItem, id: string | null | undefined): ItemStatus {
  if ('order' in item) return placeOrder(st, account, item.order, id ?? st.prng.nextId());
  if ('cancel' in item) return cancelOrder(st, account, item.cancel);
  if ('modify' in item) return modifyOrder(st, account, item.modify);
  return { error: { message: 'unknown order item' } };
}

export type LeverageResult = { settings: { maxLeverage: LeverageEntry[] } } | { error: { message: string } };

function positiveInt(key: string, v: number | undefined, dflt: number, min = 1): number {
  const x = v ?? dflt;
  if (!Number.isSafeInteger(x) || x < min) throw new ConfigError(key, `must be an integer ≥ ${min}, got ${x}`);
  return x;
}

function fraction(key: string, v: number | undefined, dflt: number): number {
  const x = v ?? dflt;
  if (!Number.isFinite(x) || x < 0 || x > 1) throw new ConfigError(key, `must lie in [0, 1], got ${x}`);
  return x;
}

export class Engine {
  private readonly st: State;
  private readonly clock: EngineClock;
  private readonly funding: FundingParams;
  private readonly faucetDefaultUsd: number;
  private readonly faucetMaxUsd: number;
  private readonly faucetCooldownNs: bigint;
  private readonly maxBatchItems: number;
  private readonly maxAgents: number;
  private readonly liquidationMaxSlippage: number;
  private readonly oracleMaxMove: number;
  private readonly oracleMaxSkewNs: bigint;
  private nextDueNs = 0n;

  /** Throws ConfigError on a bad option or market. */
  constructor(options: EngineOptions) {
    const configs = options.markets ?? DEFAULT_MARKETS;
    if (configs.length === 0) throw new ConfigError('markets', 'at least one market is required');
    const symbols = new Set<string>();
    let quoteDecimals = 6;
    configs.forEach((c, i) => {
      if (symbols.has(c.symbol)) throw new ConfigError(`markets[${i}].symbol`, `duplicate symbol ${c.symbol}`);
      symbols.add(c.symbol);
      quoteDecimals = Math.max(quoteDecimals, Market.quoteDecimalsNeeded(c));
    });
    if (quoteDecimals > 12) throw new ConfigError('markets', 'tick × lot needs more than 12 decimals');
    const markets = configs.map((c, i) => new Market(c, i, 10 ** quoteDecimals));
    this.clock = options.clock;
    this.st = new State(markets, quoteDecimals, options.seed ?? 1, {
      historyLimit: positiveInt('historyLimit', options.historyLimit, 5000),
      dedupeWindow: positiveInt('dedupeWindow', options.dedupeWindow, 256, 0),
      maxOpenOrders: positiveInt('maxOpenOrdersPerAccount', options.maxOpenOrdersPerAccount, 1000),
    });
    this.funding = {
      interestPer8h: fraction('fundingInterestPer8h', options.fundingInterestPer8h, 0.0001),
      premiumClamp: fraction('fundingPremiumClamp', options.fundingPremiumClamp, 0.0005),
    };
    this.faucetDefaultUsd = options.faucetDefaultUsd ?? 10_000;
    this.faucetMaxUsd = options.faucetMaxUsd ?? 1e9;
    if (!(this.faucetDefaultUsd > 0 && this.faucetDefaultUsd <= this.faucetMaxUsd && this.faucetMaxUsd <= 1e9)) {
      throw new ConfigError('faucetDefaultUsd', 'need 0 < faucetDefaultUsd ≤ faucetMaxUsd ≤ 1e9');
    }
    this.faucetCooldownNs = options.faucetCooldownNs ?? 0n;
    this.maxBatchItems = positiveInt('maxBatchItems', options.maxBatchItems, 100);
    this.maxAgents = positiveInt('maxAgentsPerAccount', options.maxAgentsPerAccount, 100);
    this.liquidationMaxSlippage = fraction('liquidationMaxSlippage', options.liquidationMaxSlippage, 0.05);
    this.oracleMaxMove = options.oracleMaxMove ?? 1;
    if (!(this.oracleMaxMove > 0 && this.oracleMaxMove <= 1e6)) throw new ConfigError('oracleMaxMove', `must lie in (0, 1e6], got ${this.oracleMaxMove}`);
    this.oracleMaxSkewNs = options.oracleMaxSkewNs ?? 300_000_000_000n;
    if (typeof this.oracleMaxSkewNs !== 'bigint' || this.oracleMaxSkewNs < 1_000_000_000n)
      throw new ConfigError('oracleMaxSkewNs', 'must be a bigint of at least 1 s');
    const now = this.clock.nowNs();
    this.st.nowNs = now;
    for (const m of markets) m.nextFundingNs = (now / m.fundingIntervalNs + 1n) * m.fundingIntervalNs;
    this.updateNextDue();
  }

  /** Engine time (ns): the latest clock reading taken by a state change. */
  get nowNs(): bigint {
    return this.st.nowNs;
  }

  /** Sequence number of the latest state change (each mutating call is one slot). */
  get slot(): number {
    return this.st.slot;
  }

  // ---------------------------------------------------------------- actions

  /** Credits `amountUsd` USDC (default faucetDefaultUsd) to `user`, creating the account. */
  faucet(user: string, amountUsd?: number | null): FaucetResult {
    const amount = amountUsd ?? this.faucetDefaultUsd;
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) return { depositFailed: { message: 'amount must be a positive number' } };
    if (amount > this.faucetMaxUsd) return { depositFailed: { message: `amount above the faucet maximum ${this.faucetMaxUsd}` } };
    const existing = this.st.accounts.get(user);
    const now = this.clock.nowNs();
    if (existing !== undefined && existing.lastFaucetNs >= 0n && this.faucetCooldownNs > 0n && now - existing.lastFaucetNs < this.faucetCooldownNs) {
      return { depositFailed: { message: 'Rate limit exceeded' } };
    }
    const st = this.begin();
    const units = Math.round(amount * st.quoteScale);
    if (units <= 0) return { depositFailed: { message: 'amount below the smallest unit' } };
    const a = st.account(user);
    a.lastFaucetNs = st.nowNs;
    const credit = BigInt(units);
    a.balance += credit;
    a.deposits += credit;
    st.depositsUnits += credit;
    st.touch(a, null);
    st.recordActivity('deposit', null, a, credit);
    this.settle();
    return { deposit: { amount: units / st.quoteScale } };
  }

  /**
   * Sets per-symbol maximum leverage, each clamped to 1..50 and the market maximum (not an error).
   * Answers an error and changes nothing for an unknown symbol or a non-finite leverage.
   */
  setLeverage(user: string, entries: readonly LeverageEntry[]): LeverageResult {
    for (const [symbol, lev] of entries) {
      if (!this.st.bySymbol.has(symbol)) return { error: { message: `unknown symbol ${symbol}` } };
      if (typeof lev !== 'number' || !Number.isFinite(lev)) return { error: { message: `leverage for ${symbol} is not a finite number` } };
    }
    const st = this.begin();
    const a = st.account(user);
    const applied: LeverageEntry[] = entries.map(([symbol, lev]) => {
      const m = st.bySymbol.get(symbol)!;
      const set = a.setLeverage(m.index, m, lev);
      if (a.positions[m.index]!.lots !== 0) st.touch(a, a.positions[m.index]!);
      return [symbol, set];
    });
    st.events.push({ type: 'leverageUpdate', account: user, leverage: applied, timestamp: st.nowNs });
    st.touch(a, null);
    this.settle();
    return { settings: { maxLeverage: applied } };
  }

  /** Registers (remove = false) or removes an agent key of `account`. Only the account itself may call this. */
  setAgent(account: string, agent: string, remove: boolean): AgentResult {
    if (typeof agent !== 'string' || agent.length === 0) return { error: { message: 'agent must be a public key' } };
    if (agent === account) return { error: { message: 'an account cannot be its own agent' } };
    const existing = this.st.accounts.get(account);
    if (remove) {
      if (existing?.agents?.has(agent) !== true) return { error: { message: 'not an agent of this account' } };
    } else if ((existing?.agents?.size ?? 0) >= this.maxAgents && existing?.agents?.has(agent) !== true) {
      return { error: { message: `at most ${this.maxAgents} agents per account` } };
    }
    const st = this.begin();
    const a = st.account(account);
    if (remove) a.agents!.delete(agent);
    else (a.agents ??= new Set()).add(agent);
    st.events.push({ type: 'agent', account, agent, delete: remove, timestamp: st.nowNs });
    return { agentWallet: { agent, delete: remove } };
  }

  /**
   * True when `signer` may act for `account`: itself or one of its registered agents, and for a sub-account also its
   * master or one of the master's agents (venue-protocol §2).
   */
  isAuthorized(account: string, signer: string): boolean {
    const a = this.st.accounts.get(account);
    if (signer === account || a?.agents?.has(signer) === true) return true;
    const parent = a?.parent;
    return parent != null && (signer === parent || this.st.accounts.get(parent)?.agents?.has(signer) === true);
  }

  /** Creates a sub-account of `master` named `name` and moves `marginUsd` (default 0) to it (subaccounts.ts). */
  createSubAccount(master: string, name: string, marginUsd?: number | null): CreateSubAccountResult {
    return this.run(() => subs.createSubAccount(this.st, master, name, marginUsd));
  }

  /** Moves `amountUsd` from `account` or one of its sub-accounts: `internal` within that family, `external` out of it (subaccounts.ts). */
  transfer(account: string, kind: 'internal' | 'external', from: string, to: string, amountUsd: number): TransferResult {
    return this.run(() => subs.transfer(this.st, account, kind, from, to, amountUsd));
  }

  removeSubAccount(master: string, sub: string): RemoveSubAccountResult {
    return this.run(() => subs.removeSubAccount(this.st, master, sub));
  }

  renameSubAccount(master: string, sub: string, name: string): RenameSubAccountResult {
    return this.run(() => subs.renameSubAccount(this.st, master, sub, name));
  }

  /** Where `key` sits among sub-accounts: its master and name, and its own sub-accounts (keys, creation order). */
  hierarchy(key: string): { parent: string | null; name: string | null; subAccounts: string[] } {
    const a = this.st.accounts.get(key);
    return { parent: a?.parent ?? null, name: a?.subName ?? null, subAccounts: [...(a?.subs ?? [])] };
  }

  private run<T>(action: () => T): T {
    this.begin();
    const out = action();
    this.settle();
    return out;
  }

  agents(account: string): string[] {
    return [...(this.st.accounts.get(account)?.agents ?? [])];
  }

  /**
   * Sets oracle (index and mark) prices in USD. All-or-nothing: throws ValidationError naming the entry, and
   * changes nothing, for an unknown symbol, a price outside the market's band (Market.oracleProblem) or a
   * timestamp more than oracleMaxSkewNs from the clock. A price older than the symbol's latest oracle
   * timestamp is ignored. Then fires reached triggers and liquidates holders of the moved markets below margin.
   */
  setOraclePrices(prices: readonly OraclePrice[]): OracleResult {
    const now = this.clock.nowNs();
    prices.forEach((p, i) => {
      const m = this.st.bySymbol.get(p.symbol);
      if (m === undefined) throw new ValidationError(`prices[${i}].symbol`, `unknown symbol ${p.symbol}`);
      const problem = m.oracleProblem(p.price, this.oracleMaxMove);
      if (problem !== undefined) throw new ValidationError(`prices[${i}].price`, problem);
      const skew = typeof p.timestamp !== 'bigint' ? -1n : p.timestamp > now ? p.timestamp - now : now - p.timestamp;
      if (skew < 0n || skew > this.oracleMaxSkewNs) {
        throw new ValidationError(
          `prices[${i}].timestamp`,
          `${String(p.timestamp)} ns is more than ${this.oracleMaxSkewNs / 1_000_000_000n} s from the venue clock`,
        );
      }
    });
    const st = this.begin();
    const moved: Market[] = [];
    let count = 0;
    for (const p of prices) {
      const m = st.bySymbol.get(p.symbol)!;
      if (p.timestamp < m.oracleNs) continue;
      m.oraclePx = p.price;
      m.oracleNs = p.timestamp;
      count++;
      samplePremium(m);
      if (!moved.includes(m)) moved.push(m);
      st.events.push({ type: 'markPrice', symbol: m.symbol, markPrice: m.markPrice(), oraclePrice: m.oraclePx, timestamp: st.nowNs });
    }
    for (const m of moved) fireTriggers(st, m);
    this.settle();
    const holders = new Set<Account>();
    for (const m of moved) for (const h of m.holders) holders.add(h);
    checkAccounts(st, holders, this.liquidationMaxSlippage);
    return { oracle: { count } };
  }

  setOraclePrice(symbol: string, price: number, timestampNs?: bigint): OracleResult {
    return this.setOraclePrices([{ symbol, price, timestamp: timestampNs ?? this.clock.nowNs() }]);
  }

  /**
   * Applies an order action's items in order for `account` (already authenticated). Place and cancel
   * items yield one status each; a cancelAll item yields one `cancelled` per order it cancelled.
   * Throws ValidationError when the batch holds more than maxBatchItems items.
   */
  applyOrderAction(account: string, items: readonly OrderActionItem[], ctx?: OrderActionContext): OrderActionResult {
    if (items.length > this.maxBatchItems) throw new ValidationError('orders', `at most ${this.maxBatchItems} items per batch, got ${items.length}`);
    const st = this.begin();
    const ids = ctx?.ids;
    let statuses: ItemStatus[] | null = null;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if ('order' in item || 'cancel' in item || !('cancelAll' in item)) {
        const status = applyItem(st, account, item, ids?.[i]);
        if (statuses === null) statuses = [status];
        else statuses.push(status);
      } else cancelAll(st, account, item.cancelAll.c, (statuses ??= []));
      if (st.dirtyCount > 0) st.flush();
    }
    if (st.underwater.length > 0) liquidateQueued(st, this.liquidationMaxSlippage);
    return { statuses: statuses ?? [] };
  }

  /**
   * Runs the schedules at the clock's time: funding that fell due, a premium sample per market,
   * triggers reached by the mark, and liquidation of every account below maintenance margin.
   */
  tick(): void {
    const st = this.begin();
    for (const m of st.markets) samplePremium(m);
    for (const m of st.markets) fireTriggers(st, m);
    this.settle();
    const holders = new Set<Account>();
    for (const m of st.markets) for (const h of m.holders) holders.add(h);
    checkAccounts(st, holders, this.liquidationMaxSlippage);
  }

  /** Returns the events appended since the last drain, in the order applied, and starts a new log. */
  drainEvents(): EngineEvent[] {
    const e = this.st.events;
    this.st.events = [];
    return e;
  }

  // ---------------------------------------------------------------- queries

  query(type: AccountQueryType, user: string): AccountQueryResponse {
    switch (type) {
      case 'fullAccount':
        return [{ fullAccount: this.fullAccount(user) }];
      case 'openOrders':
        return this.openOrders(user).map((openOrder) => ({ openOrder }));
      case 'fills':
        return this.fills(user).map((fills) => ({ fills }));
      case 'positions':
        return this.closedPositions(user).map((positions) => ({ positions }));
      case 'fundingHistory':
        return this.fundingHistory(user).map((fundingPayment) => ({ fundingPayment }));
      case 'orderHistory':
        // the v1 row has no conditional type (every conditional is a v1 trigger order)
        return this.orderHistory(user).map(({ conditional: _c, ...orderHistory }) => ({ orderHistory }));
    }
  }

  fullAccount(user: string): FullAccountRow {
    return q.fullAccount(this.st, this.st.accounts.get(user));
  }

  /** Resting orders and parked triggers, in placement order. */
  openOrders(user: string): OpenOrderRow[] {
    return q.openOrders(this.st.accounts.get(user));
  }

  /** The conditional terms of live order `orderId` now; null for an order that is not a trigger or not live. */
  conditionalOf(orderId: string): ConditionalInfo | null {
    const o = this.st.orders.get(orderId, hashId(orderId));
    return o === undefined ? null : conditionalInfo(o);
  }

  /** Last historyLimit fills, newest first. */
  fills(user: string): FillRow[] {
    return q.fills(this.st, this.st.accounts.get(user));
  }

  /** Last historyLimit closed positions, newest first. */
  closedPositions(user: string): ClosedPositionRow[] {
    return q.closedPositions(this.st.accounts.get(user));
  }

  /** Last historyLimit funding payments, newest first. */
  fundingHistory(user: string): FundingPaymentRow[] {
    return q.fundingHistory(this.st.accounts.get(user));
  }

  /** Deposits and transfers of `user`, newest first (the last historyLimit). */
  activityHistory(user: string): ActivityRow[] {
    return this.st.accounts.get(user)?.activity?.newestFirst() ?? [];
  }

  /** Liquidations and auto-deleveragings of `user`'s positions, newest first (the last historyLimit). */
  riskHistory(user: string): RiskRow[] {
    return this.st.accounts.get(user)?.risk?.newestFirst() ?? [];
  }

  /** Last historyLimit terminal orders, newest first. */
  orderHistory(user: string): OrderHistoryRow[] {
    return q.orderHistory(this.st, this.st.accounts.get(user));
  }

  /** Open positions (size ≠ 0) with their figures at the current mark price, in market order. */
  positionDetails(user: string): PositionUpdateEvent[] {
    const a = this.st.accounts.get(user);
    return a === undefined ? [] : a.positions.filter((p) => p.lots !== 0).map((p) => this.st.positionDetail(a, p));
  }

  marginSummary(user: string): MarginSummary {
    return q.marginSummary(this.st, this.st.accounts.get(user));
  }

  /** Aggregated levels, best first, at most `depth` per side; undefined for an unknown symbol. */
  book(symbol: string, depth = Number.POSITIVE_INFINITY): BookSnapshot | undefined {
    const m = this.st.bySymbol.get(symbol);
    return m === undefined ? undefined : q.bookSnapshot(this.st, m, depth);
  }

  markets(): MarketInfo[] {
    return this.st.markets.map((m) => m.info());
  }

  marketInfo(symbol: string): MarketInfo | undefined {
    return this.st.bySymbol.get(symbol)?.info();
  }

  marketState(symbol: string): MarketState | undefined {
    const m = this.st.bySymbol.get(symbol);
    return m === undefined ? undefined : q.marketState(m);
  }

  /** The rate the next funding payment of `symbol` would use if it were due now (fraction per interval). */
  predictedFundingRate(symbol: string): number | undefined {
    const m = this.st.bySymbol.get(symbol);
    return m === undefined ? undefined : fundingRate(m, this.funding);
  }

  /** Exact integer ledger; deposits = balances + feesCollected − openCost always holds. */
  audit(): LedgerAudit {
    const st = this.st;
    let balances = 0n;
    let openCost = 0n;
    const net: Record<string, number> = {};
    for (const m of st.markets) net[m.symbol] = 0;
    for (const a of st.accounts.values()) {
      balances += a.balance;
      for (const p of a.positions) {
        openCost += p.signedCost();
        net[p.market.symbol]! += p.lots;
      }
    }
    return {
      quoteDecimals: st.quoteDecimals,
      depositsUnits: st.depositsUnits,
      balancesUnits: balances,
      feesCollectedUnits: st.feesCollectedUnits,
      openCostUnits: openCost,
      fundingNetUnits: st.fundingNetUnits,
      netLotsBySymbol: net,
    };
  }

  /** Internal consistency check for tests: returns a list of broken invariants (empty when sound). */
  selfCheck(): string[] {
    const st = this.st;
    const problems: string[] = [];
    let live = 0;
    for (const m of st.markets) {
      const b = m.bids.best();
      const a = m.asks.best();
      if (b && a && b.priceTicks >= a.priceTicks) problems.push(`${m.symbol}: book crossed ${b.priceTicks} >= ${a.priceTicks}`);
      for (const side of [m.bids, m.asks]) {
        for (let i = 0; i < side.levels.length; i++) {
          const l = side.levels[i]!;
          if (i > 0 && side.levels[i - 1]!.key >= l.key) problems.push(`${m.symbol}: levels out of order`);
          let lots = 0;
          let n = 0;
          for (let o = l.head; o !== null; o = o.next) {
            lots += o.remLots;
            n++;
            if (o.remLots <= 0) problems.push(`${o.id}: resting with no size`);
            if (o.level !== l || o.priceTicks !== l.priceTicks || o.isBuy !== side.isBid) problems.push(`${o.id}: wrong level`);
            if (st.orders.get(o.id, o.idHash) !== o) problems.push(`${o.id}: resting but not live`);
          }
          if (lots !== l.totalLots || n !== l.count || n === 0) problems.push(`${m.symbol}@${l.priceTicks}: level totals wrong`);
          live += n;
        }
      }
      live += m.triggers.size;
    }
    if (live !== st.orders.size) problems.push(`live orders ${st.orders.size} != resting + parked ${live}`);
    for (const o of st.orders.values()) {
      if (o.filledLots + o.remLots !== o.origLots) problems.push(`${o.id}: filled + remaining != original`);
    }
    for (const a of st.accounts.values()) {
      const buy = new Array<number>(st.markets.length).fill(0);
      const sell = new Array<number>(st.markets.length).fill(0);
      let n = 0;
      for (let o = a.ordersHead; o !== null; o = o.aNext) {
        n++;
        if (o.level !== null) (o.isBuy ? buy : sell)[o.market.index]! += o.remLots;
      }
      if (n !== a.openOrders) problems.push(`${a.key}: open order count`);
      a.positions.forEach((p, i) => {
        if (p.buyOpenLots !== buy[i] || p.sellOpenLots !== sell[i]) problems.push(`${a.key}: exposure of ${p.market.symbol}`);
        if (p.lots === 0 && p.cost !== 0n) problems.push(`${a.key}: cost without position`);
        if ((p.lots !== 0) !== p.market.holders.has(a)) problems.push(`${a.key}: holder set of ${p.market.symbol}`);
      });
    }
    return problems;
  }

  // ---------------------------------------------------------------- internals

  /** Starts a state change: reads the clock, opens a new slot and pays funding that fell due. */
  private begin(): State {
    const st = this.st;
    const t = this.clock.nowNs();
    if (t > st.nowNs) st.nowNs = t;
    st.slot++;
    if (st.nowNs >= this.nextDueNs) this.payDueFunding();
    return st;
  }

  private payDueFunding(): void {
    const st = this.st;
    for (const m of st.markets) {
      const interval = m.fundingIntervalNs;
      if (st.nowNs >= m.nextFundingNs + 1000n * interval) m.nextFundingNs = (st.nowNs / interval) * interval;
      while (m.nextFundingNs <= st.nowNs) {
        payFunding(st, m, this.funding, m.nextFundingNs);
        m.nextFundingNs += interval;
      }
    }
    this.updateNextDue();
    this.settle();
  }

  private updateNextDue(): void {
    let next = this.st.markets[0]!.nextFundingNs;
    for (const m of this.st.markets) if (m.nextFundingNs < next) next = m.nextFundingNs;
    this.nextDueNs = next;
  }

  /** Flushes pending position/margin updates and liquidates accounts they found underwater. */
  private settle(): void {
    const st = this.st;
    if (st.dirtyCount > 0) st.flush();
    if (st.underwater.length > 0) liquidateQueued(st, this.liquidationMaxSlippage);
  }
}
