// Close on stop: a stopping strategy that asked for it (StrategySpec.closeOnStop) has the account's position in its
// markets closed by reduce-only IOC orders priced at most maxSlippageBps from the mid. Invariant: never adds to a position.

import { filter, firstValueFrom, of, timeout } from 'rxjs';
import type { LocalOrderStatus, OrderSpec } from '../core/intent.js';
import { TERMINAL_STATUSES } from '../core/intent.js';
import type { Execution } from '../execution/engine.js';
import type { BookView } from '../market/book.js';
import { mid, roundToLot, roundToTick, type CloseOnStop, type MarketRules } from '../strategy/api.js';

/** What became of one market's position. */
export interface ClosingOutcome {
  readonly symbol: string;
  /** Signed position before closing, base units (long > 0). */
  readonly position: number;
  /** The closing order's final status, or `skipped` (flat, no book, nothing to close at the lot size). */
  readonly status: LocalOrderStatus | 'skipped' | 'timedOut';
  /** Base units the closing order filled. */
  readonly filledSize: number;
  /** Limit price of the closing order, USD. */
  readonly price?: number;
  readonly reason?: string;
}

/** The reduce-only IOC order closing `position` within `maxSlippageBps` of the book's mid, or why there is none. */
export function closingOrder(
  symbol: string,
  position: number,
  book: Pick<BookView, 'bestBid' | 'bestAsk'> | undefined,
  rules: Pick<MarketRules, 'tickSizeUsd' | 'lotSizeBase'>,
  maxSlippageBps: number,
): OrderSpec | string {
  const size = roundToLot(Math.abs(position), rules.lotSizeBase, 'nearest');
  if (size === 0) return 'flat';
  const m = book === undefined ? undefined : mid(book);
  if (m === undefined) return 'no two-sided book to bound the price';
  const sell = position > 0;
  const bound = (m * maxSlippageBps) / 1e4;
  // Rounded towards the mid, so the order never trades beyond the bound.
  const price = sell ? roundToTick(m - bound, rules.tickSizeUsd, 'up') : roundToTick(m + bound, rules.tickSizeUsd, 'down');
  return { symbol, side: sell ? 'sell' : 'buy', price, size, tif: 'IOC', reduceOnly: true, clientTag: `close-on-stop:${symbol}` };
}

export interface CloseDeps {
  readonly execution: Pick<Execution, 'submit' | 'events$'>;
  /** Signed position of the account in `symbol`, base units. */
  position(symbol: string): number;
  book(symbol: string): BookView | undefined;
  rules(symbol: string): Pick<MarketRules, 'tickSizeUsd' | 'lotSizeBase'>;
}

/**
 * Closes the position of each of `symbols` for `strategy` (its orders already cancelled) and resolves, at most
 * `timeoutMs` later, with what became of each.
 */
export async function closePositions(
  strategy: string,
  symbols: readonly string[],
  close: CloseOnStop,
  deps: CloseDeps,
  timeoutMs: number,
): Promise<ClosingOutcome[]> {
  return Promise.all(
    symbols.map(async (symbol): Promise<ClosingOutcome> => {
      const position = deps.position(symbol);
      const book = deps.book(symbol);
      const order = closingOrder(symbol, position, book, deps.rules(symbol), close.maxSlippageBps);
      if (typeof order === 'string') return { symbol, position, status: 'skipped', filledSize: 0, reason: order };
      const final = firstValueFrom(
        deps.execution.events$(strategy).pipe(
          filter((e) => e.clientTag === order.clientTag && TERMINAL_STATUSES.has(e.status)),
          timeout({ first: timeoutMs, with: () => of(undefined) }),
        ),
      );
      deps.execution.submit(strategy, { kind: 'place', order, dataTimeMs: book!.venueTimeMs, dataVersion: book!.version });
      const e = await final;
      if (e === undefined) return { symbol, position, status: 'timedOut', filledSize: 0, price: order.price };
      return { symbol, position, status: e.status, filledSize: e.filledSize, price: order.price, ...(e.reason !== undefined && { reason: e.reason }) };
    }),
  );
}
