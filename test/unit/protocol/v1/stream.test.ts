import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/core/errors.js';
import { parse } from '../../../../src/core/schema.js';
import { clientMessageSchema, parseStreamMessage, topicsOf, type StreamMessage } from '../../../../src/protocol/v1/stream.js';
import { ACCOUNT, OID, SIGNER } from './fixtures.js';
import { openOrder, ticker, TS } from './rows.js';

const accountTopic = `account.${ACCOUNT.b58}`;

function account(data: Record<string, unknown>) {
  return { type: 'account', data, topic: accountTopic };
}

const level = (px: number, sz: number, n: number) => ({ px, sz, n });

// One valid example per message kind (gaps §7, venue-protocol §9), and one broken copy naming the failing field.
const cases: [string, Record<string, unknown>, (m: Record<string, unknown>) => unknown, string][] = [
  ['subscriptionResponse', { type: 'subscriptionResponse', topics: ['ticker.BTC-USD', accountTopic] }, (m) => ({ ...m, topics: 'ticker.BTC-USD' }), 'topics'],
  ['unsubscribeResponse', { type: 'unsubscribeResponse', topic: 'ticker.BTC-USD' }, (m) => ({ ...m, topic: undefined }), 'topic'],
  ['error', { type: 'error', error: { message: 'too many subscriptions' } }, () => ({ type: 'error', error: {} }), 'error.message'],
  [
    'accountSnapshot',
    account({
      type: 'accountSnapshot',
      positions: [{ coin: 'BTC-USD', size: 0.5, price: 99000, realizedPnl: 0, leverage: 5 }],
      openOrders: [openOrder],
      marginSummary: { positions: [{ coin: 'USDC', size: 5000 }] },
      settings: { maxLeverage: [['BTC-USD', 5]] },
    }),
    (m) => account({ ...(m.data as object), marginSummary: {} }),
    'data.marginSummary.positions',
  ],
  [
    'orderUpdate',
    account({
      type: 'orderUpdate',
      status: 'filled',
      symbol: 'BTC-USD',
      orderId: OID.b58,
      price: 100000,
      originalSize: 1,
      size: 0,
      filledSize: 1,
      vwap: 99999.5,
      isBuy: true,
      maker: false,
      timestamp: TS,
      reason: null,
    }),
    (m) => account({ ...(m.data as object), reason: undefined }),
    'data.reason',
  ],
  [
    'fill',
    account({
      type: 'fill',
      symbol: 'ETH-USD',
      orderId: OID.b58,
      price: 3000,
      size: 2,
      fee: 0.6,
      isBuy: false,
      reasonCode: 0,
      counterpartyHint: 'Abcd..wxyz',
      timestamp: TS,
      maker: true,
    }),
    (m) => account({ ...(m.data as object), reasonCode: 7 }),
    'data.reasonCode',
  ],
  [
    'positionUpdate',
    account({
      type: 'positionUpdate',
      symbol: 'BTC-USD',
      size: -0.5,
      price: 99000,
      realizedPnl: 10,
      unrealizedPnl: -5,
      leverage: 10,
      liquidationPrice: 120000,
      fairPrice: 99010,
      notional: 49505,
      fees: 1.2,
      funding: 0.1,
      maintenanceMargin: 250,
      lambda: 0,
      riskAllocation: 0,
    }),
    (m) => account({ ...(m.data as object), size: '0.5' }),
    'data.size',
  ],
  [
    'marginUpdate',
    account({
      type: 'marginUpdate',
      totalBalance: 10000,
      availableBalance: 8000,
      marginUsed: 2000,
      notional: 20000,
      realizedPnl: 5,
      unrealizedPnl: -3,
      fees: 1,
      funding: 0,
    }),
    (m) => account({ ...(m.data as object), availableBalance: null }),
    'data.availableBalance',
  ],
  [
    'leverageUpdate',
    account({ type: 'leverageUpdate', leverage: [{ symbol: 'BTC-USD', leverage: 20 }] }),
    () => account({ type: 'leverageUpdate', leverage: [{ symbol: 'BTC', leverage: 20 }] }),
    'data.leverage[0].symbol',
  ],
  [
    'liquidation',
    account({
      type: 'liquidation',
      symbol: 'BTC-USD',
      price: 90000,
      size: 0.5,
      isBuy: false,
      marginPrior: 100,
      marginAfter: 0,
      reason: 'maintenance margin',
      timestamp: TS,
    }),
    (m) => account({ ...(m.data as object), marginAfter: undefined }),
    'data.marginAfter',
  ],
  [
    'ticker',
    { type: 'ticker', data: { ticker }, topic: 'ticker.BTC-USD' },
    () => ({ type: 'ticker', data: { ticker: { ...ticker, markPrice: Infinity } }, topic: 'ticker.BTC-USD' }),
    'data.ticker.markPrice',
  ],
  [
    'trades',
    {
      type: 'trades',
      data: { trades: [{ s: 'BTC-USD', px: 100000, sz: 0.1, time: 1700000000123, side: true, maker: ACCOUNT.b58, taker: SIGNER.b58 }] },
      topic: 'trades.BTC-USD',
    },
    () => ({
      type: 'trades',
      data: { trades: [{ s: 'BTC-USD', px: 100000, sz: 0.1, time: 1, side: 'buy', maker: ACCOUNT.b58, taker: SIGNER.b58 }] },
      topic: 'trades.BTC-USD',
    }),
    'data.trades[0].side',
  ],
  [
    'l2Snapshot',
    {
      type: 'l2Snapshot',
      data: {
        book: {
          updateType: 'snapshot',
          symbol: 'BTC-USD',
          levels: [[level(99999, 1, 2), level(99998, 3, 1)], [level(100001, 2, 1)]],
          timestamp: 1700000000123,
        },
      },
      topic: 'l2snapshot.BTC-USD',
    },
    () => ({
      type: 'l2Snapshot',
      data: { book: { updateType: 'snapshot', symbol: 'BTC-USD', levels: [[level(1, 1, 1)]], timestamp: 1 } },
      topic: 'l2snapshot.BTC-USD',
    }),
    'data.book.levels',
  ],
  [
    'l2Delta',
    {
      type: 'l2Delta',
      data: { book: { updateType: 'delta', symbol: 'BTC-USD', levels: [[level(99999, 0, 0)], []], timestamp: 1700000000124 } },
      topic: 'l2delta.BTC-USD',
    },
    () => ({
      type: 'l2Delta',
      data: { book: { updateType: 'delta', symbol: 'BTC-USD', levels: [[{ px: 1, sz: 1 }], []], timestamp: 1 } },
      topic: 'l2delta.BTC-USD',
    }),
    'data.book.levels[0][0].n',
  ],
  [
    'frontendContext',
    {
      type: 'frontendContext',
      data: { ctx: [{ symbol: 'BTC-USD', volume: 1e9, funding: 0.0001, oi: 500, lastPrice: 100000, priceChange: -10, priceChangePercent: -0.01 }] },
      topic: 'frontendContext',
    },
    () => ({ type: 'frontendContext', data: { ctx: [{ symbol: 'BTC-USD' }] }, topic: 'frontendContext' }),
    'data.ctx[0].volume',
  ],
  [
    'risk',
    {
      type: 'risk',
      data: {
        risk: {
          symbol: 'BTC-USD',
          timestamp: 1700000000123,
          regime: -1,
          leverage: [1, 10, 50],
          notionals: [1e4, 1e6],
          buy: [[{ mmrO: 0.01, mmrE: 0.012, p: 0.5 }]],
          sell: [[{ mmrO: 0.01, mmrE: 0.013, p: 0.5 }]],
          corrs: [['BTC:ETH', 0.8]],
        },
      },
      topic: 'risk.BTC-USD',
    },
    () => ({ type: 'risk', data: { risk: { symbol: 'BTC-USD' } }, topic: 'risk.BTC-USD' }),
    'data.risk.timestamp',
  ],
];

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).field;
  }
  throw new Error('expected a ValidationError');
}

describe('v1 stream messages', () => {
  it.each(cases)('%s: a valid example parses, also as JSON text with extra fields', (_kind, valid) => {
    expect(() => parseStreamMessage(valid)).not.toThrow();
    const text = JSON.stringify({ ...valid, seq: 1 }).replace(`"${TS}"`, TS);
    expect(parseStreamMessage(text).type).toBe(valid.type);
  });

  it.each(cases)('%s: a broken example names the field', (_kind, valid, breakIt, field) => {
    expect(fieldOf(() => parseStreamMessage(breakIt(valid)))).toBe(field);
  });

  it('dispatches on type and data.type into a typed union', () => {
    const orderUpdate = cases.find(([k]) => k === 'orderUpdate')![1];
    const msg: StreamMessage = parseStreamMessage(JSON.stringify(orderUpdate).replace(`"${TS}"`, TS));
    if (msg.type !== 'account' || msg.data.type !== 'orderUpdate') throw new Error('wrong dispatch');
    expect(msg.data.timestamp).toBe(1_700_000_000_123_456_789n);
    expect(msg.data.orderId).toBe(OID.b58);
    expect(msg.topic).toBe(accountTopic);
  });

  it('rejects unknown message and account data types, and malformed JSON', () => {
    expect(fieldOf(() => parseStreamMessage({ type: 'candle', data: {} }))).toBe('type');
    expect(fieldOf(() => parseStreamMessage(account({ type: 'order', status: 'placed' })))).toBe('data.type');
    expect(fieldOf(() => parseStreamMessage('{"type":'))).toBe('');
    expect(fieldOf(() => parseStreamMessage(42))).toBe('');
  });
});

describe('v1 client messages and topics', () => {
  it('validates subscribe requests strictly and names their topics', () => {
    const msg = parse(clientMessageSchema, {
      method: 'subscribe',
      subscription: [
        { type: 'account', user: [ACCOUNT.b58, SIGNER.b58] },
        { type: 'frontendContext' },
        { type: 'risk', symbol: 'BTC-USD' },
        { type: 'ticker', symbol: 'ETH-USD' },
        { type: 'trades', symbol: 'ETH-USD' },
        { type: 'l2Delta', symbol: 'BTC-USD' },
        { type: 'l2Snapshot', symbol: 'BTC-USD', nlevels: 20 },
      ],
    });
    if (msg.method !== 'subscribe') throw new Error('wrong dispatch');
    expect(msg.subscription.flatMap(topicsOf)).toEqual([
      `account.${ACCOUNT.b58}`,
      `account.${SIGNER.b58}`,
      'frontendContext',
      'risk.BTC-USD',
      'ticker.ETH-USD',
      'trades.ETH-USD',
      'l2delta.BTC-USD',
      'l2snapshot.BTC-USD',
    ]);
    expect(topicsOf({ type: 'account', user: ACCOUNT.b58 })).toEqual([`account.${ACCOUNT.b58}`]);
  });

  it('rejects bad client messages naming the field', () => {
    const bad = (m: unknown) => fieldOf(() => parse(clientMessageSchema, m));
    expect(bad({ method: 'ping' })).toBe('method');
    expect(bad({ method: 'subscribe', subscription: [{ type: 'candle', symbol: 'BTC-USD' }] })).toBe('subscription[0].type');
    expect(bad({ method: 'subscribe', subscription: [{ type: 'ticker', symbol: 'BTC-USD', extra: 1 }] })).toBe('subscription[0].extra');
    expect(bad({ method: 'subscribe', subscription: [{ type: 'account', user: 'nobody' }] })).toBe('subscription[0].user');
    expect(bad({ method: 'unsubscribe' })).toBe('topic');
  });
});
