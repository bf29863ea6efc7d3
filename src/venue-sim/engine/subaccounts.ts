// Sub-accounts of the local venue (current generation, venue-protocol §4.3): creation under a key the venue derives,
// transfers (internal: within a master's family; external: out of it to any account), removal and renaming. Invariants: a transfer moves balance and deposits
// together (each account's ledger identity holds; the venue's total is unchanged); a sub-account has one parent and none of its own.

import { ByteWriter } from '../../protocol/bytes.js';
import { decodeKey32 } from '../../protocol/pubkey.js';
import { sha256Base58 } from '../../protocol/hash.js';
import { base58Decode } from '../../protocol/base58.js';
import { strictPointProblem } from '../../protocol/ed25519-strict.js';
import { unitsToUsd } from '../decimals.js';
import { computeRisk, newRisk, type Account } from './accounts.js';
import type { State } from './state.js';

/** Most sub-accounts one master may hold at once (the real venue's limit is NOT FOUND). */
export const MAX_SUB_ACCOUNTS = 100;
const DOMAIN = new TextEncoder().encode('perpbot local venue sub-account');

export type CreateSubAccountResult =
  | { createSubAccount: { master: string; sub: string; name: string; margin: number } }
  | { createSubAccountFailed: { message: string } };
export type TransferResult = { transfer: { from: string; to: string; symbol: 'USDC'; amount: number } } | { transferFailed: { message: string } };
export type RemoveSubAccountResult = { removeSubAccount: { account: string; marginMoved: number } } | { removeSubAccountFailed: { message: string } };
export type RenameSubAccountResult = { renameSubAccount: { account: string; name: string } } | { renameSubAccountFailed: { message: string } };

/**
 * The key of a master's `n`-th sub-account (the real venue's derivation is NOT FOUND): base58(sha256("perpbot local
 * venue sub-account" ‖ master[32] ‖ u64 LE n ‖ u32 LE k)), k the first attempt that is a canonical, not small-order point.
 */
export function subAccountKey(master: string, n: number): string {
  const w = new ByteWriter(96);
  for (let k = 0; ; k++) {
    const key = sha256Base58(w.reset().raw(DOMAIN).raw(decodeKey32(master, 'master')).u64(BigInt(n)).u32(k).subarray());
    if (strictPointProblem(base58Decode(key)) === undefined) return key;
  }
}

/** USD `a` may move out now: its equity above the initial margin its positions and orders need. */
function available(st: State, a: Account): number {
  const r = computeRisk(a, st.quoteScale, newRisk());
  return r.equity - r.initialMargin;
}

/** Moves `units` quote units from `from` to `to` (balance and deposits both), in both accounts' activity history. */
function move(st: State, from: Account, to: Account, units: bigint, kind: 'internal' | 'external' = 'internal'): void {
  from.balance -= units;
  from.deposits -= units;
  to.balance += units;
  to.deposits += units;
  st.touch(from, null);
  st.touch(to, null);
  st.recordActivity(kind === 'internal' ? 'transferInternal' : 'transferExternal', from, to, units);
}

/** The accounts `master` may move collateral between: itself and its sub-accounts. */
function family(st: State, master: string): ReadonlySet<string> {
  return new Set([master, ...(st.accounts.get(master)?.subs ?? [])]);
}

export function createSubAccount(st: State, master: string, name: string, marginUsd: number | null | undefined): CreateSubAccountResult {
  const fail = (message: string) => ({ createSubAccountFailed: { message } });
  const m = st.accounts.get(master);
  if (m === undefined) return fail('Account not found');
  if (m.parent !== null) return fail('a sub-account cannot have sub-accounts');
  if ((m.subs?.length ?? 0) >= MAX_SUB_ACCOUNTS) return fail(`at most ${MAX_SUB_ACCOUNTS} sub-accounts per account`);
  if (m.subs?.some((k) => st.accounts.get(k)?.subName === name)) return fail(`a sub-account named ${JSON.stringify(name)} exists`);
  const units = BigInt(Math.round((marginUsd ?? 0) * st.quoteScale));
  if (!(units >= 0n)) return fail('marginAmount must be a number >= 0');
  if (units > 0n && available(st, m) * st.quoteScale < Number(units)) return fail('Insufficient margin');
  const key = subAccountKey(master, m.subSeq++);
  const sub = st.account(key);
  sub.parent = master;
  sub.subName = name;
  (m.subs ??= []).push(key);
  if (units > 0n) move(st, m, sub, units);
  return { createSubAccount: { master, sub: key, name, margin: unitsToUsd(units, st.quoteScale) } };
}

/**
 * A transfer signed for `account` (`from` must be it or one of its sub-accounts): `internal` to another account of that
 * family, `external` to any account outside it (created when new; the rule is perpbot's, docs/protocol.md). At most
 * `from`'s equity above its initial margin moves.
 */
export function transfer(st: State, account: string, kind: 'internal' | 'external', from: string, to: string, amountUsd: number): TransferResult {
  const fail = (message: string) => ({ transferFailed: { message } });
  const allowed = family(st, account);
  if (!allowed.has(from)) return fail('from must be the account or one of its sub-accounts');
  if (kind === 'internal' && !allowed.has(to)) return fail('from and to must be the account or its sub-accounts');
  if (kind === 'external' && allowed.has(to)) return fail('to is the account or one of its sub-accounts: use an internal transfer');
  if (from === to) return fail('from and to are the same account');
  const src = st.accounts.get(from);
  if (src === undefined) return fail('Account not found');
  const units = BigInt(Math.round(amountUsd * st.quoteScale));
  if (!(units > 0n)) return fail('marginAmount below the smallest unit');
  if (available(st, src) * st.quoteScale < Number(units)) return fail('Insufficient margin');
  move(st, src, st.account(to), units, kind);
  return { transfer: { from, to, symbol: 'USDC', amount: unitsToUsd(units, st.quoteScale) } };
}

/** Removes `master`'s sub-account `sub` (no position, no open order); its whole balance goes back to the master. */
export function removeSubAccount(st: State, master: string, sub: string): RemoveSubAccountResult {
  const fail = (message: string) => ({ removeSubAccountFailed: { message } });
  const m = st.accounts.get(master);
  const s = st.accounts.get(sub);
  if (m === undefined || s === undefined || s.parent !== master) return fail('not a sub-account of this account');
  if (s.openOrders > 0 || s.positions.some((p) => p.lots !== 0)) return fail('the sub-account has open orders or positions');
  const units = s.balance > 0n ? s.balance : 0n;
  if (units > 0n) move(st, s, m, units);
  m.subs = m.subs!.filter((k) => k !== sub);
  s.parent = null;
  s.subName = null;
  return { removeSubAccount: { account: sub, marginMoved: unitsToUsd(units, st.quoteScale) } };
}

export function renameSubAccount(st: State, master: string, sub: string, name: string): RenameSubAccountResult {
  const fail = (message: string) => ({ renameSubAccountFailed: { message } });
  const s = st.accounts.get(sub);
  if (s === undefined || s.parent !== master) return fail('not a sub-account of this account');
  if (st.accounts.get(master)!.subs!.some((k) => k !== sub && st.accounts.get(k)?.subName === name))
    return fail(`a sub-account named ${JSON.stringify(name)} exists`);
  s.subName = name;
  return { renameSubAccount: { account: sub, name } };
}
