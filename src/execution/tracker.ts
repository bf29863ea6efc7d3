// Order tracker: each order's state machine (venue statuses + pendingNew / pendingCancel / unknown / untriggered), by predicted id.
// Invariants: never moves backwards (terminal final, filledSize monotonic); an event only when the owner's view changed;
// a terminal order answered without a reason takes the first reason a later fact of the same status carries (the stream may come second).

import type { VenueOrder } from '../core/account-data.js';
import type { IntentRef, OrderEvent, OrderRef, OrderSpec, OrderStatus, WhenMark } from '../core/intent.js';
import { TERMINAL_STATUSES, type LocalOrderStatus } from '../core/intent.js';
import type { VenueOrderFact } from '../venue/port.js';

export function isTerminal(status: LocalOrderStatus | undefined): boolean {
  return status !== undefined && TERMINAL_STATUSES.has(status);
}

/** placed < working < terminal; undefined (nothing heard yet) lowest. */
function rank(status: OrderStatus | undefined): number {
  if (status === undefined) return 0;
  if (status === 'placed') return 1;
  if (status === 'working') return 2;
  return 3;
}

/** What callers outside execution may read about an order. */
export interface OrderView {
  readonly key: number;
  readonly orderId: string | undefined;
  /** `orderId`, or `local:<key>` for an order that never reached the wire. */
  readonly eventId: string;
  readonly strategy: string;
  readonly spec: OrderSpec;
  readonly cloid: string | undefined;
  readonly status: LocalOrderStatus;
  readonly terminal: boolean;
  /** Base units. */
  readonly filledSize: number;
  readonly remaining: number;
  readonly reason: string | undefined;
  readonly adopted: boolean;
}

/** Orders parked together in one trigger basket (a `basket` intent): `members[0]` carries its place and its cancel. */
export interface TrackedBasket {
  /** The market whose mark fires it. */
  readonly symbol: string;
  readonly whenMark: WhenMark;
  /** The members' specs, in order (the intent's). */
  readonly specs: readonly OrderSpec[];
  readonly members: readonly TrackedOrder[];
}

/** One order as execution knows it. Fields are written by the Tracker only. */
export class TrackedOrder implements OrderView {
  /** Predicted venue order id; undefined while the order waits in a batch. */
  orderId: string | undefined = undefined;
  /** The latest venue status (monotonic); undefined until the venue said something. */
  venue: OrderStatus | undefined = undefined;
  /** Base units filled (monotonic). */
  filledSize = 0;
  /** A trigger order the venue reported on the book or trading (no longer parked); monotonic. */
  fired = false;
  /** A cancel was requested and not yet answered. */
  cancelPending = false;
  /** Its submit outcome is unknown and not yet resolved. */
  unknown = false;
  /** Sent; the answer to its request has not arrived. */
  inFlight = false;
  /** Cancel it as soon as it is known to rest (a cancel asked while it was in flight or unknown). */
  cancelAfterAck = false;
  /** Known from the venue only (reconciliation), not placed by this process. */
  adopted = false;
  reason: string | undefined = undefined;
  /** The last event the owner was told (status, filled size, reason, id are compared), so an unchanged view is not repeated. */
  told: OrderEvent | undefined = undefined;
  /** The order whose fill places this one (OrderSpec.onFill), when it is such a child. */
  heldBy: TrackedOrder | undefined = undefined;
  /** Its on-fill orders, in spec order, when it has any. */
  children: TrackedOrder[] | undefined = undefined;
  /** The id of the trigger basket it waits in (OrderSpec.whenMark), when it is parked in one. */
  parkedId: string | undefined = undefined;
  /** The basket of several orders it belongs to (a `basket` intent), when it does. */
  basket: TrackedBasket | undefined = undefined;

  constructor(
    /** Local sequence number, unique in the process. */
    readonly key: number,
    readonly strategy: string,
    readonly spec: OrderSpec,
    /** Client order id (base58 32 bytes), when the order has a client tag and the codec carries client order ids. */
    readonly cloid: string | undefined,
    /** Set when another live order of the strategy carries the same tag (it will be refused as a duplicate). */
    readonly duplicateOf: TrackedOrder | undefined,
    /** The intent that placed it, when one did. */
    readonly intent: IntentRef | undefined = undefined,
  ) {}

  get status(): LocalOrderStatus {
    if (this.venue !== undefined && rank(this.venue) === 3) return this.venue;
    if (this.cancelPending) return 'pendingCancel';
    if (this.unknown) return 'unknown';
    if (this.venue === 'placed' && (this.spec.trigger !== undefined || this.parkedId !== undefined) && !this.fired) return 'untriggered';
    if (this.venue === undefined && this.heldBy?.terminal === false && this.heldBy.orderId !== undefined) return 'untriggered';
    return this.venue ?? 'pendingNew';
  }

  /** The id the venue knows it by now (answers, queries and cancels name it): the basket's while the order waits in one, else its own. */
  get cancelId(): string | undefined {
    return this.parkedId !== undefined && !this.fired ? this.parkedId : this.orderId;
  }

  get terminal(): boolean {
    return rank(this.venue) === 3;
  }

  /** Base units still open. */
  get remaining(): number {
    return Math.max(0, this.spec.size - this.filledSize);
  }

  /** The id events carry: the venue id, or `local:<key>` for an order that never reached the wire. */
  get eventId(): string {
    return this.orderId ?? `local:${this.key}`;
  }
}

export type EventListener = (event: OrderEvent, order: TrackedOrder) => void;

export interface TrackerOptions {
  /** Epoch ms for event times. */
  nowMs: () => number;
  onEvent: EventListener;
  /** Client order id for a new use of `tag` by `strategy` (`sequence` is unique per use); none when absent (the codec has no client order ids). */
  cloid?: (strategy: string, tag: string, sequence: number) => string;
  /** Terminal orders kept so late facts about them are recognised (oldest forgotten first). Default 10 000. */
  keepTerminal?: number;
}

const tagKey = (strategy: string, tag: string) => `${strategy}\u0000${tag}`;

/** Appends the orders of `bySymbol` in `symbol` (every symbol when undefined) to `out`. */
function collect(bySymbol: ReadonlyMap<string, ReadonlySet<TrackedOrder>>, symbol: string | undefined, out: TrackedOrder[]): void {
  if (symbol !== undefined) {
    const set = bySymbol.get(symbol);
    if (set) for (const o of set) out.push(o);
  } else for (const set of bySymbol.values()) for (const o of set) out.push(o);
}

export class Tracker {
  private readonly byId = new Map<string, TrackedOrder>();
  /** Non-terminal orders by strategy, then symbol. */
  private readonly open = new Map<string, Map<string, Set<TrackedOrder>>>();
  private readonly tags = new Map<string, TrackedOrder>();
  private readonly retired: string[] = [];
  private retiredHead = 0;
  private readonly keepTerminal: number;
  private nextKey = 1;

  constructor(private readonly opts: TrackerOptions) {
    this.keepTerminal = opts.keepTerminal ?? 10_000;
  }

  /**
   * A new order waiting to be sent (status pendingNew, no id yet). A tag already carried by a live order of the
   * strategy is a duplicate: the new order reuses that order's client id (so the venue refuses it) and `duplicateOf` says so.
   */
  create(strategy: string, spec: OrderSpec, intent?: IntentRef): TrackedOrder {
    const key = this.nextKey++;
    let cloid: string | undefined;
    let duplicateOf: TrackedOrder | undefined;
    const tag = spec.clientTag;
    if (tag !== undefined) {
      const bound = this.tags.get(tagKey(strategy, tag));
      if (bound && !bound.terminal && !bound.cancelPending) {
        duplicateOf = bound;
        cloid = bound.cloid;
      } else cloid = this.opts.cloid?.(strategy, tag, key);
    }
    const order = new TrackedOrder(key, strategy, spec, cloid, duplicateOf, intent);
    if (tag !== undefined && !duplicateOf) this.tags.set(tagKey(strategy, tag), order);
    this.openSet(strategy, spec.symbol).add(order);
    if (spec.onFill !== undefined)
      order.children = spec.onFill.map((child) => {
        const held = this.create(strategy, child, intent);
        held.heldBy = order;
        return held;
      });
    return order;
  }

  /**
   * The orders of a `basket` intent, each a new order waiting to be sent (as create), parked together: returns the
   * first, which carries the basket's place. `specs` must not be empty.
   */
  createBasket(strategy: string, symbol: string, whenMark: WhenMark, specs: readonly OrderSpec[], intent?: IntentRef): TrackedOrder {
    const members: TrackedOrder[] = [];
    const basket: TrackedBasket = { symbol, whenMark, specs, members };
    for (let j = 0; j < specs.length; j++) {
      const spec = specs[j]!;
      let leg = intent?.leg ?? 0;
      for (let k = 0; k < j; k++) if (specs[k]!.symbol === spec.symbol && specs[k]!.side === spec.side) leg++;
      const order = this.create(strategy, spec, intent && { ...intent, leg });
      order.basket = basket;
      members.push(order);
    }
    return members[0]!;
  }

  /** Forgets an order that was never sent (withdrawn from its batch), with its on-fill orders or its basket; no event. */
  drop(order: TrackedOrder): void {
    if (order.orderId !== undefined) throw new Error(`order ${order.orderId} was sent; it cannot be dropped`);
    for (const o of order.basket?.members ?? [order]) {
      this.unlist(o);
      for (const child of o.children ?? []) this.unlist(child);
    }
  }

  /** The id predicted at signing: the order is now in flight (pendingNew event). */
  sent(order: TrackedOrder, orderId: string): void {
    order.orderId = orderId;
    order.inFlight = true;
    this.byId.set(orderId, order);
    this.emit(order);
  }

  /** The ids predicted at signing for `order`'s on-fill orders (Encoded.childOrderIds): each is now held (untriggered event). */
  sentChildren(order: TrackedOrder, childIds: readonly (string | null)[]): void {
    const children = order.children ?? [];
    for (let j = 0; j < children.length; j++) {
      const child = children[j]!;
      const id = childIds[j];
      if (id == null) throw new Error(`no id for on-fill order ${j} of ${order.orderId}`);
      child.orderId = id;
      this.byId.set(id, child);
      this.emit(child);
    }
  }

  /** Sent parked in trigger basket `basketId` (OrderSpec.whenMark): known by its own id and, while parked, the basket's. */
  sentParked(order: TrackedOrder, orderId: string, basketId: string): void {
    order.parkedId = basketId;
    this.byId.set(basketId, order);
    this.sent(order, orderId);
  }

  /** The ids predicted at signing for a basket's members (Encoded.childOrderIds), parked in basket `basketId`. */
  sentBasket(basket: TrackedBasket, memberIds: readonly (string | null)[], basketId: string): void {
    const members = basket.members;
    for (let j = 0; j < members.length; j++) {
      const id = memberIds[j];
      if (id == null) throw new Error(`no id for order ${j} of basket ${basketId}`);
      this.sentParked(members[j]!, id, basketId);
    }
    this.byId.set(basketId, members[0]!);
  }

  /** The order's request was answered (or found unknown): it is no longer in flight (nor the rest of its parked basket). */
  answered(order: TrackedOrder): void {
    if (order.basket === undefined || order.fired) order.inFlight = false;
    else for (const o of order.basket.members) o.inFlight = false;
  }

  /** A venue fact about an order (answer item, order update, open or ended order). Returns the order when it changed anything. */
  apply(fact: VenueOrderFact): TrackedOrder | undefined {
    const order = this.byId.get(fact.orderId);
    if (!order) return undefined;
    const filled = fact.filledSize === undefined ? undefined : Math.abs(fact.filledSize);
    if (order.parkedId !== undefined) {
      // The basket's own facts say parked or cancelled (its fill, of size 0, only means it ran); the order's say it fired.
      if (fact.orderId === order.orderId) return this.applyTo(order, fact.status, filled, fact.reason, true);
      if (fact.status === 'filled' || fact.status === 'partiallyFilled') return undefined;
      if (order.basket !== undefined) {
        let changed = false;
        for (const o of order.basket.members) if (this.applyTo(o, fact.status, undefined, fact.reason, fact.parked === false)) changed = true;
        return changed ? order.basket.members[0] : undefined;
      }
    }
    return this.applyTo(order, fact.status, filled, fact.reason, fact.parked === false);
  }

  /** Concludes an order locally (never reached the venue, or vanished from it), as the terminal `status`. */
  conclude(order: TrackedOrder, status: OrderStatus, reason: string): void {
    if (order.terminal) return;
    this.applyTo(order, status, undefined, reason);
  }

  /** A cancel was requested (pendingCancel event; for each order of a parked basket, the basket's cancel). */
  requestCancel(order: TrackedOrder): void {
    if (order.basket === undefined || order.fired) this.cancelRequested(order);
    else for (const o of order.basket.members) this.cancelRequested(o);
  }

  /** The cancel did not happen: back to the venue status, with the reason (each order of a parked basket). */
  cancelFailed(order: TrackedOrder, reason: string): void {
    if (order.basket === undefined || order.fired) this.cancelUndone(order, reason);
    else for (const o of order.basket.members) this.cancelUndone(o, reason);
  }

  /** Cancel it once it is known to rest (its cancel was asked while it was in flight or unknown). */
  deferCancel(order: TrackedOrder): void {
    order.cancelAfterAck = !order.terminal;
  }

  /** Takes the deferred cancel of `order` when it is due (known to rest, answered); true when the cancel should go now. */
  takeDeferredCancel(order: TrackedOrder): boolean {
    if (!order.cancelAfterAck || order.terminal) return false;
    if (order.inFlight || order.unknown || order.venue === undefined || order.orderId === undefined) return false;
    order.cancelAfterAck = false;
    return true;
  }

  /** Tells the owner something about the order without a state change (e.g. a refused cancel), as an event. */
  note(order: TrackedOrder, reason: string): void {
    order.reason = reason;
    this.emit(order);
  }

  /** The submit outcome is unknown (unknown event until a fact arrives; each order of a parked basket). */
  markUnknown(order: TrackedOrder, reason: string): void {
    if (order.basket === undefined || order.fired) this.unknownNow(order, reason);
    else for (const o of order.basket.members) this.unknownNow(o, reason);
  }

  /** Takes over a resting order this process did not place, for `owner`. */
  adopt(row: VenueOrder, owner: string): TrackedOrder {
    const existing = this.byId.get(row.orderId);
    if (existing && !existing.terminal) return existing;
    const spec: OrderSpec = {
      symbol: row.symbol,
      side: row.side,
      price: row.price,
      size: row.originalSize,
      tif: row.tif ?? 'GTC',
      reduceOnly: row.reduceOnly ?? false,
    };
    const order = new TrackedOrder(this.nextKey++, owner, spec, undefined, undefined);
    order.adopted = true;
    order.orderId = row.orderId;
    order.venue = row.status;
    order.filledSize = row.filledSize;
    order.reason = 'adopted';
    this.byId.set(row.orderId, order);
    this.openSet(owner, spec.symbol).add(order);
    this.emit(order);
    return order;
  }

  /** Still listed as open (not terminal, not dropped). */
  isOpen(order: TrackedOrder): boolean {
    return this.open.get(order.strategy)?.get(order.spec.symbol)?.has(order) === true;
  }

  get(orderId: string): TrackedOrder | undefined {
    return this.byId.get(orderId);
  }

  /** A live order of `strategy` by venue id or tag (undefined when none is live). */
  find(strategy: string, ref: OrderRef): TrackedOrder | undefined {
    const order = 'orderId' in ref ? this.byId.get(ref.orderId) : this.tags.get(tagKey(strategy, ref.clientTag));
    return order && order.strategy === strategy && !order.terminal ? order : undefined;
  }

  /** Non-terminal orders (including pending ones) of `strategy` (every strategy when undefined), in `symbol` or all: a new array. */
  openOrders(strategy?: string, symbol?: string): TrackedOrder[] {
    const out: TrackedOrder[] = [];
    if (strategy !== undefined) {
      const bySymbol = this.open.get(strategy);
      if (bySymbol) collect(bySymbol, symbol, out);
    } else for (const bySymbol of this.open.values()) collect(bySymbol, symbol, out);
    return out;
  }

  /** Open plus pending orders, all strategies. */
  openOrderCount(): number {
    let n = 0;
    for (const bySymbol of this.open.values()) for (const set of bySymbol.values()) n += set.size;
    return n;
  }

  /** Base units open and pending orders in `symbol` would add if all filled, per side. */
  openOrderSizes(symbol: string): { buy: number; sell: number } {
    const out = { buy: 0, sell: 0 };
    for (const bySymbol of this.open.values()) for (const o of bySymbol.get(symbol) ?? []) out[o.spec.side] += o.remaining;
    return out;
  }

  private applyTo(order: TrackedOrder, next: OrderStatus, filled: number | undefined, reason: string | undefined, fired = false): TrackedOrder | undefined {
    let changed = false;
    if (fired && (order.spec.trigger !== undefined || order.parkedId !== undefined) && !order.fired && !order.terminal) {
      order.fired = true;
      changed = true;
    }
    if (filled !== undefined && filled > order.filledSize) {
      order.filledSize = filled;
      changed = true;
    }
    if (order.terminal) {
      if (reason !== undefined && order.reason === undefined && next === order.venue) {
        order.reason = reason;
        changed = true;
      }
      if (changed) this.emit(order);
      return changed ? order : undefined;
    }
    if (rank(next) > rank(order.venue)) {
      order.venue = next;
      changed = true;
      if (rank(next) === 3) {
        order.cancelPending = false;
        order.cancelAfterAck = false;
        order.reason = reason;
      }
    }
    if (order.unknown) {
      order.unknown = false;
      changed = true;
    }
    if (!changed) return undefined;
    if (order.terminal) this.retire(order);
    this.emit(order);
    if (order.terminal && order.children !== undefined && order.venue !== 'filled') {
      const why = `on-fill order not placed: ${order.eventId} ended ${order.venue} without filling completely`;
      for (const child of order.children) if (child.venue === undefined) this.applyTo(child, 'cancelled', undefined, why);
    }
    if (order.terminal && order.basket !== undefined && !order.fired)
      for (const o of order.basket.members) if (!o.fired) this.applyTo(o, order.venue!, undefined, order.reason);
    return order;
  }

  private cancelRequested(order: TrackedOrder): void {
    if (order.terminal || order.cancelPending) return;
    order.cancelPending = true;
    order.reason = undefined;
    this.emit(order);
  }

  private cancelUndone(order: TrackedOrder, reason: string): void {
    if (order.terminal || !order.cancelPending) return;
    order.cancelPending = false;
    order.cancelAfterAck = false;
    order.reason = reason;
    this.emit(order);
  }

  private unknownNow(order: TrackedOrder, reason: string): void {
    if (order.terminal || order.venue !== undefined || order.unknown) return;
    order.unknown = true;
    order.reason = reason;
    this.emit(order);
  }

  private openSet(strategy: string, symbol: string): Set<TrackedOrder> {
    let bySymbol = this.open.get(strategy);
    if (!bySymbol) this.open.set(strategy, (bySymbol = new Map()));
    let set = bySymbol.get(symbol);
    if (!set) bySymbol.set(symbol, (set = new Set()));
    return set;
  }

  private unlist(order: TrackedOrder): void {
    const bySymbol = this.open.get(order.strategy);
    const set = bySymbol?.get(order.spec.symbol);
    set?.delete(order);
    if (set?.size === 0) bySymbol!.delete(order.spec.symbol);
    if (bySymbol?.size === 0) this.open.delete(order.strategy);
    const tag = order.spec.clientTag;
    if (tag !== undefined && this.tags.get(tagKey(order.strategy, tag)) === order) this.tags.delete(tagKey(order.strategy, tag));
  }

  private retire(order: TrackedOrder): void {
    this.unlist(order);
    if (order.orderId === undefined) return;
    this.retired.push(order.orderId);
    if (order.parkedId !== undefined && this.byId.get(order.parkedId) === order) this.retired.push(order.parkedId);
    if (this.retired.length - this.retiredHead > this.keepTerminal) {
      const old = this.retired[this.retiredHead++]!;
      if (this.byId.get(old)?.terminal) this.byId.delete(old);
      if (this.retiredHead > 4096 && this.retiredHead * 2 > this.retired.length) {
        this.retired.splice(0, this.retiredHead);
        this.retiredHead = 0;
      }
    }
  }

  private emit(order: TrackedOrder): void {
    const s = order.spec;
    const status = order.status;
    const orderId = order.eventId;
    const last = order.told;
    if (last && last.status === status && last.filledSize === order.filledSize && (last.reason ?? '') === (order.reason ?? '') && last.orderId === orderId)
      return;
    const event: OrderEvent = {
      strategy: order.strategy,
      orderId,
      clientTag: s.clientTag,
      symbol: s.symbol,
      side: s.side,
      price: s.price ?? 0,
      size: s.size,
      filledSize: order.filledSize,
      status,
      reason: order.reason,
      timeMs: this.opts.nowMs(),
      ...(order.intent && { intent: order.intent }),
    };
    order.told = event;
    this.opts.onEvent(event, order);
  }
}
