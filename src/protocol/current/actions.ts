// Wire-JSON schemas, types and variant indices of every current-dialect (Gen B) action a bot account sends.
// Invariant: a parsed action list serializes without further checks (scaled values, keys, symbols, nesting depth).

import { ValidationError } from '../../core/errors.js';
import {
  array,
  boolean,
  custom,
  invalid,
  literal,
  maybe,
  number,
  object,
  oneKey,
  parse,
  record,
  refine,
  string,
  transform,
  u64,
  union,
  type Infer,
  type Schema,
} from '../../core/schema.js';
import { symbolSchema, TIFS } from '../../core/types.js';
import { FX_SCALE, toFx } from '../fixed.js';
import { key32 } from '../pubkey.js';

/** Most top-level actions in one transaction, and most actions in one nested list. */
export const MAX_ACTIONS = 100;
/** Deepest nesting level below the top-level list (`msp` → `of` → `trig` → `m` is 3). */
export const MAX_NESTING = 4;
/** Longest sub-account name, in UTF-8 bytes. */
export const MAX_NAME_BYTES = 64;
/** Highest slippage accepted, in basis points. */
export const MAX_SLIPPAGE_BPS = 10_000;

/** A ×1e8 fixed-point value as written in the JSON: a number or a decimal string. */
export type Scaled = number | string;
/** A u64 as written in the JSON: a safe integer, a decimal string or a bigint. */
export type U64Value = number | string | bigint;

const STRICT = { strict: true } as const;
const U32_MAX = 0xffff_ffff;

function scaled(minFx: bigint, maxFx?: bigint): Schema<Scaled> {
  return custom('number or decimal string', (v) => {
    let fx: bigint;
    try {
      fx = toFx(v, '');
    } catch (e) {
      if (e instanceof ValidationError) invalid(e.message);
      throw e;
    }
    if (fx < minFx) invalid(`must be positive at 1e-8 resolution, got ${JSON.stringify(v)}`);
    if (maxFx !== undefined && fx > maxFx) invalid(`must be <= ${maxFx / BigInt(FX_SCALE)}, got ${JSON.stringify(v)}`);
    return v as Scaled;
  });
}

const positive = scaled(1n);
const slippageBps = scaled(0n, BigInt(MAX_SLIPPAGE_BPS) * BigInt(FX_SCALE));
const u32 = number({ integer: true, min: 0, max: U32_MAX });
const u64Check = u64();
const u64Value: Schema<U64Value> = custom('u64', (v) => {
  u64Check.run(v);
  return v as U64Value;
});
const tif = string({
  maxLength: 13,
  pattern: /^(?:gtc|ioc|alo|alo_slide|alo_join|postOnlySlide|postOnlyJoin)$/i,
  patternName: 'GTC, IOC, ALO, ALO_SLIDE or ALO_JOIN (any case; postOnlySlide, postOnlyJoin)',
});
const subAccountName = refine(string({ minLength: 1, maxLength: MAX_NAME_BYTES }), (v) =>
  Buffer.byteLength(v, 'utf8') > MAX_NAME_BYTES ? `longer than ${MAX_NAME_BYTES} UTF-8 bytes` : undefined,
);
const signerList = array(key32(), { minLength: 1, maxLength: 32 });

/** A builder (commission) code: recipient `to` and fee in basis points, 1..=15. */
const builderCode = object({ to: key32(), fee: number({ integer: true, min: 1, max: 15 }) }, STRICT);

const market = object(
  { c: symbolSchema, b: boolean(), sz: positive, r: boolean(), i: boolean(), slippage: maybe(slippageBps), builderCode: maybe(builderCode) },
  STRICT,
);
const limit = object({ c: symbolSchema, b: boolean(), px: positive, sz: positive, tif, r: boolean(), i: boolean(), builderCode: maybe(builderCode) }, STRICT);
const modify = object({ oid: key32(), c: symbolSchema, sz: positive }, STRICT);
const cancel = object({ c: symbolSchema, oid: key32() }, STRICT);
const cancelAll = object({ c: array(symbolSchema, { maxLength: 256 }) }, STRICT);
const stop = object(
  {
    c: symbolSchema,
    d: boolean(),
    sz: positive,
    tr: positive,
    lim: maybe(positive),
    i: boolean(),
    builderCode: maybe(builderCode),
    slippage: maybe(slippageBps),
  },
  STRICT,
);
const range = object(
  {
    c: symbolSchema,
    d: boolean(),
    sz: positive,
    pmin: positive,
    pmax: positive,
    lmin: maybe(positive),
    lmax: maybe(positive),
    i: boolean(),
    builderCode: maybe(builderCode),
    slSlippage: maybe(slippageBps),
    tpSlippage: maybe(slippageBps),
  },
  STRICT,
);
const trailing = object(
  {
    c: symbolSchema,
    b: boolean(),
    sz: positive,
    trb: number({ integer: true, min: 1, max: U32_MAX }),
    stb: u32,
    lim: maybe(positive),
    i: boolean(),
    builderCode: maybe(builderCode),
    slippage: maybe(slippageBps),
  },
  STRICT,
);
const faucet = object({ u: key32(), amount: maybe(number({ gt: 0 })) }, STRICT);
const agentWallet = object({ a: key32(), d: boolean() }, STRICT);
const userSettings = refine(object({ m: record(number({ gt: 0 }), { key: symbolSchema, maxKeys: 64 }) }, STRICT), (v) =>
  Object.keys(v.m).length === 0 ? 'must set at least one symbol' : undefined,
);
const whitelistFaucet = object({ target: key32(), whitelist: boolean() }, STRICT);
const createSubAccount = object({ name: subAccountName, marginAmount: maybe(number({ min: 0 })) }, STRICT);
const removeSubAccount = object({ toRemove: key32() }, STRICT);
const transfer = object({ k: literal('internal', 'external'), from: key32(), to: key32(), marginAmount: number({ gt: 0 }) }, STRICT);
/** createMultisig, msu, msa..mse and a Some(`msp.l`) follow the docs' layouts; no published vector pins them. */
const policy = { signers: signerList, threshold: number({ integer: true, min: 1, max: 32 }), timeLockSecs: u32, proposalLifetimeSecs: u32 };
const thresholdCheck = (v: { signers: string[]; threshold: number }) =>
  v.threshold > v.signers.length ? `threshold ${v.threshold} exceeds the ${v.signers.length} signers` : undefined;
const createMultisig = refine(object(policy, STRICT), thresholdCheck);
const policyUpdate = refine(object({ m: key32(), ...policy }, STRICT), thresholdCheck);
const multisigVote = object({ m: key32(), p: u64Value }, STRICT);
/** `renameSubAccount` on the wire is `{a, n}`; the keychain fixtures write `{account, name}` (normalized to `{a, n}`). */
const renameSubAccount = union([
  object({ a: key32(), n: subAccountName }, STRICT),
  transform(object({ account: key32(), name: subAccountName }, STRICT), (v) => ({ a: v.account, n: v.name })),
]);
const revokeBuilder = object({ to: key32() }, STRICT);

export type BuilderCode = Infer<typeof builderCode>;
export type MarketOrder = Infer<typeof market>;
export type LimitOrder = Infer<typeof limit>;
export type ModifyOrder = Infer<typeof modify>;
export type CancelOrder = Infer<typeof cancel>;
export type CancelAll = Infer<typeof cancelAll>;
/** `st` (stop) and `tp` (take profit) share one layout. */
export type StopOrder = Infer<typeof stop>;
export type RangeOrder = Infer<typeof range>;
export type TrailingStop = Infer<typeof trailing>;
export type Faucet = Infer<typeof faucet>;
export type AgentWalletCreation = Infer<typeof agentWallet>;
export type UpdateUserSettings = Infer<typeof userSettings>;
export type WhitelistFaucet = Infer<typeof whitelistFaucet>;
export type CreateSubAccount = Infer<typeof createSubAccount>;
export type RemoveSubAccount = Infer<typeof removeSubAccount>;
export type Transfer = Infer<typeof transfer>;
export type CreateMultisig = Infer<typeof createMultisig>;
export type MultisigPolicyUpdate = Infer<typeof policyUpdate>;
/** `msa msr msc mse`: approve, reject, cancel, execute proposal `p` of multisig `m`. */
export type MultisigVote = Infer<typeof multisigVote>;
export type RenameSubAccount = Infer<typeof renameSubAccount>;
/** `abc`: approve builder `to` to charge up to `fee` bps (same fields as a builder code). */
export type ApproveBuilderCode = BuilderCode;
export type RevokeBuilderCode = Infer<typeof revokeBuilder>;

/** `trig`: when `c` crosses `tr` (`d` true = at or above), run `actions`. */
export interface TriggerBasket {
  c: string;
  d: boolean;
  tr: Scaled;
  actions: Action[];
}

/** `of`: when `trigger` (an `m` or `l`) fills, run `actions`. */
export interface OnFill {
  trigger: Action;
  actions: Action[];
}

/** `msp`: propose `a` to multisig `m`, with an optional lifetime `l` in seconds. */
export interface MultisigProposal {
  m: string;
  a: Action[];
  l?: number | null;
}

export interface ActionBodies {
  m: MarketOrder;
  l: LimitOrder;
  mod: ModifyOrder;
  cx: CancelOrder;
  cxa: CancelAll;
  st: StopOrder;
  tp: StopOrder;
  rng: RangeOrder;
  trig: TriggerBasket;
  trl: TrailingStop;
  of: OnFill;
  faucet: Faucet;
  agentWalletCreation: AgentWalletCreation;
  updateUserSettings: UpdateUserSettings;
  whitelistFaucet: WhitelistFaucet;
  createSubAccount: CreateSubAccount;
  removeSubAccount: RemoveSubAccount;
  transfer: Transfer;
  createMultisig: CreateMultisig;
  msp: MultisigProposal;
  msa: MultisigVote;
  msr: MultisigVote;
  msc: MultisigVote;
  mse: MultisigVote;
  msu: MultisigPolicyUpdate;
  renameSubAccount: RenameSubAccount;
  abc: ApproveBuilderCode;
  rbc: RevokeBuilderCode;
}

export type ActionTag = keyof ActionBodies;
/** One wire action: a single-key object `{"<tag>": body}`. */
export type Action = { [K in ActionTag]: { [P in K]: ActionBodies[K] } }[ActionTag];

/** u32 variant index written before each action body (§3.3). */
export const VARIANT_INDEX: Readonly<Record<ActionTag, number>> = {
  m: 0,
  l: 1,
  mod: 2,
  cx: 3,
  cxa: 4,
  st: 5,
  tp: 6,
  rng: 7,
  trig: 8,
  trl: 9,
  of: 10,
  faucet: 16,
  agentWalletCreation: 17,
  updateUserSettings: 18,
  whitelistFaucet: 19,
  createSubAccount: 27,
  removeSubAccount: 28,
  transfer: 29,
  createMultisig: 30,
  msp: 31,
  msa: 32,
  msr: 33,
  msc: 34,
  mse: 35,
  msu: 36,
  renameSubAccount: 37,
  abc: 40,
  rbc: 41,
};

/** The tag of a validated action. */
export function actionTag(action: Action): ActionTag {
  for (const tag in action) return tag as ActionTag;
  throw new ValidationError('action', 'empty action object');
}

/** The body of a validated action. */
export function actionBody<K extends ActionTag>(action: Action, tag: K): ActionBodies[K] {
  return (action as Record<string, unknown>)[tag] as ActionBodies[K];
}

/** Time-in-force names by wire index (§14: ALO_SLIDE 3 and ALO_JOIN 4 from API v1.0.20). */
export const CURRENT_TIFS = [...TIFS, 'ALO_SLIDE', 'ALO_JOIN'] as const;
export type CurrentTimeInForce = (typeof CURRENT_TIFS)[number];
const TIF_ALIASES: Readonly<Record<string, number>> = { POSTONLYSLIDE: 3, POSTONLYJOIN: 4 };

/** Wire index of a time-in-force given in any case (0 GTC, 1 IOC, 2 ALO, 3 ALO_SLIDE, 4 ALO_JOIN; -1 for anything else). */
export function tifIndex(text: string): number {
  if (text === 'GTC') return 0;
  if (text === 'IOC') return 1;
  if (text === 'ALO') return 2;
  const upper = text.toUpperCase();
  return TIF_ALIASES[upper] ?? CURRENT_TIFS.indexOf(upper as CurrentTimeInForce);
}

const LEAF_BODIES = {
  m: market,
  l: limit,
  mod: modify,
  cx: cancel,
  cxa: cancelAll,
  st: stop,
  tp: stop,
  rng: range,
  trl: trailing,
  faucet,
  agentWalletCreation: agentWallet,
  updateUserSettings: userSettings,
  whitelistFaucet,
  createSubAccount,
  removeSubAccount,
  transfer,
  createMultisig,
  msa: multisigVote,
  msr: multisigVote,
  msc: multisigVote,
  mse: multisigVote,
  msu: policyUpdate,
  renameSubAccount,
  abc: builderCode,
  rbc: revokeBuilder,
} satisfies Record<Exclude<ActionTag, 'trig' | 'of' | 'msp'>, Schema<unknown>>;

type ActionSet = 'top' | 'trigger' | 'onFillTrigger' | 'onFill' | 'proposal';
const TRIGGER_SET: readonly ActionTag[] = ['m', 'l', 'mod', 'cx', 'cxa', 'st', 'tp', 'rng', 'trl'];
const TOP_SET = (Object.keys(VARIANT_INDEX) as ActionTag[]).filter((t) => t !== 'msu');
const SETS: Readonly<Record<ActionSet, readonly ActionTag[]>> = {
  top: TOP_SET,
  trigger: TRIGGER_SET,
  onFillTrigger: ['m', 'l'],
  onFill: [...TRIGGER_SET, 'trig'],
  proposal: [...TOP_SET, 'msu'],
};

const memo = new Map<string, Schema<Action>>();
const tooDeep: Schema<Action> = custom('action', () => invalid(`actions nested more than ${MAX_NESTING} levels deep`));

/** The schema of one action from `set` at nesting `depth` (0 = top level). */
function actionAt(set: ActionSet, depth: number): Schema<Action> {
  if (depth > MAX_NESTING) return tooDeep;
  const key = `${set}:${depth}`;
  let s = memo.get(key);
  if (!s) {
    const variants: Record<string, Schema<unknown>> = {};
    for (const tag of SETS[set]) variants[tag] = bodyAt(tag, depth);
    s = oneKey(variants) as unknown as Schema<Action>;
    memo.set(key, s);
  }
  return s;
}

function listAt(set: ActionSet, depth: number): Schema<Action[]> {
  return array(actionAt(set, depth), { minLength: 1, maxLength: MAX_ACTIONS });
}

function bodyAt(tag: ActionTag, depth: number): Schema<unknown> {
  if (tag === 'trig') return object({ c: symbolSchema, d: boolean(), tr: positive, actions: listAt('trigger', depth + 1) }, STRICT);
  if (tag === 'of') return object({ trigger: actionAt('onFillTrigger', depth + 1), actions: listAt('onFill', depth + 1) }, STRICT);
  if (tag === 'msp') return object({ m: key32(), a: listAt('proposal', depth + 1), l: maybe(u32) }, STRICT);
  return LEAF_BODIES[tag];
}

/** The top-level `actions` array of a transaction: 1..=100 actions. */
export const actionsSchema: Schema<Action[]> = listAt('top', 0);

/** Validates a transaction's `actions`; throws ValidationError naming the field (`actions[0].l.sz`). */
export function parseActions(value: unknown): Action[] {
  return parse(actionsSchema, value, 'actions');
}
