// The v1.0.11 "wincode" signed message (gaps-decided §1): u32 action ‖ body ‖ u64 nonce ‖ account ‖ signer.
// Invariant: the same bytes on the client (signing) and the venue (re-serializing a received body to verify).

import { ValidationError } from '../../core/errors.js';
import { ByteWriter } from '../bytes.js';
import { decodeKey32 } from '../pubkey.js';
import type { Action, ActionType, OrderItem, OrderType, PlaceOrder } from './actions.js';

export const ACTION_DISCRIMINANT = { order: 0, oracle: 1, faucet: 2, updateUserSettings: 3, agentWalletCreation: 4 } as const satisfies Record<
  ActionType,
  number
>;
export const ITEM_DISCRIMINANT = { order: 0, cancel: 1, cancelAll: 2 } as const;
export const ORDER_TYPE_CODE = { limit: 0, trigger: 1 } as const;
export const TIF_CODE = { GTC: 0, IOC: 1, ALO: 2 } as const;

const U64_MAX = (1n << 64n) - 1n;

/** Throws ValidationError (field `nonce`) unless `nonce` is a bigint in the u64 range. */
export function checkNonce(nonce: unknown): asserts nonce is bigint {
  if (typeof nonce !== 'bigint') throw new ValidationError('nonce', `expected a bigint u64, got ${typeof nonce}`);
  if (nonce < 0n || nonce > U64_MAX) throw new ValidationError('nonce', `value ${nonce} outside u64 range`);
}

/** A 32-byte key or hash: base58 text or raw bytes. */
export type Key32 = string | Uint8Array;

/** Raw bytes of a 32-byte key; throws ValidationError naming `field`. */
export function key32Bytes(key: Key32, field: string): Uint8Array {
  if (typeof key === 'string') return decodeKey32(key, field);
  if (key.length !== 32) throw new ValidationError(field, `expected 32 bytes, got ${key.length}`);
  return key;
}

/** f64 raw IEEE-754; -0 is written as +0 because JSON text does not carry the sign of zero across a round trip. */
function f64(w: ByteWriter, v: number): void {
  w.f64(v === 0 ? 0 : v);
}

function writeOrderType(w: ByteWriter, t: OrderType): void {
  if ('limit' in t) {
    w.u32(ORDER_TYPE_CODE.limit).u32(TIF_CODE[t.limit.tif]);
    return;
  }
  w.u32(ORDER_TYPE_CODE.trigger).bool(t.trigger.is_market);
  f64(w, t.trigger.triggerPx);
}

function writePlaceOrder(w: ByteWriter, o: PlaceOrder): void {
  w.str(o.c).bool(o.b);
  f64(w, o.px);
  f64(w, o.sz);
  w.bool(o.r);
  writeOrderType(w, o.t);
  if (o.cloid === undefined) w.u8(0);
  else w.u8(1).raw(key32Bytes(o.cloid, 'cloid'));
}

/** Writes one OrderItem: u32 item discriminant ‖ data (also the input of the order-id hash). */
export function writeOrderItem(w: ByteWriter, item: OrderItem): void {
  if ('order' in item) {
    w.u32(ITEM_DISCRIMINANT.order);
    writePlaceOrder(w, item.order);
  } else if ('cancel' in item) {
    w.u32(ITEM_DISCRIMINANT.cancel).str(item.cancel.c).raw(key32Bytes(item.cancel.oid, 'oid'));
  } else {
    w.u32(ITEM_DISCRIMINANT.cancelAll).len(item.cancelAll.c.length);
    for (const c of item.cancelAll.c) w.str(c);
  }
}

function writeBody(w: ByteWriter, action: Action): void {
  switch (action.type) {
    case 'order':
      w.len(action.orders.length);
      for (const item of action.orders) writeOrderItem(w, item);
      return;
    case 'oracle':
      w.len(action.prices.length);
      for (const p of action.prices) {
        w.u64(p.timestamp).str(p.symbol);
        f64(w, p.price);
      }
      return;
    case 'faucet':
      w.raw(key32Bytes(action.user, 'user'));
      if (action.amount === undefined) w.u8(0);
      else f64(w.u8(1), action.amount);
      return;
    case 'updateUserSettings':
      w.len(action.settings.m.length);
      for (const [symbol, leverage] of action.settings.m) f64(w.str(symbol), leverage);
      return;
    case 'agentWalletCreation':
      w.raw(key32Bytes(action.agent, 'agent')).bool(action.delete);
      return;
  }
}

const writer = new ByteWriter(1024);

/**
 * The signed message of a validated action. `nonce` is the one signed (the action's own `nonce`
 * field is not read); `account` and `signer` are base58 text or 32 raw bytes. Returns a fresh copy.
 */
export function serializeAction(action: Action, nonce: bigint, account: Key32, signer: Key32): Uint8Array {
  checkNonce(nonce);
  const accountBytes = key32Bytes(account, 'account');
  const signerBytes = key32Bytes(signer, 'signer');
  writer.reset().u32(ACTION_DISCRIMINANT[action.type]);
  writeBody(writer, action);
  return writer.u64(nonce).raw(accountBytes).raw(signerBytes).bytes();
}
