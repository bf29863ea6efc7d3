// Field schemas shared by the current dialect's inbound payloads (statuses, time in force, order types, triggers,
// timestamps) and their v1 counterparts. Invariant: spellings the venue varies are matched case-insensitively.

import { boolean, custom, invalid, literal, maybe, number, object, record, string, transform, u64, type Infer, type Schema } from '../../core/schema.js';
import type { OrderState, TerminalStatus } from '../v1/status.js';

/**
 * A string enum matched case-insensitively, with `canceled…` read as `cancelled…` (venue-protocol §9.4: docs pages
 * spell `cancelledIOC` and `canceled`); yields the canonical spelling in `names`.
 */
export function caseInsensitive<const N extends string>(names: readonly N[]): (text: string) => N | undefined {
  const byLower = new Map(names.map((n) => [n.toLowerCase(), n]));
  return (text) => {
    const lower = text.toLowerCase();
    return byLower.get(lower.startsWith('canceled') ? `cancelled${lower.slice(8)}` : lower);
  };
}

function enumSchema<const N extends string>(what: string, names: readonly N[]): Schema<N> {
  const canonical = caseInsensitive(names);
  return custom(
    what,
    (v) => {
      const n = typeof v === 'string' ? canonical(v) : undefined;
      return n ?? invalid(`expected ${what} (${names.join(', ')}), got ${typeof v === 'string' ? JSON.stringify(v.slice(0, 64)) : typeof v}`);
    },
    true,
  );
}

/** Order statuses of the current generation, canonical spelling (venue-protocol §9.4). */
export const CURRENT_NON_TERMINAL = ['pending', 'placed', 'resting', 'working', 'modified', 'triggered'] as const;
export const CURRENT_TERMINAL = [
  'filled',
  'partiallyFilled',
  'cancelled',
  'cancelledRiskLimit',
  'cancelledSelfCrossing',
  'cancelledReduceOnly',
  'cancelledIoc',
  'rejectedCrossing',
  'rejectedDuplicate',
  'rejectedRiskLimit',
  'rejectedInvalid',
  'siblingCancelled',
  'triggerFailed',
] as const;
export type CurrentOrderStatus = (typeof CURRENT_NON_TERMINAL)[number] | (typeof CURRENT_TERMINAL)[number];
export const currentStatusSchema = enumSchema<CurrentOrderStatus>('an order status', [...CURRENT_NON_TERMINAL, ...CURRENT_TERMINAL]);

/** The v1 status of each terminal status. */
const TERMINAL_AS_V1: Partial<Record<CurrentOrderStatus, TerminalStatus>> = {
  filled: 'filled',
  partiallyFilled: 'partiallyFilled',
  cancelled: 'cancelled',
  cancelledRiskLimit: 'cancelledRiskLimit',
  cancelledSelfCrossing: 'cancelledSelfCrossing',
  cancelledReduceOnly: 'cancelledReduceOnly',
  cancelledIoc: 'cancelledIOC',
  rejectedCrossing: 'rejectedCrossing',
  rejectedDuplicate: 'rejectedDuplicate',
  rejectedRiskLimit: 'rejectedRiskLimit',
  rejectedInvalid: 'rejectedInvalid',
  siblingCancelled: 'cancelled',
  triggerFailed: 'rejectedInvalid',
} satisfies Record<(typeof CURRENT_TERMINAL)[number], TerminalStatus>;

/**
 * The v1 state of an order in `status` with `filledSize` filled: every non-terminal status is `placed`, or `working`
 * once something filled; `siblingCancelled` is `cancelled`, `triggerFailed` is `rejectedInvalid`.
 */
export function v1State(status: CurrentOrderStatus, filledSize: number): OrderState {
  return TERMINAL_AS_V1[status] ?? (filledSize > 0 ? 'working' : 'placed');
}

/** Time in force of rows and order updates (`postOnly` is the v1 `alo`). */
export const currentTifSchema = enumSchema('a time in force', ['gtc', 'ioc', 'postOnly', 'alo']);
export type CurrentTif = Infer<typeof currentTifSchema>;
export function v1Tif(tif: CurrentTif): 'gtc' | 'ioc' | 'alo' {
  return tif === 'postOnly' ? 'alo' : tif;
}

export const currentOrderTypeSchema = literal('limit', 'market', 'stop', 'takeProfit', 'range', 'trigger', 'trailing');
export type CurrentOrderType = Infer<typeof currentOrderTypeSchema>;
/** The v1 row order type: conditional orders of every kind are v1 `trigger` orders. */
export function v1OrderType(type: CurrentOrderType): 'limit' | 'market' | 'trigger' {
  return type === 'limit' || type === 'market' ? type : 'trigger';
}

/** Trigger parameters of a conditional order (`oco` is the sibling's order id). */
export const triggerSchema = object({
  isAbove: maybe(boolean()),
  px: number(),
  lim: maybe(number()),
  oco: maybe(string({ maxLength: 64 })),
  pxHi: maybe(number()),
  limHi: maybe(number()),
  trb: maybe(number({ integer: true, min: 0 })),
  stb: maybe(number({ integer: true, min: 0 })),
});
export type Trigger = Infer<typeof triggerSchema>;

const MS_BELOW = 1_000_000_000_000_000n;

/**
 * An epoch timestamp as exact ns: the docs say ms, the venue mostly sends ns (venue-protocol §12), so a value
 * below 1e15 is read as ms and scaled. Accepts what `u64()` accepts.
 */
export const nsTimestamp = transform(u64(), (t) => (t < MS_BELOW ? t * 1_000_000n : t));

/** A JSON value whose shape the docs do not give (kept as sent). */
export const anyValue = custom<unknown>('any value', (v) => v);
export const anyObject = record(anyValue);

/** Side of an order from its signed sizes (negative = sell): the original size, else the remaining one. */
export function isBuyOf(originalSize: number, size: number): boolean {
  return (originalSize !== 0 ? originalSize : size) >= 0;
}
