import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/core/errors.js';
import { parseJson } from '../../../../src/core/json.js';
import { parse, type Schema } from '../../../../src/core/schema.js';
import { currentAccountQueries, parseCurrentAccountResponse } from '../../../../src/protocol/current/inbound-account.js';
import { key, margin, OID, OTHER, position, TS, TS_NS, USER } from './rows.js';
import { ACCOUNT_QUERY_TYPES, accountResponseSchemas, type AccountQueryType } from '../../../../src/protocol/v1/account.js';

const OID2 = key(0x45);
const AGENT = key(0x55);
const SUB = key(0x66);

const openOrder = {
  symbol: 'BTC-USD',
  orderId: OID,
  price: 100000.5,
  originalSize: -1,
  size: -0.75,
  filledSize: 0.25,
  vwap: 100000.5,
  maker: true,
  reduceOnly: false,
  orderType: 'limit',
  trigger: null,
  tif: 'postOnly',
  status: 'working',
  timestamp: TS,
  iso: false,
};
const stop = {
  ...openOrder,
  orderId: OID2,
  price: 0,
  originalSize: 1,
  size: 1,
  filledSize: 0,
  vwap: 0,
  orderType: 'stop',
  trigger: { isAbove: true, px: 105000, lim: null, oco: null },
  tif: 'gtc',
  status: 'pending',
};
const fullAccount = {
  kind: 'MasterEOA',
  subAccounts: [{ pubkey: SUB }],
  multisigAccounts: [],
  authorizedAgentWallets: [AGENT],
  margin,
  positions: [position],
  openOrders: [openOrder, stop],
  pendingOnFill: [],
  feeTiers: [{ symbol: 'BTC-USD', rollingVolume: 1_000_000, tierIndex: 2, tierThreshold: 1_000_000, makerBps: 1.8, takerBps: 3.3, windowDays: 14 }],
  leverageSettings: [{ symbol: 'BTC-USD', leverage: 10 }],
};
const fill = {
  maker: USER,
  taker: OTHER,
  orderIdMaker: OID,
  orderIdTaker: OID2,
  isBuy: false,
  symbol: 'BTC-USD',
  amount: 0.25,
  price: 100000.5,
  makerFee: -0.5,
  takerFee: 8.75,
  fee: -0.5,
  reasonCode: 0,
  iso: false,
  counterpartyHint: 'Abcd..wxyz',
  slot: 123456,
  timestamp: 1770918312787,
};
const closed = {
  owner: USER,
  symbol: 'ETH-USD',
  maxQuantity: 2,
  totalVolume: 4,
  avgOpenPrice: 3000,
  avgClosePrice: 3100,
  realizedPnl: 200,
  fees: -2.4,
  funding: 0.3,
  openTime: '1770000000000000000',
  closeTime: TS,
  closeReason: 'liquidation_sweep',
  iso: false,
};
const funding = { owner: USER, symbol: 'BTC-USD', size: -0.5, payment: 1.25, fundingRate: 0.0001, markPrice: 99000, iso: false, slot: 123, timestamp: TS };
const history = {
  orderId: OID,
  symbol: 'BTC-USD',
  side: 'sell',
  orderType: 'takeProfit',
  tif: 'ioc',
  price: 101000,
  vwap: 101000,
  originalSize: -1,
  executedSize: -0.4,
  reduceOnly: true,
  trigger: { isAbove: true, px: 101000 },
  status: 'cancelledIOC',
  iso: false,
  slot: 124,
  timestamp: TS,
};

const examples: Record<AccountQueryType, unknown[]> = {
  fullAccount: [{ fullAccount }],
  openOrders: [{ openOrder }, { openOrder: stop }],
  fills: [{ fills: fill }],
  positions: [{ positions: closed }],
  fundingHistory: [{ fundingPayment: funding }],
  orderHistory: [{ orderHistory: history }, { orderHistory: { ...history, orderId: OID2, status: 'triggered' } }],
};

const openOrderModel = { ...openOrder, originalSize: 1, size: 0.75, isBuy: false, tif: 'alo', status: 'working', timestamp: TS_NS, venueStatus: 'working' };
const stopModel = { ...stop, isBuy: true, status: 'placed', timestamp: TS_NS, venueStatus: 'pending' };
const expected: Record<AccountQueryType, unknown[]> = {
  fullAccount: [
    {
      fullAccount: {
        ...fullAccount,
        positions: [{ ...position, coin: 'BTC-USD' }],
        openOrders: [openOrderModel, stopModel],
        marginSummary: { positions: [{ coin: 'USDC', size: 10000 }] },
        settings: { maxLeverage: [['BTC-USD', 10]] },
      },
    },
  ],
  openOrders: [{ openOrder: openOrderModel }, { openOrder: stopModel }],
  fills: [{ fills: { ...fill, slot: 123456n, timestamp: 1770918312787000000n } }],
  positions: [
    { positions: { ...closed, openTime: 1770000000000000000n, closeTime: TS_NS, closeReason: 'liquidation', venueCloseReason: 'liquidation_sweep' } },
  ],
  fundingHistory: [{ fundingPayment: { ...funding, slot: 123n, timestamp: TS_NS } }],
  orderHistory: [
    {
      orderHistory: {
        ...history,
        orderType: 'trigger',
        venueOrderType: 'takeProfit',
        originalSize: 1,
        executedSize: 0.4,
        status: 'cancelledIOC',
        venueStatus: 'cancelledIoc',
        reason: null,
        slot: 124n,
        timestamp: TS_NS,
      },
    },
  ],
};

const broken: Record<AccountQueryType, [unknown[], string]> = {
  fullAccount: [[{ fullAccount: { ...fullAccount, margin: { ...margin, totalBalance: undefined } } }], '[0].fullAccount.margin.totalBalance'],
  openOrders: [[{ openOrder: { ...openOrder, tif: 'fok' } }], '[0].openOrder.tif'],
  fills: [[{ fills: { ...fill, reasonCode: 7 } }], '[0].fills.reasonCode'],
  positions: [[{ positions: { ...closed, closeReason: 'expired' } }], '[0].positions.closeReason'],
  fundingHistory: [[{ fundingPayment: { ...funding, timestamp: '-1' } }], '[0].fundingPayment.timestamp'],
  orderHistory: [[{ orderHistory: { ...history, status: 'gone' } }], '[0].orderHistory.status'],
};

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).field;
  }
  throw new Error('expected a ValidationError');
}

describe('current account query answers (venue-protocol §8.3)', () => {
  it.each(ACCOUNT_QUERY_TYPES)('%s: a valid answer maps onto the v1 rows, and the v1 schema accepts the result', (type) => {
    const model = parseCurrentAccountResponse(type, parseJson(JSON.stringify(examples[type])));
    expect(model).toEqual(expected[type]);
    const v1Schema: Schema<unknown> = accountResponseSchemas[type];
    expect(() => parse(v1Schema, model)).not.toThrow();
  });

  it.each(ACCOUNT_QUERY_TYPES)('%s: a broken answer is rejected naming the field', (type) => {
    const [rows, field] = broken[type];
    expect(fieldOf(() => parseCurrentAccountResponse(type, rows))).toBe(field);
  });

  it('rejects what is not an array of single-key rows', () => {
    expect(fieldOf(() => parseCurrentAccountResponse('fills', { fills: fill }))).toBe('');
    expect(fieldOf(() => parseCurrentAccountResponse('fills', [{ fill }]))).toBe('[0].fills');
  });

  it('keeps integers beyond 2^53 exact when the answer is read with parseJson', () => {
    const text = JSON.stringify([{ fundingPayment: { ...funding, timestamp: 0 } }]).replace('"timestamp":0', `"timestamp":${TS}`);
    const [row] = currentAccountQueries.fundingHistory(parseJson(text));
    expect(row!.fundingPayment.timestamp).toBe(TS_NS);
  });

  it('takes isBuy from the row when the venue sends it, else from the sign of the sizes', () => {
    const [unsignedSell] = currentAccountQueries.openOrders([{ openOrder: { ...openOrder, originalSize: 1, size: 0.75, isBuy: false } }]);
    expect(unsignedSell!.openOrder).toMatchObject({ isBuy: false, originalSize: 1 });
    const [filledSell] = currentAccountQueries.openOrders([{ openOrder: { ...openOrder, size: 0, status: 'partiallyFilled' } }]);
    expect(filledSell!.openOrder).toMatchObject({ isBuy: false, size: 0, status: 'partiallyFilled' });
  });

  it('accepts a fullAccount without the hierarchy fields (the venue omits those that do not apply)', () => {
    const { kind: _k, subAccounts: _s, multisigAccounts: _m, authorizedAgentWallets: _a, pendingOnFill: _p, feeTiers: _f, ...bare } = fullAccount;
    const [row] = parseCurrentAccountResponse('fullAccount', [{ fullAccount: bare }]);
    expect(row!.fullAccount.marginSummary).toEqual({ positions: [{ coin: 'USDC', size: 10000 }] });
  });
});
