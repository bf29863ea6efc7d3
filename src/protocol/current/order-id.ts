// Deterministic order ids of the current dialect: §6.1's base58(sha256(seqno ‖ variant ‖ core body ‖ account ‖ nonce)) for
// `m` and `l`; the same rule over the Legacy layout for conditionals (perpbot's rule, docs/protocol.md). Invariant: builder
// codes, slippage, the envelope and the network byte are never hashed; `orderId` alone matches the SDK's default meta.

import { sha256Base58 } from '../hash.js';
import { ByteWriter } from '../bytes.js';
import { toFx } from '../fixed.js';
import { actionBody, actionTag, VARIANT_INDEX, type Action, type ActionTag } from './actions.js';
import { writeLegacyAction, writeLimitCore, writeMarketCore } from './serialize.js';

const writer = new ByteWriter(1024);

/** Conditional actions that rest parked at the venue under an id of their own (an `of` rests as its trigger order). */
const CONDITIONAL_ORDER_TAGS: ReadonlySet<ActionTag> = new Set<ActionTag>(['st', 'tp', 'rng', 'trl', 'trig']);

/** The order id `action` gets at index `seqno` of a transaction (§6.1, as the SDK computes it); null for anything but `m` and `l`. */
export function orderId(action: Action, seqno: number, account: Uint8Array, nonce: bigint): string | null {
  const tag = actionTag(action);
  if (tag !== 'm' && tag !== 'l') return null;
  const w = writer.reset().u32(seqno).u32(VARIANT_INDEX[tag]);
  if (tag === 'm') {
    const m = actionBody(action, tag);
    writeMarketCore(w, m);
    if (m.slippage != null) w.u64(toFx(m.slippage, 'slippage'));
  } else writeLimitCore(w, actionBody(action, tag));
  w.raw(account).u64(nonce);
  return sha256Base58(w.subarray());
}

/**
 * The id perpbot and its local venue give a top-level conditional (§6.1 leaves it NOT FOUND): sha256 over
 * `u32 seqno ‖ Legacy variant and body ‖ account ‖ u64 nonce`; an `of` is known by the id of its trigger order at the same
 * seqno. Null for anything else.
 */
export function conditionalOrderId(action: Action, seqno: number, account: Uint8Array, nonce: bigint): string | null {
  const tag = actionTag(action);
  if (tag === 'of') return orderId(actionBody(action, tag).trigger, seqno, account, nonce);
  if (!CONDITIONAL_ORDER_TAGS.has(tag)) return null;
  const w = writer.reset().u32(seqno);
  writeLegacyAction(w, action);
  w.raw(account).u64(nonce);
  return sha256Base58(w.subarray());
}

/** One entry per top-level action, with seqno = its index: the order's id, or null for an action that places none. */
export function orderIds(actions: readonly Action[], account: Uint8Array, nonce: bigint): (string | null)[] {
  const ids = new Array<string | null>(actions.length);
  for (let i = 0; i < actions.length; i++) ids[i] = orderId(actions[i]!, i, account, nonce) ?? conditionalOrderId(actions[i]!, i, account, nonce);
  return ids;
}
