// Contingent actions of the current generation, held beside the engine: trigger baskets (`trig`: run their actions once
// the mark reaches their price) and on-fill actions (`of`: run once their trigger order has filled completely).
// Invariants: each held list runs at most once and leaves the book before it runs; nested ids follow docs/protocol.md.

import type { Action } from '../../protocol/current/actions.js';
import { nestedOrderIds } from '../../protocol/current/order-id.js';
import type { EngineEvent } from '../engine/index.js';

/** Actions held for `account`, with the ids they get when they run. */
export interface Held {
  readonly account: string;
  readonly nonce: bigint;
  readonly actions: readonly Action[];
  readonly ids: readonly (string | null)[];
}

/** A parked trigger basket: fires when the mark is at or above `triggerPx` (`above`), or at or below. */
export interface Basket extends Held {
  readonly id: string;
  readonly symbol: string;
  readonly above: boolean;
  /** USD */
  readonly triggerPx: number;
  readonly createdNs: bigint;
}

/** On-fill actions waiting for the order `parentId` to fill. */
export interface PendingOnFill extends Held {
  readonly parentId: string;
}

const TERMINAL_UNFILLED = /^(?:partiallyFilled|cancel|rejected)/;

export class ContingentBook {
  private readonly baskets = new Map<string, Basket>();
  private readonly onFill = new Map<string, PendingOnFill>();

  /** Parks a basket (its nested ids derive from `id`). */
  park(b: Omit<Basket, 'ids'>): Basket {
    const basket = { ...b, ids: nestedOrderIds(b.actions, b.id) };
    this.baskets.set(b.id, basket);
    return basket;
  }

  /** Holds `actions` until order `parentId` of `account` fills. */
  hold(account: string, nonce: bigint, parentId: string, actions: readonly Action[]): void {
    this.onFill.set(parentId, { account, nonce, parentId, actions, ids: nestedOrderIds(actions, parentId) });
  }

  /** The on-fill actions of `parentId`, taken out of the book (to run now: the order filled at once). */
  release(parentId: string): PendingOnFill | undefined {
    const held = this.onFill.get(parentId);
    this.onFill.delete(parentId);
    return held;
  }

  /** Takes `account`'s basket `id` off the book (a cancel); undefined when it holds no such basket. */
  cancel(account: string, id: string): Basket | undefined {
    const b = this.baskets.get(id);
    if (b?.account !== account) return undefined;
    this.baskets.delete(id);
    return b;
  }

  /** Takes `account`'s baskets in `symbols` (every symbol when empty) off the book. */
  cancelAll(account: string, symbols: readonly string[]): Basket[] {
    const out = this.basketsOf(account).filter((b) => symbols.length === 0 || symbols.includes(b.symbol));
    for (const b of out) this.baskets.delete(b.id);
    return out;
  }

  basketsOf(account: string): Basket[] {
    return [...this.baskets.values()].filter((b) => b.account === account);
  }

  pendingOf(account: string): PendingOnFill[] {
    return [...this.onFill.values()].filter((p) => p.account === account);
  }

  /**
   * What is due after `events`: baskets the mark (`markOf`, 0 = unknown) has reached, and on-fill actions whose parent
   * filled; all taken out of the book. On-fill actions whose parent ended otherwise are dropped.
   */
  due(events: readonly EngineEvent[], markOf: (symbol: string) => number): { fired: Basket[]; filled: PendingOnFill[] } {
    const fired: Basket[] = [];
    const filled: PendingOnFill[] = [];
    if (this.onFill.size > 0)
      for (const e of events) {
        if (e.type !== 'orderUpdate') continue;
        const held = this.onFill.get(e.orderId);
        if (held === undefined) continue;
        if (e.status === 'filled') filled.push(held);
        else if (!TERMINAL_UNFILLED.test(e.status)) continue;
        this.onFill.delete(e.orderId);
      }
    for (const b of this.baskets.values()) {
      const mark = markOf(b.symbol);
      if (mark > 0 && (b.above ? mark >= b.triggerPx : mark <= b.triggerPx)) fired.push(b);
    }
    for (const b of fired) this.baskets.delete(b.id);
    return { fired, filled };
  }
}
