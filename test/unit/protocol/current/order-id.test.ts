import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base58Encode } from '../../../../src/protocol/base58.js';
import { parseActions } from '../../../../src/protocol/current/actions.js';
import { conditionalOrderId, orderId, orderIds } from '../../../../src/protocol/current/order-id.js';

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
