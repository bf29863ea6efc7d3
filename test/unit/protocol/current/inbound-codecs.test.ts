import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/core/errors.js';
import { currentInbound } from '../../../../src/protocol/current/inbound.js';
import { inboundCodecFor } from '../../../../src/protocol/inbound.js';
import { v1Inbound } from '../../../../src/protocol/v1/inbound.js';

const oid = bs58.encode(new Uint8Array(32).fill(0x44));
const user = bs58.encode(new Uint8Array(32).fill(0x11));
const delta = {
  type: 'l2Delta',
  data: { book: { updateType: 'delta', symbol: 'BTC-USD', levels: [[{ px: 100, sz: 0, n: 0 }], []], timestamp: 1770918312787 } },
  topic: 'l2delta.BTC-USD',
};
const compactUpdate = {
  type: 'account',
  data: {
    type: 'orderUpdate',
    ot: 'limit',
    status: 'resting',
    sym: 'BTC-USD',
    oid,
    px: 100,
    origSz: 1,
    sz: 1,
    fillSz: 0,
    vwap: 0,
    tif: 'gtc',
    r: false,
    mk: true,
    ts: '1770918312787284000',
  },
  topic: `account.${user}`,
};
const answer = (key: string) => ({ status: 'ok', response: { type: 'order', data: { statuses: [{ [key]: { oid, filledSz: 0 } }] } } });

describe('inbound codecs by dialect', () => {
  it('are picked by dialect name', () => {
    expect(inboundCodecFor('v1')).toBe(v1Inbound);
    expect(inboundCodecFor('current')).toBe(currentInbound);
    expect([v1Inbound.name, currentInbound.name]).toEqual(['v1', 'current']);
  });

  it('decode market data alike; only the current codec reads compact account updates', () => {
    expect(currentInbound.decodeStream(delta)).toEqual(v1Inbound.decodeStream(delta));
    expect(currentInbound.decodeStream(compactUpdate)).toMatchObject([{ type: 'account', data: { type: 'orderUpdate', orderId: oid, status: 'placed' } }]);
    expect(() => v1Inbound.decodeStream(compactUpdate)).toThrow(ValidationError);
  });

  it('answer action responses per path (v1) or always through POST /order (current)', () => {
    expect(v1Inbound.parseActionResponse('/order', answer('cancelledIOC'))).toEqual(answer('cancelledIOC'));
    expect(v1Inbound.parseActionResponse('/somewhere', answer('cancelledIOC'))).toBeUndefined();
    expect(() => v1Inbound.parseActionResponse('/order', answer('cancelledIoc'))).toThrow(ValidationError);
    expect(currentInbound.parseActionResponse('/order', answer('cancelledIoc'))).toEqual(answer('cancelledIOC'));
  });

  it('read account answers in their own dialect', () => {
    const row = {
      symbol: 'BTC-USD',
      orderId: oid,
      price: 100,
      originalSize: 1,
      size: 1,
      filledSize: 0,
      vwap: 0,
      maker: true,
      reduceOnly: false,
      orderType: 'limit',
      tif: 'gtc',
      status: 'resting',
      timestamp: 1770918312787,
    };
    expect(currentInbound.parseAccountResponse('openOrders', [{ openOrder: row }])).toMatchObject([{ openOrder: { isBuy: true, status: 'placed' } }]);
    expect(() => v1Inbound.parseAccountResponse('openOrders', [{ openOrder: row }])).toThrow(ValidationError);
  });
});
