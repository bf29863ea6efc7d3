import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/core/errors.js';
import { parseJson } from '../../../../src/core/json.js';
import { parse } from '../../../../src/core/schema.js';
import { decodeCurrentStream } from '../../../../src/protocol/current/inbound-stream.js';
import { TICKER_NUMBERS } from '../v1/rows.js';
import { margin, OID, OTHER, position as basePosition, TS, TS_NS, USER } from './rows.js';
import { streamMessageSchema, type StreamMessage } from '../../../../src/protocol/v1/stream.js';

const MS = 1770918312787;
const TOPIC = `account.${USER}`;

const account = (data: Record<string, unknown>) => ({ type: 'account', data, topic: TOPIC });

// Market data and control messages: venue-protocol §9.2–9.3 (the same shapes as v1).
const market: [string, Record<string, unknown>, (m: Record<string, unknown>) => unknown, string][] = [
  ['subscriptionResponse', { type: 'subscriptionResponse', topics: ['ticker.BTC-USD', TOPIC] }, (m) => ({ ...m, topics: [1] }), 'topics[0]'],
  ['unsubscribeResponse', { type: 'unsubscribeResponse', topic: 'ticker.BTC-USD' }, () => ({ type: 'unsubscribeResponse' }), 'topic'],
  ['error', { type: 'error', error: { message: 'too many subscriptions' } }, () => ({ type: 'error', error: {} }), 'error.message'],
  [
    'ticker',
    {
      type: 'ticker',
      data: { ticker: { symbol: 'BTC-USD', ...Object.fromEntries(TICKER_NUMBERS.map((f) => [f, 1.5])), regime: -11, timestamp: TS } },
      topic: 'ticker.BTC-USD',
    },
    (m) => ({ ...m, data: { ticker: { ...(m.data as { ticker: object }).ticker, regime: 0.5 } } }),
    'data.ticker.regime',
  ],
  [
    'trades',
    {
      type: 'trades',
      data: { trades: [{ s: 'BTC-USD', px: 100000, sz: 0.1, time: MS, side: true, maker: USER, taker: OTHER, liq: false }] },
      topic: 'trades.BTC-USD',
    },
    (m) => ({ ...m, data: { trades: [{ s: 'BTC-USD', px: 100000, sz: 0.1, time: MS, side: 'buy', maker: USER, taker: OTHER }] } }),
    'data.trades[0].side',
  ],
  [
    'l2Snapshot',
    {
      type: 'l2Snapshot',
      data: { book: { updateType: 'snapshot', symbol: 'BTC-USD', levels: [[{ px: 99999.5, sz: 1, n: 2 }], [{ px: 100000.5, sz: 2, n: 1 }]], timestamp: MS } },
      topic: 'l2snapshot.BTC-USD',
    },
    (m) => ({ ...m, data: { book: { updateType: 'snapshot', symbol: 'BTC-USD', levels: [[{ px: '99999.5', sz: 1, n: 2 }], []], timestamp: MS } } }),
    'data.book.levels[0][0].px',
  ],
  [
    'l2Delta',
    {
      type: 'l2Delta',
      data: { book: { updateType: 'delta', symbol: 'BTC-USD', levels: [[], [{ px: 100000.5, sz: 0, n: 0 }]], timestamp: MS } },
      topic: 'l2delta.BTC-USD',
    },
    (m) => ({ ...m, data: { book: { updateType: 'delta', symbol: 'BTC-USD', levels: [[], [{ px: 100000.5, sz: -1, n: 0 }]], timestamp: MS } } }),
    'data.book.levels[1][0].sz',
  ],
  [
    'frontendContext',
    {
      type: 'frontendContext',
      data: { ctx: [{ symbol: 'BTC-USD', volume: 1e6, funding: 0.0001, oi: 500, lastPrice: 100000, priceChange: 120, priceChangePercent: 0.12 }] },
      topic: 'frontendContext',
    },
    (m) => ({ ...m, data: { ctx: [{ symbol: 'BTC-USD' }] } }),
    'data.ctx[0].volume',
  ],
  [
    'risk',
    {
      type: 'risk',
      data: {
        risk: {
          symbol: 'BTC-USD',
          timestamp: MS,
          regime: -3,
          leverage: [1, 5],
          notionals: [10000],
          buy: [[{ mmrO: 0.01, mmrE: 0.012, p: 0.5 }]],
          sell: [[{ mmrO: 0.01, mmrE: 0.012, p: 0.5 }]],
          corrs: [['BTC:ETH', 0.8]],
        },
      },
      topic: 'risk.BTC-USD',
    },
    (m) => ({ ...m, data: { risk: { ...(m.data as { risk: object }).risk, corrs: [['BTC:ETH']] } } }),
    'data.risk.corrs[0]',
  ],
];

// The account stream: venue-protocol §9.4.
const position = {
  ...basePosition,
  protection: { orders: [{ orderId: OID, orderType: 'stop', trigger: { isAbove: true, px: 105000 } }] },
  allocMargin: 2500,
};
const openOrder = {
  symbol: 'BTC-USD',
  orderId: OID,
  price: 101000,
  originalSize: -0.5,
  size: -0.5,
  filledSize: 0,
  vwap: 0,
  maker: true,
  reduceOnly: true,
  orderType: 'limit',
  trigger: null,
  tif: 'gtc',
  status: 'resting',
  timestamp: TS,
  iso: false,
};
const snapshot = {
  type: 'accountSnapshot',
  kind: 'MasterEOA',
  name: null,
  authorizedAgentWallets: [],
  margin,
  positions: [position],
  openOrders: [openOrder],
  feeTiers: [],
  leverageSettings: [{ symbol: 'BTC-USD', leverage: 10 }],
};
const orderUpdate = {
  type: 'orderUpdate',
  ts: TS,
  ot: 'limit',
  status: 'rejectedRiskLimit',
  sym: 'BTC-USD',
  oid: OID,
  px: 100001.37,
  origSz: -0.02474,
  sz: -0.02474,
  fillSz: 0,
  vwap: 0,
  mk: true,
  r: false,
  tif: 'gtc',
  trigger: null,
  reason: 'no oracle / fair price reference yet for: BTC-USD',
};
const fill = {
  type: 'fill',
  symbol: 'BTC-USD',
  orderId: OID,
  price: 100000,
  size: 0.25,
  fee: 0.5,
  isBuy: true,
  reasonCode: 1,
  reason: 'liquidation',
  counterpartyHint: 'Abcd..wxyz',
  timestamp: TS,
  maker: false,
};
const liquidation = {
  type: 'liquidation',
  symbol: 'BTC-USD',
  price: 120000,
  size: 0.5,
  isBuy: true,
  marginPrior: 200,
  marginAfter: 0,
  reason: 'equity below maintenance margin',
  timestamp: TS,
};

/** Account kinds the v1 model carries: the v1 data each stands for. */
const carried: [string, Record<string, unknown>, unknown[], (d: Record<string, unknown>) => unknown, string][] = [
  [
    'orderUpdate',
    orderUpdate,
    [
      {
        type: 'orderUpdate',
        status: 'rejectedRiskLimit',
        symbol: 'BTC-USD',
        orderId: OID,
        price: 100001.37,
        originalSize: 0.02474,
        size: 0.02474,
        filledSize: 0,
        vwap: 0,
        isBuy: false,
        maker: true,
        timestamp: TS_NS,
        reason: 'no oracle / fair price reference yet for: BTC-USD',
        orderType: 'limit',
        tif: 'gtc',
        reduceOnly: false,
        trigger: null,
        venueStatus: 'rejectedRiskLimit',
      },
    ],
    (d) => ({ ...d, sz: undefined }),
    'data.sz',
  ],
  ['fill', fill, [{ ...fill, timestamp: TS_NS }], (d) => ({ ...d, reasonCode: 9 }), 'data.reasonCode'],
  [
    'positionUpdate',
    { type: 'positionUpdate', ...position },
    [{ type: 'positionUpdate', ...position }],
    (d) => ({ ...d, protection: { orders: 'none' } }),
    'data.protection.orders',
  ],
  ['marginUpdate', { type: 'marginUpdate', ...margin }, [{ type: 'marginUpdate', ...margin }], (d) => ({ ...d, fees: '1' }), 'data.fees'],
  [
    'leverageUpdate',
    { type: 'leverageUpdate', leverage: [{ symbol: 'BTC-USD', leverage: 5 }] },
    [{ type: 'leverageUpdate', leverage: [{ symbol: 'BTC-USD', leverage: 5 }] }],
    () => ({ type: 'leverageUpdate', leverage: [{ symbol: 'btc', leverage: 5 }] }),
    'data.leverage[0].symbol',
  ],
  ['liquidation', liquidation, [{ ...liquidation, timestamp: TS_NS }], (d) => ({ ...d, marginAfter: undefined }), 'data.marginAfter'],
];

/** Account kinds with no v1 form: validated, then left out. */
const dropped: [string, Record<string, unknown>, (d: Record<string, unknown>) => unknown, string][] = [
  ['adl', { type: 'adl', symbol: 'BTC-USD', price: 120000, size: 0.1, isBuy: false, timestamp: TS }, (d) => ({ ...d, price: undefined }), 'data.price'],
  [
    'ADL (before v1.0.15)',
    { type: 'ADL', symbol: 'BTC-USD', price: 120000, size: 0.1, isBuy: false, reason: null, timestamp: TS },
    (d) => ({ ...d, isBuy: 1 }),
    'data.isBuy',
  ],
  [
    'cancelOneRejected',
    { type: 'cancelOneRejected', symbol: 'BTC-USD', orderId: OID, reason: 'unknown order', timestamp: TS },
    (d) => ({ ...d, orderId: 'x' }),
    'data.orderId',
  ],
  ['cancelAllRejected', { type: 'cancelAllRejected', reason: 'nothing to cancel', timestamp: TS }, (d) => ({ ...d, reason: undefined }), 'data.reason'],
  [
    'feeTierUpdate',
    {
      type: 'feeTierUpdate',
      feeTiers: [{ symbol: 'BTC-USD', rollingVolume: 1e6, tierIndex: 2, tierThreshold: 1e6, makerBps: 1.8, takerBps: 3.3, windowDays: 14 }],
      ts: TS,
    },
    (d) => ({ ...d, feeTiers: [{ ...(d.feeTiers as object[])[0], tierIndex: -1 }] }),
    'data.feeTiers[0].tierIndex',
  ],
  ['legacy order', { type: 'order', status: 'placed', oid: OID }, () => ({ type: 'orders' }), 'data.type'],
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

const list = (decoded: StreamMessage | readonly StreamMessage[]) => decoded as readonly StreamMessage[];

describe('current stream: market data and control messages (venue-protocol §9.2–9.3)', () => {
  it.each(market)('%s: decodes to the v1 message', (_kind, message) => {
    const decoded = decodeCurrentStream(message);
    expect(Array.isArray(decoded)).toBe(false);
    expect(decoded).toEqual(parse(streamMessageSchema, message));
  });

  it.each(market)('%s: a broken one is rejected naming the field', (_kind, message, breakIt, field) => {
    expect(fieldOf(() => decodeCurrentStream(breakIt(message)))).toBe(field);
  });

  it('reads the ticker timestamp as exact ns (bare integer read with parseJson)', () => {
    const text = JSON.stringify(market[3]![1]).replace(`"${TS}"`, TS);
    const decoded = decodeCurrentStream(parseJson(text)) as StreamMessage;
    expect(decoded.type === 'ticker' && decoded.data.ticker.timestamp).toBe(TS_NS);
  });

  it('rejects a frame of no known type (candle is not subscribed by the client)', () => {
    expect(fieldOf(() => decodeCurrentStream({ type: 'candle', data: { candles: [] }, topic: 'candle.BTC-USD.1m' }))).toBe('type');
    expect(fieldOf(() => decodeCurrentStream(null))).toBe('');
  });
});

describe('current stream: account messages (venue-protocol §9.4)', () => {
  it('an accountSnapshot is the v1 snapshot, then its margin and positions as v1 updates', () => {
    const decoded = list(decodeCurrentStream(account(snapshot)));
    expect(decoded.map((m) => m.type === 'account' && m.data.type)).toEqual(['accountSnapshot', 'marginUpdate', 'positionUpdate']);
    for (const m of decoded) expect(() => parse(streamMessageSchema, m)).not.toThrow();
    const [first, second, third] = decoded.map((m) => (m.type === 'account' ? m.data : undefined));
    expect(first).toMatchObject({
      type: 'accountSnapshot',
      positions: [{ coin: 'BTC-USD', size: -0.5, price: 99000, realizedPnl: 12.5, leverage: 10 }],
      openOrders: [
        { orderId: OID, isBuy: false, originalSize: 0.5, size: 0.5, status: 'placed', venueStatus: 'resting', reduceOnly: true, tif: 'gtc', timestamp: TS_NS },
      ],
      marginSummary: { positions: [{ coin: 'USDC', size: 10000 }] },
      settings: { maxLeverage: [['BTC-USD', 10]] },
      margin,
    });
    expect(second).toEqual({ type: 'marginUpdate', ...margin });
    expect(third).toEqual({ type: 'positionUpdate', ...position });
    expect(decoded.every((m) => m.type === 'account' && m.topic === TOPIC)).toBe(true);
  });

  it('a broken accountSnapshot is rejected naming the field', () => {
    expect(fieldOf(() => decodeCurrentStream(account({ ...snapshot, openOrders: [{ ...openOrder, status: 'bogus' }] })))).toBe('data.openOrders[0].status');
    expect(fieldOf(() => decodeCurrentStream(account({ ...snapshot, kind: 'Robot' })))).toBe('data.kind');
  });

  it.each(carried)('%s: maps onto v1 and the v1 schema accepts the result', (_kind, data, expected) => {
    const decoded = list(decodeCurrentStream(account(data)));
    expect(decoded.map((m) => m.type === 'account' && m.data)).toEqual(expected);
    for (const m of decoded) expect(() => parse(streamMessageSchema, m)).not.toThrow();
  });

  it.each(carried)('%s: a broken one is rejected naming the field', (_kind, data, _expected, breakIt, field) => {
    expect(fieldOf(() => decodeCurrentStream(account(breakIt(data) as Record<string, unknown>)))).toBe(field);
  });

  it.each(dropped)('%s: is validated and passes as current-only data (the legacy order message is dropped)', (_kind, data) => {
    const times = { ...('timestamp' in data && { timestamp: BigInt(TS) }), ...('ts' in data && { ts: BigInt(TS) }) };
    const model = { ...data, ...times, type: data.type === 'ADL' ? 'adl' : data.type };
    const expected = data.type === 'order' ? [] : [{ type: 'account', data: model, topic: TOPIC }];
    expect(decodeCurrentStream(account(data))).toEqual(expected);
  });

  it.each(dropped)('%s: a broken one is rejected naming the field', (_kind, data, breakIt, field) => {
    expect(fieldOf(() => decodeCurrentStream(account(breakIt(data) as Record<string, unknown>)))).toBe(field);
  });

  it('order updates: case-insensitive statuses, fills make a working order, signed sizes give the side', () => {
    const decode = (d: Record<string, unknown>) => {
      const [m] = list(decodeCurrentStream(account({ ...orderUpdate, ...d })));
      return m!.type === 'account' ? m!.data : undefined;
    };
    expect(decode({ status: 'working', origSz: 1, sz: 0.6, fillSz: 0.4, vwap: 100000 })).toMatchObject({
      status: 'working',
      isBuy: true,
      size: 0.6,
      filledSize: 0.4,
    });
    expect(decode({ status: 'canceledIOC', origSz: -1, sz: 0, fillSz: -0.4 })).toMatchObject({
      status: 'cancelledIOC',
      venueStatus: 'cancelledIoc',
      isBuy: false,
      filledSize: 0.4,
    });
    expect(decode({ status: 'triggered', ot: 'trigger', origSz: 0, sz: 0, tif: 'postOnly', reason: undefined })).toMatchObject({
      status: 'placed',
      orderType: 'trigger',
      tif: 'alo',
      reason: null,
    });
    expect(decode({ ts: MS })).toMatchObject({ timestamp: BigInt(MS) * 1_000_000n });
  });

  it('rejects an account message without its topic, or with a v1 (long-name) order update', () => {
    expect(fieldOf(() => decodeCurrentStream({ type: 'account', data: { type: 'marginUpdate', ...margin } }))).toBe('topic');
    expect(fieldOf(() => decodeCurrentStream(account({ type: 'orderUpdate', status: 'placed', symbol: 'BTC-USD', orderId: OID })))).toBe('data.ot');
  });
});
