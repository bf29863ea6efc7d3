// v1 order ids (the spec has no rule; the project mirrors venue-protocol §6.1): id of place item k of `orders` =
// base58(sha256(u32 LE k ‖ wincode OrderItem ‖ account[32] ‖ u64 LE nonce)). Invariant: other items and actions get null.

import { sha256Base58 } from '../hash.js';
import { ByteWriter } from '../bytes.js';
import type { Action, OrderItem } from './actions.js';
import { checkNonce, key32Bytes, writeOrderItem, type Key32 } from './serialize.js';

const writer = new ByteWriter(256);

/** The order id of `item` at `index` of `orders`, or null when the item places no order. */
export function orderIdOf(item: OrderItem, index: number, account: Key32, nonce: bigint): string | null {
  if (!('order' in item)) return null;
  checkNonce(nonce);
  const accountBytes = key32Bytes(account, 'account');
  writer.reset().u32(index);
  writeOrderItem(writer, item);
  writer.raw(accountBytes).u64(nonce);
  return sha256Base58(writer.subarray());
}

/** One id per item of an order action (null for cancel/cancelAll); `[null]` for any other action. */
export function orderIdsOf(action: Action, account: Key32, nonce: bigint): (string | null)[] {
  if (action.type !== 'order') return [null];
  const accountBytes = key32Bytes(account, 'account');
  return action.orders.map((item, k) => orderIdOf(item, k, accountBytes, nonce));
}
