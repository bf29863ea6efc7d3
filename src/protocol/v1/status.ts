// The 14 order statuses of the v1 status table, their class (non-terminal / terminal / response-only) and spellings.
// Invariant: `placed` is keyed `resting` in order responses and nowhere else; `error` is never an order's state.

import { NON_TERMINAL_ORDER_STATUSES, TERMINAL_ORDER_STATUSES } from '../../core/intent.js';
import { literal } from '../../core/schema.js';

export const NON_TERMINAL_STATUSES = NON_TERMINAL_ORDER_STATUSES;
export const TERMINAL_STATUSES = TERMINAL_ORDER_STATUSES;
export const RESPONSE_ONLY_STATUSES = ['error'] as const;

/** All 14 statuses of the specification's table, in table order. */
export const ORDER_STATUSES = [...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES, ...RESPONSE_ONLY_STATUSES] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
/** A status an order can be in (everything but the response-only `error`). */
export type OrderState = Exclude<OrderStatus, 'error'>;
export type StatusClass = 'nonTerminal' | 'terminal' | 'responseOnly';

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_STATUSES);

export function isTerminalStatus(status: string): status is TerminalStatus {
  return TERMINAL.has(status);
}

export function statusClass(status: OrderStatus): StatusClass {
  if (isTerminalStatus(status)) return 'terminal';
  return status === 'error' ? 'responseOnly' : 'nonTerminal';
}

export const orderStateSchema = literal(...NON_TERMINAL_STATUSES, ...TERMINAL_STATUSES);
export const terminalStatusSchema = literal(...TERMINAL_STATUSES);
