import { describe, expect, it } from 'vitest';
import { safeParse, setSchemaCompilation, type Schema } from '../../../src/core/schema.js';
import { accountResponseSchemas } from '../../../src/protocol/v1/account.js';
import { requestBodySchemas } from '../../../src/protocol/v1/actions.js';
import { streamMessageSchema } from '../../../src/protocol/v1/stream.js';
import { ACCOUNT, SIGNER } from '../protocol/v1/fixtures.js';
import { openOrder, ticker } from '../protocol/v1/rows.js';

const KEY = ACCOUNT.b58;
/** An order update's fields: an open order's without reduce-only and time in force. */
const { reduceOnly: _reduceOnly, tif: _tif, ...orderState } = openOrder;
const account = (data: Record<string, unknown>) => ({ type: 'account', data, topic: `account.${KEY}` });
const level = { px: 100.5, sz: 2, n: 1 };
const examples: Array<[string, Schema<unknown>, unknown]> = [
  [
    'l2 delta',
    streamMessageSchema,
    { type: 'l2Delta', data: { book: { updateType: 'delta', symbol: 'BTC-USD', levels: [[level], []], timestamp: 1 } }, topic: 'l2delta.BTC-USD' },
  ],
  [
    'trades',
    streamMessageSchema,
    { type: 'trades', data: { trades: [{ s: 'BTC-USD', px: 1, sz: 2, time: 3, side: true, maker: KEY, taker: KEY, reason: null, liq: false }] }, topic: 't' },
  ],
  [
    'frontendContext',
    streamMessageSchema,
    {
      type: 'frontendContext',
      data: { ctx: [{ symbol: 'ETH-USD', volume: 1, funding: 0, oi: 2, lastPrice: 3, priceChange: 0, priceChangePercent: 0 }] },
      topic: 'frontendContext',
    },
  ],
  ['subscriptionResponse', streamMessageSchema, { type: 'subscriptionResponse', topics: ['a', 'b'] }],
  ['orderUpdate (u64 timestamp as a decimal string)', streamMessageSchema, account({ type: 'orderUpdate', ...orderState, reason: null })],
  [
    'fill (u64 timestamp as a number)',
    streamMessageSchema,
    account({
      type: 'fill',
      symbol: 'BTC-USD',
      orderId: KEY,
      price: 1,
      size: 2,
      fee: 0.1,
      isBuy: false,
      reasonCode: 0,
      counterpartyHint: 'Abcd..wxyz',
      timestamp: 1764000000000,
      maker: true,
    }),
  ],
  [
    'accountSnapshot (u64 inside arrays of objects)',
    streamMessageSchema,
    account({
      type: 'accountSnapshot',
      positions: [{ coin: 'BTC-USD', size: 0.5, price: 99000, realizedPnl: 0, leverage: 5 }],
      openOrders: [{ ...openOrder, timestamp: '18446744073709551615' }],
      marginSummary: { positions: [{ coin: 'USDC', size: 5000 }] },
      settings: { maxLeverage: [['BTC-USD', 5]] },
    }),
  ],
  ['ticker (u64 timestamp)', streamMessageSchema, { type: 'ticker', data: { ticker }, topic: 'ticker.BTC-USD' }],
  [
    'order body',
    requestBodySchemas.order as Schema<unknown>,
    {
      action: {
        type: 'order',
        orders: [{ order: { c: 'BTC-USD', b: true, px: 1, sz: 1, r: false, t: { limit: { tif: 'GTC' } } } }, { cancelAll: { c: [] } }],
        nonce: 5,
      },
      account: KEY,
      signer: SIGNER.b58,
      signature: '1'.repeat(64),
    },
  ],
  ['openOrders', accountResponseSchemas.openOrders as Schema<unknown>, [{ openOrder }]],
];

/** Deterministic random mutations: drop, retype or add fields anywhere in a JSON value. */
function mutate(value: unknown, rnd: () => number): unknown {
  const replacements = [
    undefined,
    null,
    0,
    -1,
    1.5,
    2 ** 53,
    NaN,
    Infinity,
    '',
    'x',
    '7',
    '07',
    '18446744073709551616',
    '99999999999999999999',
    'BTC-USD',
    true,
    [],
    {},
    [level],
    { px: 1 },
  ];
  const pick = () => structuredClone(replacements[Math.floor(rnd() * replacements.length)]);
  const copy = structuredClone(value);
  const walk = (v: unknown, depth: number): unknown => {
    if (rnd() < 0.15 / (depth + 1)) return pick();
    if (Array.isArray(v)) {
      if (rnd() < 0.1) v.push(pick());
      return v.map((x) => walk(x, depth + 1));
    }
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        if (rnd() < 0.05) delete o[k];
        else o[k] = walk(o[k], depth + 1);
      }
      if (rnd() < 0.05) o.extra = pick();
      // biome-ignore lint/complexity/useLiteralKeys: a data key; dot access would type it as Object.prototype.toString
      if (rnd() < 0.02) o['toString'] = pick();
      return o;
    }
    return v;
  };
  return walk(copy, 0);
}

describe('compiled schema checks', () => {
  it.each(examples)('accept, return and reject exactly what the interpreter does: %s', (_name, schema, valid) => {
    let seed = 99;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    expect(safeParse(schema, valid).ok).toBe(true);
    let accepted = 0;
    let rejected = 0;
    for (let i = 0; i < 3000; i++) {
      const v = mutate(valid, rnd);
      setSchemaCompilation(false);
      const interpreted = safeParse(schema, v);
      setSchemaCompilation(true);
      const compiled = safeParse(schema, v);
      expect(compiled.ok, JSON.stringify(v)).toBe(interpreted.ok);
      if (compiled.ok && interpreted.ok) expect(compiled.value).toStrictEqual(interpreted.value);
      if (!compiled.ok && !interpreted.ok) expect(compiled.error.message).toBe(interpreted.error.message);
      if (compiled.ok) accepted++;
      else rejected++;
    }
    expect(accepted).toBeGreaterThan(10);
    expect(rejected).toBeGreaterThan(100);
  });
});
