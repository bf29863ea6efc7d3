// Test helpers for the venue engine: a manual clock, an engine factory and order-item builders.
// Invariant: nothing here is random; every engine starts at the same time with the same seed unless told.

import { Engine } from '../../../src/venue-sim/engine/index.js';
import type { EngineOptions, ItemStatus, OrderActionItem, PlaceOrderItem } from '../../../src/venue-sim/engine/index.js';

export const T0 = 1_700_000_000_000_000_000n;

export class ManualClock {
  constructor(public ns: bigint = T0) {}
  nowNs(): bigint {
    return this.ns;
  }
  advance(ns: bigint | number): void {
    this.ns += BigInt(ns);
  }
}

export function makeEngine(opts: Partial<EngineOptions> = {}): { engine: Engine; clock: ManualClock } {
  const clock = (opts.clock as ManualClock | undefined) ?? new ManualClock();
  const engine = new Engine({ seed: 7, ...opts, clock });
  return { engine, clock };
}

export const ALICE = 'Alice1111111111111111111111111111111111111';
export const BOB = 'Bob11111111111111111111111111111111111111';
export const CAROL = 'Caro11111111111111111111111111111111111111';
export const DAVE = 'Dave11111111111111111111111111111111111111';

export function limit(c: string, b: boolean, px: number, sz: number, tif: 'GTC' | 'IOC' | 'ALO' = 'GTC', extra: Partial<PlaceOrderItem> = {}): OrderActionItem {
  return { order: { c, b, px, sz, r: false, t: { limit: { tif } }, ...extra } };
}

export function market(c: string, b: boolean, sz: number, extra: Partial<PlaceOrderItem> = {}): OrderActionItem {
  return { order: { c, b, px: 0, sz, r: false, t: { trigger: { is_market: true, triggerPx: 0 } }, ...extra } };
}

export function trigger(c: string, b: boolean, sz: number, triggerPx: number, px = 0, extra: Partial<PlaceOrderItem> = {}): OrderActionItem {
  return { order: { c, b, px, sz, r: false, t: { trigger: { is_market: px === 0, triggerPx } }, ...extra } };
}

let seq = 0;
/** A fresh, readable order id. */
export function oid(tag = 'o'): string {
  return `${tag}${++seq}`;
}

/** Places one item with a fresh id and returns [status, id]. */
export function place(engine: Engine, account: string, item: OrderActionItem, id = oid()): [ItemStatus, string] {
  const r = engine.applyOrderAction(account, [item], { ids: [id] });
  return [r.statuses[0]!, id];
}

export function statusKey(s: ItemStatus): string {
  return Object.keys(s)[0]!;
}
