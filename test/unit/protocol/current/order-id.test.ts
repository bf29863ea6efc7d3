import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base58Encode } from '../../../../src/protocol/base58.js';
import { parseActions } from '../../../../src/protocol/current/actions.js';
import { conditionalOrderId, nestedOrderIds, orderId, orderIds } from '../../../../src/protocol/current/order-id.js';
import { codecFor } from '../../../../src/protocol/codecs.js';

const account = new Uint8Array(32).fill(7);
const nonce = 42n;
const le = (n: number | bigint, bytes: number) => {
  const b = Buffer.alloc(bytes);
  if (bytes === 4) b.writeUInt32LE(Number(n));
  else b.writeBigUInt64LE(BigInt(n));
  return b;
};
const str = (s: string) => Buffer.concat([le(s.length, 8), Buffer.from(s)]);
const fx = (x: number) => le(Math.round(x * 1e8), 8);
const id = (...parts: Buffer[]) =>
  base58Encode(
    createHash('sha256')
      .update(Buffer.concat([...parts, Buffer.from(account), le(nonce, 8)]))
      .digest(),
  );

describe("perpbot's conditional order ids (§6.1 leaves them NOT FOUND; docs/protocol.md)", () => {
  it('st: sha256(u32 seqno ‖ u32 5 ‖ Legacy body ‖ account ‖ u64 nonce); builder code and slippage are not hashed', () => {
    const body = { c: 'BTC-USD', d: false, sz: 0.5, tr: 95_000, lim: 94_990.5, i: false };
    const builder = { builderCode: { to: '11111111111111111111111111111111', fee: 3 }, slippage: 25 };
    const [plain, extras] = parseActions([{ st: body }, { st: { ...body, ...builder } }]);
    const expected = id(le(1, 4), le(5, 4), str('BTC-USD'), Buffer.from([0]), fx(0.5), fx(95_000), Buffer.from([1]), fx(94_990.5), Buffer.from([0]));
    expect(conditionalOrderId(plain!, 1, account, nonce)).toBe(expected);
    expect(conditionalOrderId(extras!, 1, account, nonce)).toBe(expected);
    expect(orderId(plain!, 1, account, nonce)).toBeNull();
  });

  it('trl and rng hash their own variant and fields; an of is known by its trigger order; cx and m get none from this rule', () => {
    const [trl, rng, of, cx, m] = parseActions([
      { trl: { c: 'BTC-USD', b: false, sz: 1, trb: 150, stb: 10, i: false } },
      { rng: { c: 'BTC-USD', d: true, sz: 1, pmin: 90, pmax: 110, i: false } },
      {
        of: {
          trigger: { l: { c: 'BTC-USD', b: true, px: 100, sz: 1, tif: 'GTC', r: false, i: false } },
          actions: [{ st: { c: 'BTC-USD', d: false, sz: 1, tr: 90, i: false } }],
        },
      },
      { cx: { c: 'BTC-USD', oid: '11111111111111111111111111111111' } },
      { m: { c: 'BTC-USD', b: true, sz: 1, r: false, i: false } },
    ]);
    expect(conditionalOrderId(trl!, 0, account, nonce)).toBe(
      id(le(0, 4), le(9, 4), str('BTC-USD'), Buffer.from([0]), fx(1), le(150, 4), le(10, 4), Buffer.from([0, 0])),
    );
    expect(conditionalOrderId(rng!, 0, account, nonce)).toBe(
      id(le(0, 4), le(7, 4), str('BTC-USD'), Buffer.from([1]), fx(1), fx(90), fx(110), Buffer.from([0, 0, 0])),
    );
    const parent = parseActions([{ l: { c: 'BTC-USD', b: true, px: 100, sz: 1, tif: 'GTC', r: false, i: false } }])[0]!;
    expect(conditionalOrderId(of!, 2, account, nonce)).toBe(orderId(parent, 2, account, nonce));
    expect(conditionalOrderId(cx!, 0, account, nonce)).toBeNull();
    expect(conditionalOrderId(m!, 0, account, nonce)).toBeNull();
    expect(orderIds([m!, cx!, trl!], account, nonce)).toEqual([orderId(m!, 0, account, nonce), null, conditionalOrderId(trl!, 2, account, nonce)]);
  });
});

describe("perpbot's nested order ids (trig and of children; §6.1 leaves them NOT FOUND; docs/protocol.md)", () => {
  const parentId = base58Encode(new Uint8Array(32).fill(9));
  const nested = (...parts: Buffer[]) =>
    base58Encode(
      createHash('sha256')
        .update(Buffer.concat([...parts, Buffer.from(new Uint8Array(32).fill(9))]))
        .digest(),
    );

  it('child j: sha256(u32 j ‖ u32 variant ‖ Legacy body ‖ parent id[32]); cx gets none; the parent id decides', () => {
    const children = parseActions([
      { cx: { c: 'BTC-USD', oid: '11111111111111111111111111111111' } },
      { m: { c: 'BTC-USD', b: true, sz: 1, r: false, i: false, builderCode: { to: '11111111111111111111111111111111', fee: 3 } } },
      { st: { c: 'BTC-USD', d: false, sz: 1, tr: 90, i: false } },
    ]);
    const ids = nestedOrderIds(children, parentId);
    expect(ids).toEqual([
      null,
      nested(le(1, 4), le(0, 4), str('BTC-USD'), Buffer.from([1]), fx(1), Buffer.from([0, 0])),
      nested(le(2, 4), le(5, 4), str('BTC-USD'), Buffer.from([0]), fx(1), fx(90), Buffer.from([0, 0])),
    ]);
    expect(nestedOrderIds(children, base58Encode(new Uint8Array(32).fill(8)))[1]).not.toBe(ids[1]);
  });

  it("the codec reports them per top-level action: a trig's under the basket id, an of's under its trigger order's id; v1 has none", () => {
    const trigger = { l: { c: 'BTC-USD', b: true, px: 100, sz: 1, tif: 'GTC', r: false, i: false } };
    const children = [{ tp: { c: 'BTC-USD', d: true, sz: 1, tr: 110, i: false } }];
    const actions = [{ trig: { c: 'BTC-USD', d: true, tr: 105, actions: children } }, { of: { trigger, actions: children } }, trigger];
    const input = { actions, account: base58Encode(account), signer: base58Encode(account), nonce, network: 'devnet', mode: 'raw' } as const;
    const encoded = codecFor('current').encode(input);
    const [basket, parent] = encoded.orderIds;
    expect(encoded.childOrderIds).toEqual([nestedOrderIds(parseActions(children), basket!), nestedOrderIds(parseActions(children), parent!), []]);
    expect(encoded.childOrderIds[0]![0]).not.toBe(encoded.childOrderIds[1]![0]);
    const v1 = codecFor('v1').encode({ ...input, actions: { type: 'order', orders: [{ cancelAll: { c: [] } }] } });
    expect(v1.childOrderIds).toEqual([[]]);
  });
});
