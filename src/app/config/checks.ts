// Checks of a daemon config that a schema cannot express: between fields (names, references, mode-dependent keys), of its
// key files, and against what the venue says (markets, lot and minimum notional, collateral). Invariant: every problem is
// returned at once, each naming the key path that must change; nothing here does I/O beyond reading key files.

import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { MarketRules } from '../../core/market-data.js';
import { ValidationError } from '../../core/errors.js';
import { formatPath, type Issue } from '../../core/schema.js';
import { Keypair } from '../../protocol/keys.js';
import { withRiskDefaults } from '../../risk/config.js';
import { roundToLot, type SizeDeclaration } from '../../strategy/api.js';
import type { LoadedStrategy } from '../../strategy/loader.js';
import type { KeyPath } from './interpolate.js';
import { isSecretKey, type DaemonConfig } from './schema.js';

/**
 * Problems of a schema-valid config: account names unique; agentOf names another account that is not
 * itself an agent; each strategy's account exists; the strategies of one venue account run under one
 * config account (its own key or one agent); url and wsUrl given when the venue is remote or paper.
 */
export function crossFieldIssues(c: DaemonConfig): Issue[] {
  const out: Issue[] = [];
  const index = new Map<string, number>();
  c.accounts.forEach((a, i) => {
    const first = index.get(a.name);
    if (first === undefined) index.set(a.name, i);
    else out.push({ field: `accounts[${i}].name`, message: `duplicate account name ${JSON.stringify(a.name)} (also accounts[${first}])` });
  });
  const unknown = (name: string) => `no account named ${JSON.stringify(name)} (accounts: ${[...index.keys()].join(', ')})`;
  c.accounts.forEach((a, i) => {
    if (a.agentOf === undefined) return;
    const field = `accounts[${i}].agentOf`;
    const principal = index.get(a.agentOf);
    if (a.agentOf === a.name) out.push({ field, message: 'an account cannot be its own agent' });
    else if (principal === undefined) out.push({ field, message: unknown(a.agentOf) });
    else if (c.accounts[principal]!.agentOf !== undefined)
      out.push({ field, message: `${JSON.stringify(a.agentOf)} is itself an agent; name an account that signs with its own key` });
  });
  const traders = new Map<string, string>();
  c.strategies.forEach((s, i) => {
    const at = index.get(s.account);
    if (at === undefined) return void out.push({ field: `strategies[${i}].account`, message: unknown(s.account) });
    const venueAccount = c.accounts[at]!.agentOf ?? s.account;
    const other = traders.get(venueAccount);
    if (other === undefined) traders.set(venueAccount, s.account);
    else if (other !== s.account) {
      out.push({
        field: `strategies[${i}].account`,
        message: `${JSON.stringify(s.account)} and ${JSON.stringify(other)} trade the same venue account (${JSON.stringify(venueAccount)}); give its strategies to one of them (each would cancel the other's orders as unknown)`,
      });
    }
  });
  if (c.venue.mode !== 'local') {
    for (const key of ['url', 'wsUrl'] as const)
      if (c.venue[key] === undefined) out.push({ field: `venue.${key}`, message: `required when venue.mode is ${c.venue.mode}` });
  }
  return out;
}

/** A key file as the file names it, before the schema (so its problems show beside the others). */
export interface KeyFileEntry {
  readonly keyFile?: unknown;
  readonly createKey?: unknown;
}

/**
 * Problems of the key files of `accounts` (paths relative to `baseDir`): each must exist (unless createKey is true),
 * be readable and hold a key. Entries without a string keyFile are skipped. The messages never show a key.
 */
export function keyFileIssues(accounts: readonly KeyFileEntry[], baseDir: string): Issue[] {
  const out: Issue[] = [];
  accounts.forEach((a, i) => {
    if (typeof a.keyFile !== 'string' || a.keyFile === '') return;
    const file = resolve(baseDir, a.keyFile);
    const field = `accounts[${i}].keyFile`;
    // A missing file whose name reads as a secret key is a secret given where a path goes (was secretKey meant?).
    if (!existsSync(file) && isSecretKey(basename(file))) {
      out.push({ field, message: 'names no file and reads as a secret key (value not shown): give a key as secretKey, not keyFile' });
      return;
    }
    if (!existsSync(file)) {
      if (a.createKey !== true) out.push({ field, message: `${file} does not exist (set createKey: true to create it)` });
      return;
    }
    try {
      Keypair.fromFile(file, () => undefined);
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      out.push({ field, message: e.message });
    }
  });
  return out;
}

/** Problems and warnings of a config against what the venue says; each names the key path that must change. */
export interface Findings {
  readonly errors: Issue[];
  readonly warnings: Issue[];
}

/** The path inside `params` of the first string equal to `value` (where a strategy's params name a market), or undefined. */
function pathHolding(params: unknown, value: string, path: KeyPath = []): KeyPath | undefined {
  if (params === value) return path;
  if (typeof params !== 'object' || params === null) return undefined;
  for (const [k, v] of Object.entries(params)) {
    const found = pathHolding(v, value, [...path, Array.isArray(params) ? Number(k) : k]);
    if (found) return found;
  }
  return undefined;
}

type SizeKind = 'orderSizes' | 'maxPositions';

/** The sizes strategy `i` declares of `kind` (none when it declares none), or the issue of a declaration that throws or is malformed. */
function declared(s: LoadedStrategy, i: number, kind: SizeKind): { sizes: readonly SizeDeclaration[] } | { issue: Issue } {
  const declare = s.definition[kind];
  if (declare === undefined) return { sizes: [] };
  const field = `strategies[${i}].module`;
  let sizes: unknown;
  try {
    sizes = declare(s.params);
  } catch (e) {
    return { issue: { field, message: `${s.definition.name}: ${kind}(params) threw: ${e instanceof Error ? e.message : String(e)}` } };
  }
  const valid = (d: unknown): d is SizeDeclaration => {
    const x = d as Partial<SizeDeclaration> | null;
    return typeof x?.symbol === 'string' && typeof x.key === 'string' && typeof x.size === 'number' && x.size > 0 && Number.isFinite(x.size);
  };
  if (!Array.isArray(sizes) || !sizes.every(valid))
    return { issue: { field, message: `${s.definition.name}: ${kind}(params) must return [{symbol, size > 0, key}], got ${JSON.stringify(sizes)}` } };
  return { sizes };
}

/**
 * Errors of `strategies` (in config order) against the venue's `markets`: a market the venue does not list; an order
 * size or a maximum position below the market's lot (it rounds down to 0: nothing would be placed); with the market's
 * `mids`, an order notional (size on the lot grid × mid) below its minimum notional. A market without a mid is a
 * warning (its minimum notional not checked) when `mids` is given.
 */
export function marketRuleFindings(
  strategies: readonly LoadedStrategy[],
  markets: ReadonlyMap<string, MarketRules>,
  mids?: ReadonlyMap<string, number>,
): Findings {
  const errors: Issue[] = [];
  const warnings: Issue[] = [];
  const listed = [...markets.keys()].join(', ');
  const unpriced = new Set<string>();
  strategies.forEach((s, i) => {
    const params = `strategies[${i}].params`;
    for (const symbol of s.symbols) {
      if (markets.has(symbol)) continue;
      errors.push({ field: formatPath(params, pathHolding(s.params, symbol) ?? []), message: `the venue lists no market ${symbol} (markets: ${listed})` });
    }
    for (const kind of ['orderSizes', 'maxPositions'] as const) {
      const found = declared(s, i, kind);
      if ('issue' in found) {
        errors.push(found.issue);
        continue;
      }
      for (const d of found.sizes) {
        const market = markets.get(d.symbol);
        if (market === undefined) continue;
        const field = `${params}.${d.key}`;
        const lots = roundToLot(d.size, market.lotSizeBase);
        if (lots === 0) {
          const what = kind === 'orderSizes' ? 'every order rounds down to 0 and none is placed' : 'not one lot can be bought or sold';
          errors.push({ field, message: `${d.size} is below the lot size ${market.lotSizeBase} of ${d.symbol}: ${what}` });
          continue;
        }
        const minNotional = market.minNotionalUsd;
        if (kind !== 'orderSizes' || mids === undefined || minNotional === 0) continue;
        const mid = mids.get(d.symbol);
        if (mid === undefined) {
          if (!unpriced.has(d.symbol))
            warnings.push({ field, message: `the venue's ${d.symbol} book has no bid or no ask: the minimum notional (${minNotional} USD) is not checked` });
          unpriced.add(d.symbol);
        } else if (lots * mid < minNotional) {
          const rounded = lots === d.size ? `${d.size}` : `${d.size} (${lots} on the lot grid)`;
          errors.push({
            field,
            message: `${rounded} × mid ${mid} = ${usd(lots * mid)} USD is below the minimum notional ${minNotional} USD of ${d.symbol}: the venue refuses such orders (a size of at least ${roundToLot(minNotional / mid, market.lotSizeBase, 'up')} is needed)`,
          });
        }
      }
    }
  });
  return { errors, warnings };
}

const usd = (n: number) => n.toFixed(2);

/** What the venue holds for one account: collateral, and its leverage setting per market. */
export interface AccountFunds {
  readonly collateralUsd: number;
  readonly leverage: ReadonlyMap<string, number>;
}

/**
 * The collateral of every account that runs strategies, with what the config's faucetUsd adds at start (the faucets of
 * the owner and its agents fund the owner's venue account), against what its strategies need. `funds` holds each
 * owner's (config account names that sign with their own key; absent: a key not created yet, a new empty account).
 * Error: no collateral and no faucetUsd (risk denies every order). Warning: the strategies' largest position notional
 * (each market's `maxPositions` at its mid, capped by risk.maxPositionNotionalUsd[BySymbol], the sum capped by
 * risk.maxTotalPositionNotionalUsd) needs more margin than the collateral at the leverage that applies (the lowest of
 * the configured or the venue's setting, the market's maxLeverage and risk.maxLeverage).
 */
export function collateralFindings(
  c: DaemonConfig,
  strategies: readonly LoadedStrategy[],
  markets: ReadonlyMap<string, MarketRules>,
  mids: ReadonlyMap<string, number>,
  funds: ReadonlyMap<string, AccountFunds>,
): Findings {
  const errors: Issue[] = [];
  const warnings: Issue[] = [];
  const risk = withRiskDefaults(c.risk);
  const ownerOf = (name: string) => c.accounts.find((a) => a.name === name)?.agentOf ?? name;
  c.accounts.forEach((a, i) => {
    const mine = strategies.flatMap((s, j) => (c.strategies[j]!.account === a.name ? [[s, j] as const] : []));
    if (mine.length === 0) return;
    const owner = ownerOf(a.name);
    const held = funds.get(owner);
    const collateralUsd = held?.collateralUsd ?? 0;
    const faucetUsd = c.accounts.reduce((sum, x) => sum + (ownerOf(x.name) === owner ? (x.faucetUsd ?? 0) : 0), 0);
    const whose = owner === a.name ? '' : ` (the collateral of ${JSON.stringify(owner)}, whose agent it is)`;
    const field = `accounts[${i}]`;
    if (collateralUsd + faucetUsd <= 0) {
      const why =
        held === undefined ? 'its key is created at start: a new account holds no collateral' : `it holds ${usd(collateralUsd)} USD of collateral on the venue`;
      errors.push({
        field,
        message: `${JSON.stringify(a.name)} has no collateral${whose}: ${why}, and no faucetUsd is set, so risk denies every order (LEVERAGE); deposit collateral, or set faucetUsd on a test venue`,
      });
      return;
    }
    const parts: { symbol: string; notionalUsd: number; leverage: number }[] = [];
    for (const [s, j] of mine) {
      const found = declared(s, j, 'maxPositions');
      const maxima = 'sizes' in found ? found.sizes : [];
      for (const symbol of s.symbols) {
        const market = markets.get(symbol);
        if (market === undefined) continue;
        const capUsd = risk.maxPositionNotionalUsdBySymbol[symbol] ?? risk.maxPositionNotionalUsd;
        const mid = mids.get(symbol);
        const sizes = maxima.filter((m) => m.symbol === symbol).map((m) => m.size);
        const declaredUsd = mid === undefined || sizes.length === 0 ? Infinity : Math.max(...sizes) * mid;
        const setting = a.leverage[symbol] ?? c.accounts.find((x) => x.name === owner)?.leverage[symbol] ?? held?.leverage.get(symbol) ?? market.maxLeverage;
        parts.push({ symbol, notionalUsd: Math.min(capUsd, declaredUsd), leverage: Math.min(setting, market.maxLeverage, risk.maxLeverage) });
      }
    }
    const totalUsd = parts.reduce((sum, p) => sum + p.notionalUsd, 0);
    const scale = totalUsd > risk.maxTotalPositionNotionalUsd ? risk.maxTotalPositionNotionalUsd / totalUsd : 1;
    const marginUsd = parts.reduce((sum, p) => sum + (p.notionalUsd * scale) / p.leverage, 0);
    if (marginUsd > collateralUsd + faucetUsd) {
      const list = parts.map((p) => `${p.symbol} ${usd(p.notionalUsd * scale)} USD at ${p.leverage}x`).join(', ');
      const source = faucetUsd > 0 ? `${usd(collateralUsd)} USD on the venue + faucetUsd ${faucetUsd}` : `${usd(collateralUsd)} USD on the venue`;
      warnings.push({
        field,
        message: `${JSON.stringify(a.name)}: its strategies' largest positions (${list}) need ${usd(marginUsd)} USD of margin, more than its collateral${whose} (${source}): risk denies the orders beyond it (LEVERAGE); add collateral, or lower maxPosition or risk.maxPositionNotionalUsd`,
      });
    }
  });
  return { errors, warnings };
}
