import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { applyAccountUpdate } from '../../../src/account/state.js';
import type { AccountUpdate } from '../../../src/core/account-data.js';
import { TERMINAL_ORDER_STATUSES, NON_TERMINAL_ORDER_STATUSES } from '../../../src/core/intent.js';
import { parse } from '../../../src/core/schema.js';
import { currentInbound } from '../../../src/protocol/current/inbound.js';
import { currentExchangeInfoSchema } from '../../../src/protocol/current/inbound-market.js';
import { parseAccountResponse } from '../../../src/protocol/v1/account.js';
import { exchangeInfoSchema } from '../../../src/protocol/v1/exchange-info.js';
import { v1Inbound } from '../../../src/protocol/v1/inbound.js';
import { parseActionResponse } from '../../../src/protocol/v1/responses.js';
import type { StreamMessage } from '../../../src/protocol/v1/stream.js';
import { margin, position } from './current/rows.js';
import { ticker } from './v1/rows.js';
import {
  accountUpdateOf,
  bookUpdateOf,
  closedOrderOf,
  fillOfRow,
  itemResultsOf,
  marketRulesOf,
  tickerOf,
  tradeOf,
  venueOrderOfOpen,
} from '../../../src/protocol/vocabulary.js';

const key = (byte: number) => bs58.encode(new Uint8Array(32).fill(byte));
const ME = key(0x11);
const OTHER = key(0x22);
const OID = key(0x44);
const OID2 = key(0x45);
const TS = '1700000000123456789';
const TS_NS = 1_700_000_000_123_456_789n;
const MS = 1_700_000_000_123;
const ACCOUNT_TOPIC = `account.${ME}`;

/** The one v1 model message of a frame, validated by the dialect's inbound codec (as the client receives it). */
function decoded(frame: unknown, codec = v1Inbound): StreamMessage[] {
  const d = codec.decodeStream(frame);
  return Array.isArray(d) ? [...d] : [d as StreamMessage];
}

function single(frame: unknown): StreamMessage {
  const [m] = decoded(frame);
  return m!;
}

function accountUpdates(data: Record<string, unknown>, codec = v1Inbound): (AccountUpdate | undefined)[] {
  return decoded({ type: 'account', data, topic: ACCOUNT_TOPIC }, codec).map((m) => (m.type === 'account' ? accountUpdateOf(m.data) : undefined));
}

describe('market data (gaps §7, venue-protocol §9.2–9.3)', () => {
  it('a book snapshot: bids and asks best first as {price, size, orders}, the venue time in ms, the arrival given', () => {
    const m = single({
      type: 'l2Delta',
      data: {
        book: {
          updateType: 'snapshot',
          symbol: 'BTC-USD',
          levels: [
            [
              { px: 99999, sz: 1, n: 2 },
              { px: 99998, sz: 3, n: 1 },
            ],
            [{ px: 100001, sz: 2, n: 1 }],
          ],
          timestamp: MS,
        },
      },
      topic: 'l2delta.BTC-USD',
    });
    if (m.type !== 'l2Delta') throw new Error(m.type);
    expect(bookUpdateOf(m.data.book, 42n)).toEqual({
      kind: 'snapshot',
      symbol: 'BTC-USD',
      bids: [
        { price: 99999, size: 1, orders: 2 },
        { price: 99998, size: 3, orders: 1 },
      ],
      asks: [{ price: 100001, size: 2, orders: 1 }],
      venueTimeMs: MS,
      arrivalNs: 42n,
    });
  });

  it('a delta of one level (size 0 deletes it) leaves the other side empty', () => {
    const m = single({
      type: 'l2Delta',
      data: { book: { updateType: 'delta', symbol: 'BTC-USD', levels: [[], [{ px: 100000.5, sz: 0, n: 0 }]], timestamp: MS + 1 } },
      topic: 'l2delta.BTC-USD',
    });
    if (m.type !== 'l2Delta') throw new Error(m.type);
    const u = bookUpdateOf(m.data.book, 7n);
    expect(u).toEqual({ kind: 'delta', symbol: 'BTC-USD', bids: [], asks: [{ price: 100000.5, size: 0, orders: 0 }], venueTimeMs: MS + 1, arrivalNs: 7n });
  });

  it("trades: the wire side is the taker's (true = bought); liq marks a liquidation", () => {
    const m = single({
      type: 'trades',
      data: {
        trades: [
          { s: 'BTC-USD', px: 100000, sz: 0.1, time: MS, side: true, maker: ME, taker: OTHER },
          { s: 'BTC-USD', px: 99990, sz: 0.2, time: MS + 1, side: false, maker: OTHER, taker: ME, liq: true },
        ],
      },
      topic: 'trades.BTC-USD',
    });
    if (m.type !== 'trades') throw new Error(m.type);
    expect(m.data.trades.map(tradeOf)).toEqual([
      { symbol: 'BTC-USD', price: 100000, size: 0.1, takerSide: 'buy', timeMs: MS, maker: ME, taker: OTHER, liquidation: false },
      { symbol: 'BTC-USD', price: 99990, size: 0.2, takerSide: 'sell', timeMs: MS + 1, maker: OTHER, taker: ME, liquidation: true },
    ]);
  });

  it('a ticker: prices, funding, 24 h volume in base and USD, the venue time in ns', () => {
    const m = single({ type: 'ticker', data: { ticker }, topic: 'ticker.BTC-USD' });
    if (m.type !== 'ticker') throw new Error(m.type);
    expect(tickerOf(m.data.ticker)).toEqual({
      symbol: 'BTC-USD',
      lastPrice: 100000,
      markPrice: 100001,
      oraclePrice: 100002,
      fundingRate: 0.0001,
      openInterest: 500,
      volume24h: 1234.5,
      volume24hUsd: 123450000,
      high24hPrice: 101000,
      low24hPrice: 98000,
      venueTimeNs: TS_NS,
    });
  });

  it('exchangeInfo rows of both dialects become market rules (no minimum notional: 0)', () => {
    const v1 = parse(exchangeInfoSchema, [
      { symbol: 'BTC-USD', tickSize: 0.5, lotSize: 0.001, maxLeverage: 50 },
      { symbol: 'ETH-USD', tickSize: 0.01, lotSize: 0.01, minNotional: 10, maxLeverage: 25 },
    ]);
    expect(v1.map(marketRulesOf)).toEqual([
      { symbol: 'BTC-USD', tickSizeUsd: 0.5, lotSizeBase: 0.001, minNotionalUsd: 0, maxLeverage: 50 },
      { symbol: 'ETH-USD', tickSizeUsd: 0.01, lotSizeBase: 0.01, minNotionalUsd: 10, maxLeverage: 25 },
    ]);
    const current = parse(currentExchangeInfoSchema, {
      symbols: ['SOL-USD'],
      markets: { 'SOL-USD': { symbol: 'SOL-USD', status: 'TRADING', tickSize: 0.001, lotSize: 0.1, minNotional: 5, maxLeverage: 20 } },
    });
    expect(current.map(marketRulesOf)).toEqual([{ symbol: 'SOL-USD', tickSizeUsd: 0.001, lotSizeBase: 0.1, minNotionalUsd: 5, maxLeverage: 20 }]);
  });
});

const openOrderRow = {
  symbol: 'BTC-USD',
  orderId: OID,
  price: 100000,
  originalSize: 1,
  size: 0.75,
  filledSize: 0.25,
  vwap: 100000,
  isBuy: true,
  maker: true,
  reduceOnly: false,
  tif: 'alo',
  status: 'working',
  timestamp: TS,
};
const openVenueOrder = {
  orderId: OID,
  symbol: 'BTC-USD',
  side: 'buy',
  price: 100000,
  originalSize: 1,
  remainingSize: 0.75,
  filledSize: 0.25,
  avgFillPrice: 100000,
  maker: true,
  status: 'working',
  venueTimeNs: TS_NS,
  reason: undefined,
  reduceOnly: false,
  tif: 'ALO',
  parked: false,
};

describe('the account stream (spec: Events; gaps §7; venue-protocol §9.4)', () => {
  it('the snapshot: open orders with reduce-only and tif, positions as sent, collateral per coin, leverage per symbol', () => {
    const snapshot = {
      type: 'accountSnapshot',
      positions: [
        { coin: 'BTC-USD', size: -0.5, price: 99000, realizedPnl: 12, leverage: 5 },
        { coin: 'ETH-USD', size: 0, price: 0, realizedPnl: 3, leverage: 10 },
      ],
      openOrders: [openOrderRow],
      marginSummary: { positions: [{ coin: 'USDC', size: 5000 }] },
      settings: { maxLeverage: [['BTC-USD', 5]] },
    };
    expect(accountUpdates(snapshot)).toEqual([
      {
        kind: 'snapshot',
        snapshot: {
          openOrders: [openVenueOrder],
          positions: [
            { symbol: 'BTC-USD', size: -0.5, entryPrice: 99000, realizedPnlUsd: 12, leverage: 5, unrealizedPnlUsd: undefined, liquidationPrice: undefined },
            { symbol: 'ETH-USD', size: 0, entryPrice: 0, realizedPnlUsd: 3, leverage: 10, unrealizedPnlUsd: undefined, liquidationPrice: undefined },
          ],
          collateral: [{ coin: 'USDC', amount: 5000 }],
          leverage: [{ symbol: 'BTC-USD', leverage: 5 }],
        },
      },
    ]);
  });

  it("an orderUpdate (the spec's unified message): side from isBuy, remaining size, vwap, reason; no reduce-only or tif", () => {
    const update = {
      type: 'orderUpdate',
      status: 'cancelledRiskLimit',
      symbol: 'BTC-USD',
      orderId: OID,
      price: 100000,
      originalSize: 1,
      size: 0.6,
      filledSize: 0.4,
      vwap: 99999.5,
      isBuy: false,
      maker: true,
      timestamp: TS,
      reason: 'margin',
    };
    expect(accountUpdates(update)).toEqual([
      {
        kind: 'order',
        order: {
          orderId: OID,
          symbol: 'BTC-USD',
          side: 'sell',
          price: 100000,
          originalSize: 1,
          remainingSize: 0.6,
          filledSize: 0.4,
          avgFillPrice: 99999.5,
          maker: true,
          status: 'cancelledRiskLimit',
          venueTimeNs: TS_NS,
          reason: 'margin',
          reduceOnly: undefined,
          tif: undefined,
          parked: false,
        },
      },
    ]);
    expect(accountUpdates({ ...update, reason: null })[0]).toMatchObject({ order: { reason: undefined } });
  });

  it("a fill is the account's own view: its side (isBuy), its fee, maker, and the cause of reasonCode 0..3", () => {
    const fill = {
      type: 'fill',
      symbol: 'ETH-USD',
      orderId: OID,
      price: 3000,
      size: 2,
      fee: -0.6,
      isBuy: false,
      reasonCode: 0,
      counterpartyHint: 'Abcd..wxyz',
      timestamp: TS,
      maker: true,
    };
    expect(accountUpdates(fill)).toEqual([
      {
        kind: 'fill',
        fill: { symbol: 'ETH-USD', orderId: OID, side: 'sell', price: 3000, size: 2, feeUsd: -0.6, maker: true, cause: 'trade', venueTimeNs: TS_NS },
      },
    ]);
    const causes = [0, 1, 2, 3].map((reasonCode) => accountUpdates({ ...fill, isBuy: true, reasonCode })[0]);
    expect(causes.map((u) => (u?.kind === 'fill' ? [u.fill.side, u.fill.cause] : u))).toEqual([
      ['buy', 'trade'],
      ['buy', 'liquidation'],
      ['buy', 'adl'],
      ['buy', 'liquidationSweep'],
    ]);
  });

  it('position, margin, leverage and liquidation messages', () => {
    const position = {
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
    };
    expect(accountUpdates(position)).toEqual([
      {
        kind: 'position',
        position: { symbol: 'BTC-USD', size: -0.5, entryPrice: 99000, realizedPnlUsd: 10, leverage: 10, unrealizedPnlUsd: -5, liquidationPrice: 120000 },
      },
    ]);
    const margin = {
      type: 'marginUpdate',
      totalBalance: 10000,
      availableBalance: 8000,
      marginUsed: 2000,
      notional: 20000,
      realizedPnl: 5,
      unrealizedPnl: -3,
      fees: 1,
      funding: 0.5,
    };
    expect(accountUpdates(margin)).toEqual([
      {
        kind: 'margin',
        margin: {
          totalBalanceUsd: 10000,
          availableBalanceUsd: 8000,
          marginUsedUsd: 2000,
          notionalUsd: 20000,
          realizedPnlUsd: 5,
          unrealizedPnlUsd: -3,
          feesUsd: 1,
          fundingUsd: 0.5,
        },
      },
    ]);
    expect(accountUpdates({ type: 'leverageUpdate', leverage: [{ symbol: 'BTC-USD', leverage: 20 }] })).toEqual([
      { kind: 'leverage', leverage: [{ symbol: 'BTC-USD', leverage: 20 }] },
    ]);
    const liquidation = {
      type: 'liquidation',
      symbol: 'BTC-USD',
      price: 90000,
      size: 0.5,
      isBuy: false,
      marginPrior: 100,
      marginAfter: 0,
      reason: 'maintenance margin',
      timestamp: TS,
    };
    expect(accountUpdates(liquidation)).toEqual([
      {
        kind: 'liquidation',
        liquidation: {
          symbol: 'BTC-USD',
          price: 90000,
          size: 0.5,
          side: 'sell',
          marginBeforeUsd: 100,
          marginAfterUsd: 0,
          reason: 'maintenance margin',
          venueTimeNs: TS_NS,
        },
      },
    ]);
  });

  it('the current dialect: a compact orderUpdate (signed sizes) and a snapshot that also stands for margin and positions', () => {
    const compact = {
      type: 'orderUpdate',
      ts: TS,
      ot: 'limit',
      status: 'resting',
      sym: 'BTC-USD',
      oid: OID,
      px: 100001.5,
      origSz: -0.02,
      sz: -0.02,
      fillSz: 0,
      vwap: 0,
      mk: true,
      r: true,
      tif: 'postOnly',
      trigger: null,
      reason: null,
    };
    expect(accountUpdates(compact, currentInbound)).toEqual([
      {
        kind: 'order',
        order: {
          orderId: OID,
          symbol: 'BTC-USD',
          side: 'sell',
          price: 100001.5,
          originalSize: 0.02,
          remainingSize: 0.02,
          filledSize: 0,
          avgFillPrice: 0,
          maker: true,
          status: 'placed',
          venueTimeNs: TS_NS,
          reason: undefined,
          reduceOnly: undefined,
          tif: undefined,
          parked: false,
        },
      },
    ]);
    const row = { ...openOrderRow, isBuy: undefined, originalSize: -1, size: -0.75, tif: 'postOnly', orderType: 'limit', trigger: null, iso: false };
    const snapshot = {
      type: 'accountSnapshot',
      kind: 'MasterEOA',
      margin,
      positions: [position],
      openOrders: [row],
      leverageSettings: [{ symbol: 'BTC-USD', leverage: 10 }],
    };
    const updates = accountUpdates(snapshot, currentInbound);
    expect(updates.map((u) => u?.kind)).toEqual(['snapshot', 'margin', 'position']);
    expect(updates[0]).toMatchObject({
      snapshot: {
        openOrders: [{ ...openVenueOrder, side: 'sell', originalSize: 1, remainingSize: 0.75 }],
        positions: [{ symbol: 'BTC-USD', size: -0.5, entryPrice: 99000 }],
        leverage: [{ symbol: 'BTC-USD', leverage: 10 }],
      },
    });
    expect(updates[1]).toMatchObject({ margin: { totalBalanceUsd: 10000, availableBalanceUsd: 7500, fundingUsd: 0.1 } });
    expect(updates[2]).toMatchObject({ position: { symbol: 'BTC-USD', size: -0.5, unrealizedPnlUsd: -5, liquidationPrice: 120000 } });
  });
});

describe('account queries (spec: Resources; gaps §5)', () => {
  it('openOrders rows: tif in capitals, reduce-only known', () => {
    const rows = parseAccountResponse('openOrders', [
      { openOrder: openOrderRow },
      { openOrder: { ...openOrderRow, orderId: OID2, isBuy: false, reduceOnly: true, tif: 'gtc', status: 'placed' } },
    ]);
    expect(rows.map((r) => venueOrderOfOpen(r.openOrder))).toEqual([
      openVenueOrder,
      { ...openVenueOrder, orderId: OID2, side: 'sell', reduceOnly: true, tif: 'GTC', status: 'placed' },
    ]);
  });

  it('a parked trigger order is placed and not a maker (the local venue reports it so): parked until it is on the book or trades', () => {
    const parked = { ...openOrderRow, price: 0, size: 1, filledSize: 0, vwap: 0, maker: false, tif: 'ioc', status: 'placed' };
    const rows = parseAccountResponse('openOrders', [{ openOrder: parked }, { openOrder: { ...parked, maker: true, tif: 'gtc' } }]);
    expect(rows.map((r) => venueOrderOfOpen(r.openOrder).parked)).toEqual([true, false]);
    const update = (status: string, maker: boolean) => accountUpdates({ ...parked, type: 'orderUpdate', status, maker, reason: null });
    expect(update('placed', false)).toMatchObject([{ kind: 'order', order: { status: 'placed', parked: true } }]);
    expect(update('placed', true)).toMatchObject([{ kind: 'order', order: { status: 'placed', parked: false } }]);
    expect(update('filled', false)).toMatchObject([{ kind: 'order', order: { status: 'filled', parked: false } }]);
  });

  it('orderHistory rows: the terminal order with its fill', () => {
    const history = {
      orderId: OID,
      symbol: 'BTC-USD',
      side: 'sell',
      orderType: 'limit',
      tif: 'ioc',
      price: 101000,
      vwap: 101000,
      originalSize: 1,
      executedSize: 0.4,
      reduceOnly: true,
      status: 'cancelledIOC',
      reason: null,
      slot: 124,
      timestamp: TS,
    };
    const rows = parseAccountResponse('orderHistory', [
      { orderHistory: history },
      { orderHistory: { ...history, status: 'rejectedRiskLimit', reason: 'margin', executedSize: 0 } },
    ]);
    expect(rows.map((r) => closedOrderOf(r.orderHistory))).toEqual([
      {
        orderId: OID,
        symbol: 'BTC-USD',
        side: 'sell',
        orderType: 'limit',
        tif: 'IOC',
        price: 101000,
        avgFillPrice: 101000,
        originalSize: 1,
        filledSize: 0.4,
        reduceOnly: true,
        status: 'cancelledIOC',
        reason: undefined,
        venueTimeNs: TS_NS,
      },
      {
        orderId: OID,
        symbol: 'BTC-USD',
        side: 'sell',
        orderType: 'limit',
        tif: 'IOC',
        price: 101000,
        avgFillPrice: 101000,
        originalSize: 1,
        filledSize: 0,
        reduceOnly: true,
        status: 'rejectedRiskLimit',
        reason: 'margin',
        venueTimeNs: TS_NS,
      },
    ]);
  });

  describe("fills rows are shared by both parties; isBuy is the taker's side (docs/protocol.md)", () => {
    const row = {
      maker: OTHER,
      taker: ME,
      orderIdMaker: OID2,
      orderIdTaker: OID,
      isBuy: true,
      symbol: 'BTC-USD',
      amount: 0.25,
      price: 100000.5,
      makerFee: -0.5,
      takerFee: 8.75,
      slot: 9,
      timestamp: TS,
    };
    const [parsed] = parseAccountResponse('fills', [{ fills: row }]);

    it("the taker: its side is isBuy, its order the taker's, its fee the taker fee", () => {
      expect(fillOfRow(ME, parsed!.fills)).toEqual({
        symbol: 'BTC-USD',
        orderId: OID,
        side: 'buy',
        price: 100000.5,
        size: 0.25,
        feeUsd: 8.75,
        maker: false,
        cause: 'trade',
        venueTimeNs: TS_NS,
      });
    });

    it('the maker: the opposite side, its own order and fee (a rebate here)', () => {
      expect(fillOfRow(OTHER, parsed!.fills)).toEqual({
        symbol: 'BTC-USD',
        orderId: OID2,
        side: 'sell',
        price: 100000.5,
        size: 0.25,
        feeUsd: -0.5,
        maker: true,
        cause: 'trade',
        venueTimeNs: TS_NS,
      });
    });

    it('a taker selling', () => {
      expect(fillOfRow(ME, { ...parsed!.fills, isBuy: false }).side).toBe('sell');
      expect(fillOfRow(OTHER, { ...parsed!.fills, isBuy: false }).side).toBe('buy');
    });
  });
});

describe('order statuses of answers', () => {
  const statusOf = (key: string) => {
    const [item] = itemResultsOf([{ [key]: { oid: OID } }]);
    return item?.kind === 'order' ? item.fact.status : item?.kind;
  };

  it("the specification's 13 order states stand for themselves", () => {
    for (const s of [...NON_TERMINAL_ORDER_STATUSES, ...TERMINAL_ORDER_STATUSES]) expect(statusOf(s)).toBe(s);
  });

  it('other spellings of answers and the current generation; an entry under any other name is no order fact', () => {
    expect(['resting', 'triggered', 'cancelledIoc', 'siblingCancelled', 'triggerFailed'].map(statusOf)).toEqual([
      'placed',
      'placed',
      'cancelledIOC',
      'cancelled',
      'rejectedInvalid',
    ]);
    expect(['pending', 'expired', 'deposit', 'toString', 'cancelOneRejected'].map(statusOf)).toEqual(['done', 'done', 'done', 'done', 'error']);
  });
});

describe("itemResultsOf: the items of an accepted action's answer (spec: States and transitions; gaps §2)", () => {
  it('every entry of the v1 status table, in item order', () => {
    const answer = parseActionResponse('order', {
      status: 'ok',
      response: {
        type: 'order',
        data: {
          statuses: [
            { resting: { oid: OID } },
            { working: { oid: OID, filledSz: 0.25, remainingSz: 0.75, vwap: 100000 } },
            { filled: { oid: OID, totalSz: 1, avgPx: 100000 } },
            { partiallyFilled: { oid: OID, totalSz: 0.4, avgPx: 100000 } },
            { cancelled: { oid: OID } },
            { cancelledRiskLimit: { oid: OID, reason: 'margin' } },
            { cancelledSelfCrossing: { oid: OID } },
            { cancelledReduceOnly: { oid: OID } },
            { cancelledIOC: { oid: OID, filledSz: 0 } },
            { rejectedInvalid: { oid: OID, reason: 'price not on tick' } },
            { rejectedRiskLimit: { oid: OID } },
            { rejectedCrossing: { oid: OID } },
            { rejectedDuplicate: { oid: OID } },
            { error: { message: 'Insufficient margin' } },
          ],
        },
      },
    });
    if (!('response' in answer)) throw new Error('error body');
    const order = (status: string, extra: object = {}) => ({
      kind: 'order',
      fact: { orderId: OID, status, filledSize: undefined, reason: undefined, ...extra },
    });
    expect(itemResultsOf(answer.response.data.statuses)).toEqual([
      order('placed'),
      order('working', { filledSize: 0.25 }),
      order('filled', { filledSize: 1 }),
      order('partiallyFilled', { filledSize: 0.4 }),
      order('cancelled'),
      order('cancelledRiskLimit', { reason: 'margin' }),
      order('cancelledSelfCrossing'),
      order('cancelledReduceOnly'),
      order('cancelledIOC', { filledSize: 0 }),
      order('rejectedInvalid', { reason: 'price not on tick' }),
      order('rejectedRiskLimit'),
      order('rejectedCrossing'),
      order('rejectedDuplicate'),
      { kind: 'error', message: 'Insufficient margin' },
    ]);
  });

  it('answers to the other v1 actions: done, or an error with its message', () => {
    expect(
      itemResultsOf([
        { settings: { maxLeverage: [['BTC-USD', 5]] } },
        { agentWallet: { agent: OTHER, delete: false } },
        { deposit: { amount: 10000 } },
        { oracle: { count: 2 } },
      ]),
    ).toEqual([{ kind: 'done' }, { kind: 'done' }, { kind: 'done' }, { kind: 'done' }]);
    expect(itemResultsOf([{ depositFailed: { message: 'Rate limit exceeded' } }])).toEqual([{ kind: 'error', message: 'Rate limit exceeded' }]);
  });

  it("the current generation's answer (mapped by its inbound codec): signed sizes unsigned, its own status names read", () => {
    const answer = currentInbound.parseActionResponse('/order', {
      status: 'ok',
      response: {
        type: 'order',
        data: {
          statuses: [
            { triggered: { oid: OID } },
            { filled: { oid: OID, totalSz: -1, avgPx: 100000.5 } },
            { cancelledIoc: { oid: OID, filledSz: -0.1 } },
            { siblingCancelled: { oid: OID } },
            { triggerFailed: { oid: OID, reason: 'insufficient margin at trigger' } },
            { cancelOneRejected: { oid: OID, reason: 'unknown order' } },
            { cancelAllRejected: { reason: 'nothing to cancel' } },
            { agentWallet: { agent_wallet: OTHER } },
            { transferFailed: { message: 'insufficient balance' } },
            { proposalExecuted: { id: 7 } },
          ],
        },
      },
    });
    if (!answer || !('response' in answer)) throw new Error('error body');
    expect(itemResultsOf(answer.response.data.statuses as Record<string, unknown>[])).toEqual([
      { kind: 'order', fact: { orderId: OID, status: 'placed', filledSize: undefined, reason: undefined, parked: false } },
      { kind: 'order', fact: { orderId: OID, status: 'filled', filledSize: 1, reason: undefined } },
      { kind: 'order', fact: { orderId: OID, status: 'cancelledIOC', filledSize: 0.1, reason: undefined } },
      { kind: 'order', fact: { orderId: OID, status: 'cancelled', filledSize: undefined, reason: undefined } },
      { kind: 'order', fact: { orderId: OID, status: 'rejectedInvalid', filledSize: undefined, reason: 'insufficient margin at trigger' } },
      { kind: 'error', message: 'unknown order' },
      { kind: 'error', message: 'nothing to cancel' },
      { kind: 'done' },
      { kind: 'error', message: 'insufficient balance' },
      { kind: 'done' },
    ]);
  });

  it('an error entry without a message, and an entry that is no object', () => {
    expect(itemResultsOf([{ error: {} }, { resting: null }, {}])).toEqual([{ kind: 'error', message: 'error' }, { kind: 'done' }, { kind: 'done' }]);
  });
});

describe('current-only account data in the vocabulary', () => {
  const TS = 1_770_918_312_787_284_000n;

  it('adl, refused cancels and fee tier updates become notices; fee tiers of a snapshot reach the state', () => {
    const adl = accountUpdateOf({ type: 'adl', symbol: 'BTC-USD', price: 120_000, size: -0.1, isBuy: false, reason: null, timestamp: TS });
    expect(adl).toEqual({
      kind: 'notice',
      notice: { kind: 'adl', symbol: 'BTC-USD', price: 120_000, size: 0.1, side: 'sell', reason: undefined, venueTimeNs: TS },
    });
    expect(accountUpdateOf({ type: 'cancelAllRejected', reason: 'nothing to cancel', timestamp: TS })).toEqual({
      kind: 'notice',
      notice: { kind: 'cancelRejected', symbol: undefined, orderId: undefined, reason: 'nothing to cancel', venueTimeNs: TS },
    });
    const tier = { symbol: 'BTC-USD', rollingVolume: 2e6, tierIndex: 1, makerBps: 1.8, takerBps: 3.3 };
    const update = accountUpdateOf({ type: 'feeTierUpdate', feeTiers: [tier], ts: TS })!;
    const fee = { symbol: 'BTC-USD', tierIndex: 1, rollingVolumeUsd: 2e6, makerBps: 1.8, takerBps: 3.3 };
    expect(update).toEqual({ kind: 'notice', notice: { kind: 'feeTiers', feeTiers: [fee], venueTimeNs: TS } });
    const empty = applyAccountUpdate('u', undefined, { kind: 'snapshot', snapshot: { openOrders: [], positions: [], collateral: [], leverage: [] } });
    expect(applyAccountUpdate('u', empty, update)?.feeTiers?.get('BTC-USD')).toEqual(fee);
  });
});
