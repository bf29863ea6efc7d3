// Deterministic order ids of the current dialect: §6.1's base58(sha256(seqno ‖ variant ‖ core body ‖ account ‖ nonce)) for
// `m` and `l`; the same rule over the Legacy layout for conditionals (perpbot's rule, docs/protocol.md). Invariant: builder
// codes, slippage, the envelope and the network byte are never hashed; `orderId` alone matches the SDK's default meta;
// actions nested in `trig` / `of` hash their parent's id instead of account and nonce (perpbot's rule).

import { sha256Base58 } from '../hash.js';
import { ByteWriter } from '../bytes.js';
import { toFx } from '../fixed.js';
import { decodeKey32 } from '../pubkey.js';
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

/** Nested actions that place an order (or, `trig`, park one) under an id of their own. */
const NESTED_ORDER_TAGS: ReadonlySet<ActionTag> = new Set<ActionTag>(['m', 'l', 'st', 'tp', 'rng', 'trl', 'trig']);
const parentBytes = new Uint8Array(32);

/**
 * The ids perpbot and its local venue give the actions nested in a `trig` or `of` whose own id is `parentId` (§6.1 leaves
 * them NOT FOUND): action j gets sha256(`u32 LE j ‖ Legacy variant and body ‖ parent id[32]`) when it places an order
 * (m l st tp rng trl, or parks a trig), null otherwise (mod cx cxa). The parent id carries the account, nonce and seqno.
 */
export function nestedOrderIds(actions: readonly Action[], parentId: string): (string | null)[] {
  parentBytes.set(decodeKey32(parentId, 'parentId'));
  const ids = new Array<string | null>(actions.length);
  for (let j = 0; j < actions.length; j++) {
    const a = actions[j]!;
    if (!NESTED_ORDER_TAGS.has(actionTag(a))) {
      ids[j] = null;
      continue;
    }
    const w = writer.reset().u32(j);
    writeLegacyAction(w, a);
    w.raw(parentBytes);
    ids[j] = sha256Base58(w.subarray());
  }
  return ids;
}

/** The ids of the actions nested in top-level action `action` whose id is `id` (a `trig` or an `of`); empty for any other. */
export function childOrderIds(action: Action, id: string | null): (string | null)[] {
  if (id === null) return [];
  if ('trig' in action) return nestedOrderIds(action.trig.actions, id);
  if ('of' in action) return nestedOrderIds(action.of.actions, id);
  return [];
}

/** One entry per top-level action, with seqno = its index: the order's id, or null for an action that places none. */
export function orderIds(actions: readonly Action[], account: Uint8Array, nonce: bigint): (string | null)[] {
  const ids = new Array<string | null>(actions.length);
  for (let i = 0; i < actions.length; i++) ids[i] = orderId(actions[i]!, i, account, nonce) ?? conditionalOrderId(actions[i]!, i, account, nonce);
  return ids;
}
