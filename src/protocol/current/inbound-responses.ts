// The current generation's answer to POST /order (venue-protocol §8.4, §4.3, §10.1–10.2): one status entry per
// execution event, in any action. Invariants: status keys match case-insensitively; inbound, so unknown fields are ignored.

import { array, custom, invalid, literal, maybe, number, object, oneKey, parse, record, string, union, type Infer } from '../../core/schema.js';
import { key32 } from '../pubkey.js';
import { textSchema } from '../v1/account.js';
import { errorBodySchema, type ErrorBody } from '../v1/responses.js';
import { anyObject, caseInsensitive, isBuyOf } from './inbound-fields.js';

const oid = key32();
const oidOnly = object({ oid });
const oidReason = object({ oid, reason: maybe(textSchema) });
/** `totalSz` is signed: negative = sell. */
const fillTotal = object({ oid, totalSz: number(), avgPx: number() });
const message = object({ message: textSchema });

/** Payload of each status key, canonical spelling; sizes are signed (negative = sell). */
const STATUS_PAYLOADS = {
  resting: oidOnly,
  working: object({ oid, filledSz: number(), remainingSz: number(), vwap: number() }),
  triggered: oidOnly,
  filled: fillTotal,
  partiallyFilled: fillTotal,
  cancelled: oidOnly,
  cancelledRiskLimit: oidReason,
  cancelledSelfCrossing: oidOnly,
  cancelledReduceOnly: oidOnly,
  cancelledIoc: object({ oid, filledSz: number() }),
  rejectedCrossing: oidOnly,
  rejectedDuplicate: oidOnly,
  rejectedRiskLimit: oidReason,
  rejectedInvalid: oidReason,
  triggerFailed: oidReason,
  siblingCancelled: oidOnly,
  cancelOneRejected: object({ oid, reason: textSchema }),
  cancelAllRejected: object({ reason: textSchema }),
  deposit: object({ amount: number() }),
  depositFailed: message,
  agentWallet: union([object({ agentWallet: key32() }), object({ agent_wallet: key32() })]),
  agentWalletFailed: message,
  transfer: object({ from: key32(), to: key32(), symbol: string({ maxLength: 64 }), amount: number() }),
  transferFailed: message,
  createSubAccount: object({ master: key32(), sub: key32(), name: textSchema, margin: maybe(number()) }),
  createSubAccountFailed: message,
  removeSubAccount: object({ account: key32(), marginMoved: number() }),
  removeSubAccountFailed: message,
  renameSubAccount: anyObject,
  renameSubAccountFailed: message,
  multisigCreated: anyObject,
  multisigCreatedFailed: message,
  error: message,
};
const knownEntry = oneKey(STATUS_PAYLOADS);
const canonicalKey = caseInsensitive(Object.keys(STATUS_PAYLOADS) as (keyof typeof STATUS_PAYLOADS)[]);
/** Multisig proposal statuses (`proposalCreated`, `proposalExecuted`, ...): payloads the docs do not give. */
const PROPOSAL = /^proposal/i;
const proposalEntry = record(anyObject);

export type ProposalEntry = { [K in `proposal${string}`]: Record<string, unknown> };
export type CurrentStatusEntry = Infer<typeof knownEntry> | ProposalEntry;

/** One entry of `statuses`: exactly one key, matched case-insensitively (`cancelledIOC` is `cancelledIoc`). */
export const statusEntrySchema = custom<CurrentStatusEntry>(
  'a status entry',
  (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return invalid('expected an object keyed by a status name');
    const keys = Object.keys(v);
    if (keys.length !== 1) return invalid(`expected exactly one status key, got ${keys.length}`);
    const key = keys[0]!;
    const payload = (v as Record<string, unknown>)[key];
    if (PROPOSAL.test(key)) return proposalEntry.run(v) as ProposalEntry;
    return knownEntry.run({ [canonicalKey(key) ?? key]: payload });
  },
  true,
);

export const orderResponseSchema = object({
  status: literal('ok', 'error'),
  response: object({ type: literal('order'), data: object({ statuses: array(statusEntrySchema) }) }),
});
export type CurrentOrderResponse = Infer<typeof orderResponseSchema>;

type FillTotal = Infer<typeof fillTotal>;
type Remapped = 'working' | 'filled' | 'partiallyFilled' | 'cancelledIoc' | 'agentWallet';
/** A status entry in the v1 model: v1 keys and unsigned sizes (with the side as `isBuy`); current-only keys unchanged. */
export type StatusEntryModel =
  | Exclude<CurrentStatusEntry, { [K in Remapped]: unknown }>
  | { working: { oid: string; filledSz: number; remainingSz: number; vwap: number; isBuy: boolean } }
  | { filled: FillTotal & { isBuy: boolean } }
  | { partiallyFilled: FillTotal & { isBuy: boolean } }
  | { cancelledIOC: { oid: string; filledSz: number } }
  | { agentWallet: { agentWallet: string } };
export type OrderResponseModel = Omit<CurrentOrderResponse, 'response'> & { response: { type: 'order'; data: { statuses: StatusEntryModel[] } } };

function fillTotalModel(f: FillTotal): FillTotal & { isBuy: boolean } {
  return { ...f, totalSz: Math.abs(f.totalSz), isBuy: isBuyOf(f.totalSz, 0) };
}

/** `cancelledIoc` becomes v1's `cancelledIOC`, `agent_wallet` becomes `agentWallet`; signed sizes become size and side. */
export function statusEntryModel(entry: CurrentStatusEntry): StatusEntryModel {
  if ('working' in entry) {
    const w = entry.working;
    return { working: { ...w, filledSz: Math.abs(w.filledSz), remainingSz: Math.abs(w.remainingSz), isBuy: isBuyOf(w.filledSz, w.remainingSz) } };
  }
  if ('filled' in entry) return { filled: fillTotalModel(entry.filled) };
  if ('partiallyFilled' in entry) return { partiallyFilled: fillTotalModel(entry.partiallyFilled) };
  if ('cancelledIoc' in entry) return { cancelledIOC: { ...entry.cancelledIoc, filledSz: Math.abs(entry.cancelledIoc.filledSz) } };
  if ('agentWallet' in entry) {
    const a = entry.agentWallet;
    return { agentWallet: { agentWallet: 'agentWallet' in a ? a.agentWallet : a.agent_wallet } };
  }
  return entry;
}

export function orderResponseModel(r: CurrentOrderResponse): OrderResponseModel {
  return { status: r.status, response: { type: r.response.type, data: { statuses: r.response.data.statuses.map(statusEntryModel) } } };
}

/** Validates a POST /order answer (or the top-level error body) and maps it onto the model; throws ValidationError naming the field. */
export function parseCurrentActionResponse(json: unknown): OrderResponseModel | ErrorBody {
  const looksLikeErrorBody = typeof json === 'object' && json !== null && 'error' in json && !('response' in json);
  return looksLikeErrorBody ? parse(errorBodySchema, json) : orderResponseModel(parse(orderResponseSchema, json));
}
