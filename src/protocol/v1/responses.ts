// Responses to the v1 signed actions: the `{status, response: {type, data: {statuses}}}` envelope of each action
// type (spec; gaps §2) and the top-level error body (gaps §4). Invariant: inbound, so unknown fields are ignored.

import { array, boolean, literal, maybe, number, object, oneKey, parse, string, type Infer, type Schema } from '../../core/schema.js';
import { key32 } from '../pubkey.js';
import { accountSettingsSchema, textSchema } from './account.js';
import type { ActionType } from './actions.js';

const oid = key32();
const oidOnly = object({ oid });
const oidReason = object({ oid, reason: maybe(textSchema) });
const fillTotal = object({ oid, totalSz: number(), avgPx: number() });
const message = object({ message: textSchema });

/** One entry of an order response's `statuses`, keyed by the response key of its status (`resting` for placed). */
export const orderStatusEntrySchema = oneKey({
  resting: oidOnly,
  working: object({ oid, filledSz: number(), remainingSz: number(), vwap: number() }),
  filled: fillTotal,
  partiallyFilled: fillTotal,
  cancelled: oidOnly,
  cancelledRiskLimit: oidReason,
  cancelledSelfCrossing: oidOnly,
  cancelledReduceOnly: oidOnly,
  cancelledIOC: object({ oid, filledSz: number() }),
  rejectedInvalid: oidReason,
  rejectedRiskLimit: oidReason,
  rejectedCrossing: oidOnly,
  rejectedDuplicate: oidOnly,
  error: message,
});
export type OrderStatusEntry = Infer<typeof orderStatusEntrySchema>;

export const userSettingsStatusSchema = oneKey({ settings: accountSettingsSchema, error: message });
export const agentWalletStatusSchema = oneKey({ agentWallet: object({ agent: key32(), delete: boolean() }), error: message });
export const faucetStatusSchema = oneKey({ deposit: object({ amount: number() }), depositFailed: message, error: message });
export const oracleStatusSchema = oneKey({ oracle: object({ count: number({ integer: true, min: 0 }) }), error: message });

function envelope<T extends ActionType, S>(type: T, status: Schema<S>) {
  return object({
    status: literal('ok', 'error'),
    response: object({ type: literal(type), data: object({ statuses: array(status) }) }),
  });
}

export const orderResponseSchema = envelope('order', orderStatusEntrySchema);
export const userSettingsResponseSchema = envelope('updateUserSettings', userSettingsStatusSchema);
export const agentWalletResponseSchema = envelope('agentWalletCreation', agentWalletStatusSchema);
export const faucetResponseSchema = envelope('faucet', faucetStatusSchema);
export const oracleResponseSchema = envelope('oracle', oracleStatusSchema);

export type OrderResponse = Infer<typeof orderResponseSchema>;
export type UserSettingsResponse = Infer<typeof userSettingsResponseSchema>;
export type AgentWalletResponse = Infer<typeof agentWalletResponseSchema>;
export type FaucetResponse = Infer<typeof faucetResponseSchema>;
export type OracleResponse = Infer<typeof oracleResponseSchema>;

/** The body of a request refused before any action ran (HTTP 400/404/413/429). */
export const errorBodySchema = object({ status: literal('error'), error: object({ code: string({ maxLength: 64 }), message: textSchema }) });
export type ErrorBody = Infer<typeof errorBodySchema>;

export const actionResponseSchemas = {
  order: orderResponseSchema,
  oracle: oracleResponseSchema,
  faucet: faucetResponseSchema,
  updateUserSettings: userSettingsResponseSchema,
  agentWalletCreation: agentWalletResponseSchema,
} satisfies Record<ActionType, Schema<unknown>>;
export type ActionResponse<T extends ActionType> = Infer<(typeof actionResponseSchemas)[T]>;

/** True for the top-level error body (it has `error` and no `response`). */
export function isErrorBody(value: ActionResponse<ActionType> | ErrorBody): value is ErrorBody {
  return !('response' in value);
}

/** Validates the answer to an action of `type`: its response envelope or the top-level error body. */
export function parseActionResponse<T extends ActionType>(type: T, value: unknown): ActionResponse<T> | ErrorBody {
  const looksLikeErrorBody = typeof value === 'object' && value !== null && 'error' in value && !('response' in value);
  if (looksLikeErrorBody) return parse(errorBodySchema, value);
  const schemas: { [K in ActionType]: Schema<ActionResponse<K>> } = actionResponseSchemas;
  return parse(schemas[type], value);
}
