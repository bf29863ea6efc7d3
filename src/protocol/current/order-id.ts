// Deterministic order ids of the current dialect (§6.1): base58(sha256(seqno ‖ variant ‖ core body ‖ account ‖ nonce)).
// Invariant: only top-level `m` and `l` get an id; builder codes, the envelope and the network byte are never hashed.

import { sha256Base58 } from '../hash.js';
import { ByteWriter } from '../bytes.js';
import { toFx } from '../fixed.js';
import { actionBody, actionTag, VARIANT_INDEX, type Action } from './actions.js';
import { writeLimitCore, writeMarketCore } from './serialize.js';

const writer = new ByteWriter(128);

/** The order id `action` gets at index `seqno` of a transaction; null for anything but `m` and `l`. */
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

/** One entry per top-level action, with seqno = its index. */
export function orderIds(actions: readonly Action[], account: Uint8Array, nonce: bigint): (string | null)[] {
  const ids = new Array<string | null>(actions.length);
  for (let i = 0; i < actions.length; i++) ids[i] = orderId(actions[i]!, i, account, nonce);
  return ids;
}
