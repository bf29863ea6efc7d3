import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../../../src/core/json.js';
import { parse, safeParse } from '../../../../src/core/schema.js';
import {
  ACTION_PATHS,
  ACTION_TYPES,
  actionSchema,
  actionTypeForPath,
  createActionSchema,
  createRequestBodySchema,
  isMarketOrder,
  MAX_BATCH_ITEMS,
  requestBodySchemas,
} from '../../../../src/protocol/v1/actions.js';
import { ACTION_DISCRIMINANT } from '../../../../src/protocol/v1/serialize.js';
import { ACCOUNT, AGENT, SIGNER, USER } from './fixtures.js';

const SIGNATURE = bs58.encode(new Uint8Array(64).fill(7));
const market = { c: 'ETH-USD', b: false, px: 0, sz: 1.5, r: true, t: { trigger: { is_market: true, triggerPx: 0 } } };

function body(action: unknown, extra: Record<string, unknown> = {}) {
  return { action, account: ACCOUNT.b58, signer: SIGNER.b58, signature: SIGNATURE, ...extra };
}

function failField(result: ReturnType<typeof safeParse>): string {
  expect(result.ok).toBe(false);
  return result.ok ? '' : result.error.field;
}

describe('v1 actions', () => {
  it('maps every endpoint path to its action type and back', () => {
    expect(ACTION_PATHS).toEqual({
      order: '/order',
      updateUserSettings: '/user-settings',
      agentWalletCreation: '/agent-wallet',
      faucet: '/private/faucet',
      oracle: '/private/oracle',
    });
    for (const t of ACTION_TYPES) expect(actionTypeForPath(ACTION_PATHS[t])).toBe(t);
    expect(actionTypeForPath('/account')).toBeUndefined();
    expect(ACTION_TYPES.map((t) => ACTION_DISCRIMINANT[t])).toEqual([0, 1, 2, 3, 4]);
  });

  it('parses a request body read with parseJson (nonce as integer beyond 2^53) into a typed action', () => {
    const text = `{"action":{"type":"agentWalletCreation","agent":"${AGENT.b58}","delete":false,"nonce":1700000000000000001},"account":"${ACCOUNT.b58}","signer":"${SIGNER.b58}","signature":"${SIGNATURE}"}`;
    const parsed = parse(requestBodySchemas.agentWalletCreation, parseJson(text));
    expect(parsed.action).toEqual({ type: 'agentWalletCreation', agent: AGENT.b58, delete: false, nonce: 1_700_000_000_000_000_001n });
  });

  it('requires the nonce in a request body and rejects unknown fields', () => {
    const faucet = requestBodySchemas.faucet;
    expect(failField(safeParse(faucet, body({ type: 'faucet', user: USER.b58 })))).toBe('action.nonce');
    expect(failField(safeParse(faucet, body({ type: 'faucet', user: USER.b58, nonce: 1 }, { extra: true })))).toBe('extra');
    expect(failField(safeParse(faucet, body({ type: 'faucet', user: USER.b58, nonce: 1, memo: 'x' })))).toBe('action.memo');
    expect(failField(safeParse(faucet, body({ type: 'faucet', user: USER.b58, nonce: 1.5 })))).toBe('action.nonce');
  });

  it('accepts only its own action type on each endpoint', () => {
    const result = safeParse(requestBodySchemas.order, body({ type: 'faucet', user: USER.b58, nonce: 1 }));
    expect(failField(result)).toBe('action.type');
  });

  it('checks the signature: base58 of exactly 64 bytes', () => {
    const action = { type: 'faucet', user: USER.b58, nonce: 1 };
    expect(safeParse(requestBodySchemas.faucet, body(action)).ok).toBe(true);
    expect(failField(safeParse(requestBodySchemas.faucet, body(action, { signature: bs58.encode(new Uint8Array(63).fill(7)) })))).toBe('signature');
    expect(failField(safeParse(requestBodySchemas.faucet, body(action, { signature: `0${SIGNATURE.slice(1)}` })))).toBe('signature');
    expect(failField(safeParse(requestBodySchemas.faucet, body(action, { signature: 42 })))).toBe('signature');
  });

  it('makes the batch limit configurable (venue setting) with default MAX_BATCH_ITEMS', () => {
    const orders = (n: number) => ({ type: 'order', orders: Array.from({ length: n }, () => ({ order: market })), nonce: 1 });
    expect(MAX_BATCH_ITEMS).toBe(100);
    expect(safeParse(actionSchema, orders(100)).ok).toBe(true);
    expect(failField(safeParse(createActionSchema(3), orders(4)))).toBe('orders');
    expect(failField(safeParse(createRequestBodySchema('order', 3), body(orders(4))))).toBe('action.orders');
    expect(safeParse(createRequestBodySchema('order', 200), body(orders(150))).ok).toBe(true);
  });

  it('tells market orders apart', () => {
    expect(isMarketOrder(market as never)).toBe(true);
    expect(isMarketOrder({ t: { trigger: { is_market: false, triggerPx: 1 } } })).toBe(false);
    expect(isMarketOrder({ t: { limit: { tif: 'GTC' } } })).toBe(false);
  });

  it('refuses a market order (stop-market included) whose px is not 0.0, naming px', () => {
    const order = (o: object) => ({ type: 'order', orders: [{ order: o }] });
    const stopMarket = { ...market, t: { trigger: { is_market: true, triggerPx: 90 } } };
    for (const o of [
      { ...market, px: 5 },
      { ...stopMarket, px: 90 },
    ]) {
      const result = safeParse(actionSchema, order(o));
      expect(failField(result)).toBe('orders[0].order.px');
      expect(result.ok ? '' : result.error.message).toMatch(/market order.*0\.0/);
    }
    expect(safeParse(actionSchema, order(stopMarket)).ok).toBe(true);
    const stopLimit = { ...market, px: 91, t: { trigger: { is_market: false, triggerPx: 90 } } };
    expect(safeParse(actionSchema, order(stopLimit)).ok).toBe(true);
    expect(failField(safeParse(actionSchema, order({ ...stopLimit, px: 0 })))).toBe('orders[0].order.px');
  });
});
