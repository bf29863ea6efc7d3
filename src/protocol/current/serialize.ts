// Signable bytes of current-dialect (Gen B) transactions: envelope choice (up to V3 by default, V4 opt-in), bincode bodies, frame.
// Invariant: one envelope per transaction, never above the configured maximum; output equals the SDK's bytes.

import { ValidationError } from '../../core/errors.js';
import { ByteWriter } from '../bytes.js';
import { toFx } from '../fixed.js';
import { decodeKey32 } from '../pubkey.js';
import {
  actionBody,
  actionTag,
  tifIndex,
  VARIANT_INDEX,
  type Action,
  type ActionBodies,
  type ActionTag,
  type BuilderCode,
  type LimitOrder,
  type MarketOrder,
  type Scaled,
  type U64Value,
  type UpdateUserSettings,
} from './actions.js';

/**
 * Envelope (schema) versions: 1 = Legacy (no prefix), 2/3/4 = `FF×8 ‖ "bulk-actions" ‖ version`.
 * Legacy unless: V2 when any `m` has slippage; V3 when any builderCode appears anywhere; V4 (only when
 * the maximum is 4) when any st/tp/rng/trl leaf appears anywhere. Conditional slippage needs V4.
 */
export type SchemaVersion = 1 | 2 | 3 | 4;
export type MaxSchema = 2 | 3 | 4;
export const LEGACY: SchemaVersion = 1;
/** V3 is the highest envelope pinned by published vectors (SDK bc0ea23f); V4 is opt-in. */
export const DEFAULT_MAX_SCHEMA: MaxSchema = 3;

const PREFIX = Uint8Array.from([...new Array<number>(8).fill(0xff), ...Buffer.from('bulk-actions', 'ascii')]);

const SLIPPAGE = 1;
const BUILDER = 2;
const CONDITIONAL = 4;
const V4_FIELD = 8;

interface OptionRule {
  readonly field: string;
  readonly flag: number;
}

const BUILDER_RULE: OptionRule = { field: 'builderCode', flag: BUILDER };
const CONDITIONAL_RULES: readonly OptionRule[] = [BUILDER_RULE, { field: 'slippage', flag: V4_FIELD }];
/** Optional fields that raise the envelope, per action kind. */
const OPTION_RULES: Partial<Record<ActionTag, readonly OptionRule[]>> = {
  m: [{ field: 'slippage', flag: SLIPPAGE }, BUILDER_RULE],
  l: [BUILDER_RULE],
  st: CONDITIONAL_RULES,
  tp: CONDITIONAL_RULES,
  trl: CONDITIONAL_RULES,
  rng: [BUILDER_RULE, { field: 'slSlippage', flag: V4_FIELD }, { field: 'tpSlippage', flag: V4_FIELD }],
};
const CONDITIONAL_TAGS: ReadonlySet<ActionTag> = new Set<ActionTag>(['st', 'tp', 'rng', 'trl']);

interface ChildSlot {
  readonly field: string;
  readonly actions: readonly Action[];
  /** A single action (`of.trigger`) rather than a list. */
  readonly single: boolean;
}

const NO_CHILDREN: readonly ChildSlot[] = [];

/** Actions nested inside a `trig`, `of` or `msp` body. */
function childSlots(tag: ActionTag, body: unknown): readonly ChildSlot[] {
  if (tag === 'trig') return [{ field: 'actions', actions: (body as ActionBodies['trig']).actions, single: false }];
  if (tag === 'of') {
    const of = body as ActionBodies['of'];
    return [
      { field: 'trigger', actions: [of.trigger], single: true },
      { field: 'actions', actions: of.actions, single: false },
    ];
  }
  if (tag === 'msp') return [{ field: 'a', actions: (body as ActionBodies['msp']).a, single: false }];
  return NO_CHILDREN;
}

function ownFlags(tag: ActionTag, body: Record<string, unknown>): number {
  let flags = CONDITIONAL_TAGS.has(tag) ? CONDITIONAL : 0;
  const rules = OPTION_RULES[tag];
  if (rules) for (let i = 0; i < rules.length; i++) if (body[rules[i]!.field] != null) flags |= rules[i]!.flag;
  return flags;
}

function flagsOf(list: readonly Action[]): number {
  let flags = 0;
  for (let i = 0; i < list.length; i++) {
    const tag = actionTag(list[i]!);
    const body = actionBody(list[i]!, tag) as Record<string, unknown>;
    flags |= ownFlags(tag, body);
    const kids = childSlots(tag, body);
    for (let k = 0; k < kids.length; k++) flags |= flagsOf(kids[k]!.actions);
  }
  return flags;
}

/** Path of the first field in `action` (or below it) that raises `flag`. */
function locate(action: Action, flag: number, path: string): string | undefined {
  const tag = actionTag(action);
  const body = actionBody(action, tag) as Record<string, unknown>;
  const here = `${path}.${tag}`;
  for (const rule of OPTION_RULES[tag] ?? []) if (rule.flag & flag && body[rule.field] != null) return `${here}.${rule.field}`;
  for (const kid of childSlots(tag, body)) {
    for (let i = 0; i < kid.actions.length; i++) {
      const found = locate(kid.actions[i]!, flag, kid.single ? `${here}.${kid.field}` : `${here}.${kid.field}[${i}]`);
      if (found) return found;
    }
  }
  return undefined;
}

function locateIn(actions: readonly Action[], flag: number): string {
  for (let i = 0; i < actions.length; i++) {
    const found = locate(actions[i]!, flag, `actions[${i}]`);
    if (found) return found;
  }
  return 'actions';
}

function requiredSchema(flags: number, maxSchema: MaxSchema): SchemaVersion {
  if (flags & V4_FIELD || (maxSchema >= 4 && flags & CONDITIONAL)) return 4;
  if (flags & BUILDER) return 3;
  if (flags & SLIPPAGE) return 2;
  return LEGACY;
}

/** The envelope of a transaction; throws ValidationError naming the field that needs more than `maxSchema`. */
export function selectSchema(actions: readonly Action[], maxSchema: MaxSchema): SchemaVersion {
  const needed = requiredSchema(flagsOf(actions), maxSchema);
  if (needed <= maxSchema) return needed;
  const v4 = needed === 4;
  const field = locateIn(actions, v4 ? V4_FIELD : BUILDER);
  const why = v4 ? 'conditional-order slippage' : 'a builder code';
  throw new ValidationError(field, `${why} needs envelope V${needed}, but the maximum schema is V${maxSchema}`);
}

/** The envelope version of signable bytes (1 = Legacy). */
export function envelopeOf(signable: Uint8Array): SchemaVersion {
  if (signable.length <= PREFIX.length) return LEGACY;
  for (let i = 0; i < PREFIX.length; i++) if (signable[i] !== PREFIX[i]) return LEGACY;
  return signable[PREFIX.length] as SchemaVersion;
}

const writer = new ByteWriter(1024);

/** `[prefix] ‖ u64 count ‖ actions ‖ u64 nonce ‖ account[32] ‖ u8 network`, as a copy the caller may keep. */
export function signableBytes(actions: readonly Action[], nonce: bigint, account: Uint8Array, networkByte: number, maxSchema: MaxSchema): Uint8Array {
  const schema = selectSchema(actions, maxSchema);
  const w = writer.reset();
  if (schema !== LEGACY) w.raw(PREFIX).u8(schema);
  writeList(w, actions, schema, false);
  w.u64(nonce).raw(account).u8(networkByte);
  return w.bytes();
}

/**
 * `variant ‖ body` of `action` in the Legacy layout, so without builder codes and slippage (what perpbot's conditional
 * order ids hash, docs/protocol.md).
 */
export function writeLegacyAction(w: ByteWriter, action: Action): void {
  writeAction(w, action, LEGACY, false);
}

/**
 * `embedded`: inside an `msp` of a Legacy transaction ("LegacyEmbedded"), where `m` and `l` always
 * carry the builder option tag.
 */
function writeList(w: ByteWriter, list: readonly Action[], schema: SchemaVersion, embedded: boolean): void {
  w.len(list.length);
  for (let i = 0; i < list.length; i++) writeAction(w, list[i]!, schema, embedded);
}

function writeAction(w: ByteWriter, action: Action, schema: SchemaVersion, embedded: boolean): void {
  const tag = actionTag(action);
  w.u32(VARIANT_INDEX[tag]);
  switch (tag) {
    case 'm':
      return writeMarket(w, actionBody(action, tag), schema, embedded);
    case 'l':
      return writeLimit(w, actionBody(action, tag), schema, embedded);
    case 'st':
    case 'tp':
      return writeStop(w, actionBody(action, tag), schema);
    case 'rng':
      return writeRange(w, actionBody(action, tag), schema);
    case 'trl':
      return writeTrailing(w, actionBody(action, tag), schema);
    case 'trig': {
      const trig = actionBody(action, tag);
      w.str(trig.c).bool(trig.d);
      writeFx(w, trig.tr, 'tr');
      return writeList(w, trig.actions, schema, embedded);
    }
    case 'of': {
      const of = actionBody(action, tag);
      writeAction(w, of.trigger, schema, embedded);
      return writeList(w, of.actions, schema, embedded);
    }
    case 'msp': {
      const msp = actionBody(action, tag);
      writeKey(w, msp.m, 'm');
      writeList(w, msp.a, schema, embedded || schema === LEGACY);
      if (msp.l == null) w.u8(0);
      else w.u8(1).u32(msp.l);
      return;
    }
    default:
      return writeAccountAction(w, action, tag);
  }
}

/** `c ‖ b ‖ sz ‖ r ‖ i`: the market-order fields every layout and the order id share. */
export function writeMarketCore(w: ByteWriter, m: MarketOrder): void {
  w.str(m.c).bool(m.b);
  writeFx(w, m.sz, 'sz');
  w.bool(m.r).bool(m.i);
}

/** `c ‖ b ‖ px ‖ sz ‖ tif ‖ r ‖ i`: the limit-order fields every layout and the order id share. */
export function writeLimitCore(w: ByteWriter, l: LimitOrder): void {
  w.str(l.c).bool(l.b);
  writeFx(w, l.px, 'px');
  writeFx(w, l.sz, 'sz');
  w.u32(tifIndex(l.tif)).bool(l.r).bool(l.i);
}

function writeMarket(w: ByteWriter, m: MarketOrder, schema: SchemaVersion, embedded: boolean): void {
  writeMarketCore(w, m);
  if (schema !== LEGACY || embedded) writeOptBuilder(w, m.builderCode);
  if (schema !== LEGACY) writeOptFx(w, m.slippage, 'slippage');
}

function writeLimit(w: ByteWriter, l: LimitOrder, schema: SchemaVersion, embedded: boolean): void {
  writeLimitCore(w, l);
  if (schema !== LEGACY || embedded) writeOptBuilder(w, l.builderCode);
}

function writeStop(w: ByteWriter, s: ActionBodies['st'], schema: SchemaVersion): void {
  w.str(s.c).bool(s.d);
  writeFx(w, s.sz, 'sz');
  writeFx(w, s.tr, 'tr');
  writeOptFx(w, s.lim, 'lim');
  w.bool(s.i);
  if (schema >= 3) writeOptBuilder(w, s.builderCode);
  if (schema >= 4) writeOptFx(w, s.slippage, 'slippage');
}

function writeRange(w: ByteWriter, r: ActionBodies['rng'], schema: SchemaVersion): void {
  w.str(r.c).bool(r.d);
  writeFx(w, r.sz, 'sz');
  writeFx(w, r.pmin, 'pmin');
  writeFx(w, r.pmax, 'pmax');
  writeOptFx(w, r.lmin, 'lmin');
  writeOptFx(w, r.lmax, 'lmax');
  w.bool(r.i);
  if (schema >= 3) writeOptBuilder(w, r.builderCode);
  if (schema >= 4) {
    writeOptFx(w, r.slSlippage, 'slSlippage');
    writeOptFx(w, r.tpSlippage, 'tpSlippage');
  }
}

function writeTrailing(w: ByteWriter, t: ActionBodies['trl'], schema: SchemaVersion): void {
  w.str(t.c).bool(t.b);
  writeFx(w, t.sz, 'sz');
  w.u32(t.trb).u32(t.stb);
  writeOptFx(w, t.lim, 'lim');
  w.bool(t.i);
  if (schema >= 3) writeOptBuilder(w, t.builderCode);
  if (schema >= 4) writeOptFx(w, t.slippage, 'slippage');
}

/** Actions whose layout does not depend on the envelope. */
function writeAccountAction(w: ByteWriter, action: Action, tag: Exclude<ActionTag, 'm' | 'l' | 'st' | 'tp' | 'rng' | 'trl' | 'trig' | 'of' | 'msp'>): void {
  switch (tag) {
    case 'mod': {
      const mod = actionBody(action, tag);
      writeKey(w, mod.oid, 'oid');
      w.str(mod.c);
      return writeFx(w, mod.sz, 'sz');
    }
    case 'cx': {
      const cx = actionBody(action, tag);
      w.str(cx.c);
      return writeKey(w, cx.oid, 'oid');
    }
    case 'cxa': {
      const symbols = actionBody(action, tag).c;
      w.len(symbols.length);
      for (const s of symbols) w.str(s);
      return;
    }
    case 'faucet': {
      const f = actionBody(action, tag);
      writeKey(w, f.u, 'u');
      return writeOptF64(w, f.amount);
    }
    case 'agentWalletCreation': {
      const a = actionBody(action, tag);
      writeKey(w, a.a, 'a');
      w.bool(a.d);
      return;
    }
    case 'updateUserSettings': {
      const settings = actionBody(action, tag);
      const symbols = leverageSymbols(settings);
      w.len(symbols.length);
      for (const s of symbols) w.str(s).f64(settings.m[s]!);
      return;
    }
    case 'whitelistFaucet': {
      const x = actionBody(action, tag);
      writeKey(w, x.target, 'target');
      w.bool(x.whitelist);
      return;
    }
    case 'createSubAccount': {
      const x = actionBody(action, tag);
      w.str(x.name);
      return writeOptF64(w, x.marginAmount);
    }
    case 'removeSubAccount':
      return writeKey(w, actionBody(action, tag).toRemove, 'toRemove');
    case 'transfer': {
      const t = actionBody(action, tag);
      w.u32(t.k === 'internal' ? 0 : 1);
      writeKey(w, t.from, 'from');
      writeKey(w, t.to, 'to');
      w.f64(t.marginAmount);
      return;
    }
    case 'createMultisig':
      return writePolicy(w, actionBody(action, tag));
    case 'msu': {
      const u = actionBody(action, tag);
      writeKey(w, u.m, 'm');
      return writePolicy(w, u);
    }
    case 'msa':
    case 'msr':
    case 'msc':
    case 'mse': {
      const v = actionBody(action, tag);
      writeKey(w, v.m, 'm');
      w.u64(u64Of(v.p));
      return;
    }
    case 'renameSubAccount': {
      const r = actionBody(action, tag);
      writeKey(w, r.a, 'a');
      w.str(r.n);
      return;
    }
    case 'abc': {
      const a = actionBody(action, tag);
      writeKey(w, a.to, 'to');
      w.u8(a.fee);
      return;
    }
    case 'rbc':
      return writeKey(w, actionBody(action, tag).to, 'to');
  }
}

/** Leverage map keys in byte order (the SDK's BTreeMap order); symbols are ASCII. */
export function leverageSymbols(settings: UpdateUserSettings): string[] {
  return Object.keys(settings.m).sort();
}

function writePolicy(w: ByteWriter, p: ActionBodies['createMultisig']): void {
  w.len(p.signers.length);
  for (const s of p.signers) writeKey(w, s, 'signers');
  w.u32(p.threshold).u32(p.timeLockSecs).u32(p.proposalLifetimeSecs);
}

function u64Of(v: U64Value): bigint {
  return typeof v === 'bigint' ? v : BigInt(v);
}

function writeKey(w: ByteWriter, text: string, field: string): void {
  w.raw(decodeKey32(text, field));
}

function writeFx(w: ByteWriter, v: Scaled, field: string): void {
  w.u64(toFx(v, field));
}

function writeOptFx(w: ByteWriter, v: Scaled | null | undefined, field: string): void {
  if (v == null) w.u8(0);
  else w.u8(1).u64(toFx(v, field));
}

function writeOptF64(w: ByteWriter, v: number | null | undefined): void {
  if (v == null) w.u8(0);
  else w.u8(1).f64(v);
}

function writeOptBuilder(w: ByteWriter, b: BuilderCode | null | undefined): void {
  if (b == null) w.u8(0);
  else w.u8(1).raw(decodeKey32(b.to, 'builderCode.to')).u8(b.fee);
}
