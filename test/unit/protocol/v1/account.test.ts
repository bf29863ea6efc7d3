import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/core/errors.js';
import { parseJson, stringifyJson } from '../../../../src/core/json.js';
import { parse, safeParse } from '../../../../src/core/schema.js';
import { ACCOUNT_QUERY_TYPES, accountQuerySchema, parseAccountResponse, type AccountQueryType } from '../../../../src/protocol/v1/account.js';
import { ACCOUNT, OID, SIGNER } from './fixtures.js';

const TS = '1700000000123456789';

// Examples written from the specification's tables (and gaps-decided §5 for openOrders and fills).
const openOrder = {
  symbol: 'BTC-USD',
  orderId: OID.b58,
  price: 100000.5,
  originalSize: 1,
  size: 0.75,
  filledSize: 0.25,
  vwap: 100000.5,
  isBuy: true,
  maker: true,
  reduceOnly: false,
  tif: 'gtc',
  status: 'working',
  timestamp: TS,
};
const examples: Record<AccountQueryType, unknown> = {
  fullAccount: [
    {
      fullAccount: {
        positions: [{ coin: 'BTC-USD', size: -0.5, price: 99000, realizedPnl: 12.5, leverage: 10 }],
        openOrders: [openOrder],
        marginSummary: { positions: [{ coin: 'USDC', size: 10000 }] },
        settings: {
          maxLeverage: [
            ['BTC-USD', 10],
            ['ETH-USD', 20],
          ],
        },
      },
    },
  ],
  openOrders: [{ openOrder: { ...openOrder, status: 'placed', filledSize: 0, vwap: 0, size: 1 } }],
  fills: [
    {
      fills: {
        maker: ACCOUNT.b58,
        taker: SIGNER.b58,
        orderIdMaker: OID.b58,
        orderIdTaker: OID.b58,
        isBuy: false,
        symbol: 'ETH-USD',
        amount: 2,
        price: 3000.25,
        makerFee: -0.1,
        takerFee: 0.6,
        slot: 123456,
        timestamp: TS,
      },
    },
  ],
  positions: [
    {
      positions: {
        owner: ACCOUNT.b58,
        symbol: 'BTC-USD',
        maxQuantity: 1,
        totalVolume: 2,
        avgOpenPrice: 98000,
        avgClosePrice: 99000,
        realizedPnl: 1000,
        fees: 3.2,
        funding: -0.4,
        openTime: '1690000000000000000',
        closeTime: TS,
        closeReason: 'liquidation',
      },
    },
  ],
  fundingHistory: [
    { fundingPayment: { owner: ACCOUNT.b58, symbol: 'BTC-USD', size: 0.5, payment: -0.12, fundingRate: 0.0001, markPrice: 99500, slot: 77, timestamp: TS } },
  ],
  orderHistory: [
    {
      orderHistory: {
        orderId: OID.b58,
        symbol: 'BTC-USD',
        side: 'buy',
        orderType: 'limit',
        tif: 'ioc',
        price: 100000,
        vwap: 99999,
        originalSize: 1,
        executedSize: 0.5,
        reduceOnly: false,
        status: 'cancelledIOC',
        reason: null,
        slot: 88,
        timestamp: TS,
      },
    },
  ],
};

// One broken copy per kind, with the field the error must name.
const broken: Record<AccountQueryType, [unknown, string]> = {
  fullAccount: [
    [{ fullAccount: { positions: [], openOrders: [{ ...openOrder, price: '1' }], marginSummary: { positions: [] }, settings: { maxLeverage: [] } } }],
    '[0].fullAccount.openOrders[0].price',
  ],
  openOrders: [[{ openOrder: { ...openOrder, status: 'filledd' } }], '[0].openOrder.status'],
  fills: [[{ fills: { ...(examples.fills as { fills: object }[])[0]!.fills, orderIdMaker: 'x' } }], '[0].fills.orderIdMaker'],
  positions: [[{ positions: { ...(examples.positions as { positions: object }[])[0]!.positions, closeReason: 'expired' } }], '[0].positions.closeReason'],
  fundingHistory: [
    [{ fundingPayment: { owner: ACCOUNT.b58, symbol: 'BTC-USD', size: 0.5, payment: -0.12, fundingRate: 0.0001, markPrice: 99500, timestamp: TS } }],
    '[0].fundingPayment.slot',
  ],
  orderHistory: [
    [{ orderHistory: { ...(examples.orderHistory as { orderHistory: object }[])[0]!.orderHistory, status: 'placed' } }],
    '[0].orderHistory.status',
  ],
};

describe('v1 account query responses', () => {
  it.each(ACCOUNT_QUERY_TYPES)('%s: a valid example parses (ns timestamps exact, unknown fields ignored)', (type) => {
    const withExtra = JSON.parse(JSON.stringify(examples[type])) as Record<string, Record<string, unknown>>[];
    withExtra[0]!.futureField = { x: 1 } as never;
    const parsed = parseAccountResponse(type, withExtra);
    expect(parsed).toHaveLength(1);
  });

  it.each(ACCOUNT_QUERY_TYPES)('%s: a broken example throws naming the field', (type) => {
    const [value, field] = broken[type];
    expect(() => parseAccountResponse(type, value)).toThrow(ValidationError);
    expect(() => parseAccountResponse(type, value)).toThrow(expect.objectContaining({ field }));
  });

  it('keeps nanosecond timestamps exact through stringifyJson/parseJson', () => {
    const text = stringifyJson(examples.orderHistory).replace(`"${TS}"`, TS);
    const parsed = parseAccountResponse('orderHistory', parseJson(text));
    expect(parsed[0]!.orderHistory.timestamp).toBe(1_700_000_000_123_456_789n);
    expect(parsed[0]!.orderHistory.slot).toBe(88n);
  });

  it('typed access: fullAccount rows', () => {
    const [row] = parseAccountResponse('fullAccount', examples.fullAccount);
    expect(row!.fullAccount.settings.maxLeverage[1]).toEqual(['ETH-USD', 20]);
    expect(row!.fullAccount.openOrders[0]!.timestamp).toBe(BigInt(TS));
  });

  it('validates the account query request strictly', () => {
    expect(parse(accountQuerySchema, { type: 'fills', user: ACCOUNT.b58 })).toEqual({ type: 'fills', user: ACCOUNT.b58 });
    const bad = safeParse(accountQuerySchema, { type: 'trades', user: ACCOUNT.b58 });
    expect(bad.ok || bad.error.field).toBe('type');
    const extra = safeParse(accountQuerySchema, { type: 'fills', user: ACCOUNT.b58, limit: 5 });
    expect(extra.ok || extra.error.field).toBe('limit');
  });
});
