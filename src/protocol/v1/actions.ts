// v1 signed actions (spec; gaps §2/§3): schemas and types of each action and endpoint request body, endpoint ↔ action map.
// Invariant: parsed actions hold only checked values (finite numbers, 32-byte keys, <BASE>-USD symbols); bodies are strict.

import {
  array,
  boolean,
  checkedWhen,
  custom,
  invalid,
  literal,
  number,
  object,
  oneKey,
  optional,
  refine,
  tagged,
  tuple,
  u64,
  type Infer,
  type Schema,
} from '../../core/schema.js';
import { symbolSchema } from '../../core/types.js';
import { base58Decode } from '../base58.js';
import { key32, publicKey32 } from '../pubkey.js';

/** Default maximum number of items in one `orders` batch (gaps §3; the venue may configure another). */
export const MAX_BATCH_ITEMS = 100;
/** Maximum length of the other lists in an action (cancelAll symbols, settings entries, oracle prices). */
export const MAX_LIST_ITEMS = 1000;

/** Action types, indexed by their wincode discriminant. */
export const ACTION_TYPES = ['order', 'oracle', 'faucet', 'updateUserSettings', 'agentWalletCreation'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** Endpoint path (relative to the /api/v1 base URL) of each action type. */
export const ACTION_PATHS = {
  order: '/order',
  oracle: '/private/oracle',
  faucet: '/private/faucet',
  updateUserSettings: '/user-settings',
  agentWalletCreation: '/agent-wallet',
} as const satisfies Record<ActionType, string>;

const PATH_ACTIONS: ReadonlyMap<string, ActionType> = new Map(ACTION_TYPES.map((t) => [ACTION_PATHS[t], t]));

/** The action type an endpoint path accepts, or undefined for a path that carries no signed action. */
export function actionTypeForPath(path: string): ActionType | undefined {
  return PATH_ACTIONS.get(path);
}

const STRICT = { strict: true } as const;
const price = number({ min: 0 });
const positivePrice = refine(number(), (p) => (p > 0 ? undefined : `must be > 0 (0 only for market orders), got ${p}`));
const marketPrice = refine(number(), (p) => (p === 0 ? undefined : `a market order (is_market true) has px 0.0 (specification), got ${p}`));
const size = number({ gt: 0 });
const nonce = optional(u64());

const limitType = object({ tif: literal('GTC', 'IOC', 'ALO') }, STRICT);
const triggerType = checkedWhen(object({ is_market: boolean(), triggerPx: price }, STRICT), (t) => !t.is_market, object({ triggerPx: positivePrice }));
const orderTypeSchema = oneKey({ limit: limitType, trigger: triggerType });
export type OrderType = Infer<typeof orderTypeSchema>;

/** True for a market order: `t = {trigger: {is_market: true, ...}}` (the only kind allowed px 0). */
export function isMarketOrder(order: { t: OrderType }): boolean {
  return 'trigger' in order.t && order.t.trigger.is_market;
}

export const placeOrderSchema = checkedWhen(
  checkedWhen(
    object({ c: symbolSchema, b: boolean(), px: price, sz: size, r: boolean(), t: orderTypeSchema, cloid: optional(key32()) }, STRICT),
    (o) => !isMarketOrder(o),
    object({ px: positivePrice }),
  ),
  isMarketOrder,
  object({ px: marketPrice }),
);
export const cancelSchema = object({ c: symbolSchema, oid: key32() }, STRICT);
export const cancelAllSchema = object({ c: array(symbolSchema, { maxLength: MAX_LIST_ITEMS }) }, STRICT);
export const orderItemSchema = oneKey({ order: placeOrderSchema, cancel: cancelSchema, cancelAll: cancelAllSchema });

export type PlaceOrder = Infer<typeof placeOrderSchema>;
export type Cancel = Infer<typeof cancelSchema>;
export type CancelAll = Infer<typeof cancelAllSchema>;
export type OrderItem = Infer<typeof orderItemSchema>;

/** The order action with a configurable batch limit (1..maxBatchItems items). */
export function createOrderActionSchema(maxBatchItems: number) {
  return object({ type: literal('order'), orders: array(orderItemSchema, { minLength: 1, maxLength: maxBatchItems }), nonce }, STRICT);
}
export const orderActionSchema = createOrderActionSchema(MAX_BATCH_ITEMS);

export const updateUserSettingsActionSchema = object(
  {
    type: literal('updateUserSettings'),
    settings: object({ m: array(tuple([symbolSchema, number()]), { minLength: 1, maxLength: MAX_LIST_ITEMS }) }, STRICT),
    nonce,
  },
  STRICT,
);
export const agentWalletCreationActionSchema = object({ type: literal('agentWalletCreation'), agent: publicKey32(), delete: boolean(), nonce }, STRICT);
export const faucetActionSchema = object({ type: literal('faucet'), user: publicKey32(), amount: optional(number({ gt: 0 })), nonce }, STRICT);
const oraclePriceSchema = object({ timestamp: u64(), symbol: symbolSchema, price: number({ gt: 0 }) }, STRICT);
export const oracleActionSchema = object(
  { type: literal('oracle'), prices: array(oraclePriceSchema, { minLength: 1, maxLength: MAX_LIST_ITEMS }), nonce },
  STRICT,
);

export type OrderAction = Infer<typeof orderActionSchema>;
export type UpdateUserSettingsAction = Infer<typeof updateUserSettingsActionSchema>;
export type AgentWalletCreationAction = Infer<typeof agentWalletCreationActionSchema>;
export type FaucetAction = Infer<typeof faucetActionSchema>;
export type OracleAction = Infer<typeof oracleActionSchema>;
export type OraclePrice = Infer<typeof oraclePriceSchema>;

function actionVariants(maxBatchItems: number) {
  return {
    order: createOrderActionSchema(maxBatchItems),
    oracle: oracleActionSchema,
    faucet: faucetActionSchema,
    updateUserSettings: updateUserSettingsActionSchema,
    agentWalletCreation: agentWalletCreationActionSchema,
  };
}
type ActionVariants = ReturnType<typeof actionVariants>;

/** Any v1 action (`nonce` optional), dispatched on `type`; unknown types fail at `type`. */
export type Action = Infer<ActionVariants[ActionType]>;
export type ActionOf<T extends ActionType> = Infer<ActionVariants[T]>;

export function createActionSchema(maxBatchItems: number): Schema<Action> {
  return tagged('type', actionVariants(maxBatchItems));
}
export const actionSchema = createActionSchema(MAX_BATCH_ITEMS);

/** Base58 text of a 64-byte Ed25519 signature. */
export const signatureSchema = custom('base58 64-byte signature', (v) => {
  if (typeof v !== 'string' || v.length < 64 || v.length > 88) invalid('expected a base58 signature of 64 bytes (64 to 88 characters)');
  let bytes: Uint8Array;
  try {
    bytes = base58Decode(v, '');
  } catch {
    return invalid('invalid base58 character in signature');
  }
  if (bytes.length !== 64) invalid(`expected 64 bytes of base58, got ${bytes.length} bytes`);
  return v;
});

const requiredNonce = object({ nonce: u64() });

/** The signed request body of the endpoint for `type`: `{action (with nonce), account, signer, signature}`, strict. */
export function createRequestBodySchema<T extends ActionType>(type: T, maxBatchItems = MAX_BATCH_ITEMS) {
  const variants: { [K in ActionType]: Schema<ActionOf<K>> } = actionVariants(maxBatchItems);
  const ofType = tagged('type', { [type]: variants[type] } as Record<T, Schema<ActionOf<T>>>);
  const action = checkedWhen(ofType, () => true, requiredNonce) as Schema<ActionOf<T> & { nonce: bigint }>;
  return object({ action, account: publicKey32(), signer: publicKey32(), signature: signatureSchema }, STRICT);
}
export type RequestBody<T extends ActionType = ActionType> = Infer<ReturnType<typeof createRequestBodySchema<T>>>;

/** Request body schemas with the default batch limit, by action type. */
export const requestBodySchemas: { readonly [T in ActionType]: Schema<RequestBody<T>> } = {
  order: createRequestBodySchema('order'),
  oracle: createRequestBodySchema('oracle'),
  faucet: createRequestBodySchema('faucet'),
  updateUserSettings: createRequestBodySchema('updateUserSettings'),
  agentWalletCreation: createRequestBodySchema('agentWalletCreation'),
};
