// Wallet signing modes of the current dialect (§3.5): Base58 text, the Solana offchain envelope and its clear-sign text.
// Invariant: the clear-sign text equals the SDK's canonical text byte for byte; unsupported actions are refused, never guessed.

import { ValidationError } from '../../core/errors.js';
import { NETWORK_BYTE, type Network } from '../../core/types.js';
import { sha256Hex } from '../hash.js';
import { base58Encode } from '../base58.js';
import { ByteWriter } from '../bytes.js';
import { FX_SCALE, formatFx, toDouble } from '../fixed.js';
import { actionBody, actionTag, CURRENT_TIFS, tifIndex, type Action, type Scaled } from './actions.js';
import { leverageSymbols } from './serialize.js';

const encoder = new TextEncoder();
const OFFCHAIN_MAGIC = Uint8Array.from([0xff, ...Buffer.from('solana offchain', 'ascii')]);
const MAX_OFFCHAIN_TEXT = 0xffff;

/** Base58 mode: the ASCII bytes of base58(signable). */
export function base58Message(signable: Uint8Array): Uint8Array {
  return encoder.encode(base58Encode(signable));
}

/**
 * Offchain mode: `FF "solana offchain" ‖ 00 ‖ domain[32] (byte 0 = network) ‖ format ‖ 01 ‖ signer[32] ‖
 * u16 length ‖ text`; format 0 when the text is printable ASCII, else 1.
 */
export function offchainMessage(text: string, signer: Uint8Array, network: Network): Uint8Array {
  const payload = encoder.encode(text);
  if (payload.length > MAX_OFFCHAIN_TEXT)
    throw new ValidationError('actions', `clear-sign text is ${payload.length} bytes, over the ${MAX_OFFCHAIN_TEXT}-byte offchain limit`);
  const domain = new Uint8Array(32);
  domain[0] = NETWORK_BYTE[network];
  return new ByteWriter(85 + payload.length)
    .raw(OFFCHAIN_MAGIC)
    .u8(0)
    .raw(domain)
    .u8(isPrintableAscii(payload) ? 0 : 1)
    .u8(1)
    .raw(signer)
    .u16(payload.length)
    .raw(payload)
    .bytes();
}

function isPrintableAscii(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b < 0x20 || b > 0x7e) return false;
  return true;
}

export interface ClearSignHeader {
  readonly network: Network;
  /** Base58 account key. */
  readonly account: string;
  readonly nonce: bigint;
  readonly signable: Uint8Array;
}

/** The clear-sign text: header lines, `Signable-Hash` (sha256 hex of the signable bytes), then `lines`. */
export function clearSignText(header: ClearSignHeader, lines: readonly string[]): string {
  const hash = sha256Hex(header.signable);
  let text = `Bulk Exchange Transaction\nNetwork: ${header.network}\nAccount: ${header.account}\nNonce: ${header.nonce}\nActions: ${lines.length}\nSignable-Hash: ${hash}\n`;
  for (let i = 0; i < lines.length; i++) text += `[${i}] ${lines[i]}\n`;
  return text;
}

/** One clear-sign line per top-level action; throws ValidationError for an action with no defined text. */
export function clearSignLines(actions: readonly Action[]): string[] {
  return actions.map((a, i) => actionLine(a, `actions[${i}]`));
}

const side = (buy: boolean): string => (buy ? 'Buy' : 'Sell');
const direction = (above: boolean): string => (above ? 'Above' : 'Below');
const optScaled = (v: Scaled | null | undefined): string => (v == null ? '-' : formatScaled(v));
const optDecimal = (v: number | null | undefined): string => (v == null ? '-' : formatDecimal8(v));
const optBps = (label: string, v: Scaled | null | undefined): string => (v == null ? '' : ` ${label}=${formatScaled(v)}bps`);

function actionLine(action: Action, path: string): string {
  const tag = actionTag(action);
  switch (tag) {
    case 'm': {
      const m = actionBody(action, tag);
      return `Market ${m.c} ${side(m.b)} sz=${formatScaled(m.sz)} ro=${m.r} iso=${m.i}${optBps('slippage', m.slippage)}`;
    }
    case 'l': {
      const l = actionBody(action, tag);
      return `Limit ${l.c} ${side(l.b)} px=${formatScaled(l.px)} sz=${formatScaled(l.sz)} tif=${CURRENT_TIFS[tifIndex(l.tif)]} ro=${l.r} iso=${l.i}`;
    }
    case 'mod': {
      const mod = actionBody(action, tag);
      return `Modify ${mod.c} oid=${mod.oid} sz=${formatScaled(mod.sz)}`;
    }
    case 'cx': {
      const cx = actionBody(action, tag);
      return `Cancel ${cx.c} oid=${cx.oid}`;
    }
    case 'cxa': {
      const symbols = actionBody(action, tag).c;
      return `CancelAll ${symbols.length === 0 ? '*' : symbols.join(',')}`;
    }
    case 'st':
    case 'tp': {
      const s = actionBody(action, tag);
      const kind = tag === 'st' ? 'Stop' : 'TakeProfit';
      return `${kind} ${s.c} ${direction(s.d)} thresh=${formatScaled(s.tr)} sz=${formatScaled(s.sz)} limit=${optScaled(s.lim)}${optBps('slippage', s.slippage)}`;
    }
    case 'rng': {
      const r = actionBody(action, tag);
      const slippage = optBps('sl_slippage', r.slSlippage) + optBps('tp_slippage', r.tpSlippage);
      return `Range ${r.c} ${side(r.d)} min=${formatScaled(r.pmin)} max=${formatScaled(r.pmax)} sz=${formatScaled(r.sz)} lmin=${optScaled(r.lmin)} lmax=${optScaled(r.lmax)}${slippage}`;
    }
    case 'trig': {
      const t = actionBody(action, tag);
      t.actions.forEach((nested, j) => actionLine(nested, `${path}.trig.actions[${j}]`));
      return `Trigger ${t.c} ${direction(t.d)} thresh=${formatScaled(t.tr)} nested=${t.actions.length}`;
    }
    case 'trl': {
      const t = actionBody(action, tag);
      return `Trailing ${t.c} ${side(t.b)} sz=${formatScaled(t.sz)} trail=${t.trb}bps step=${t.stb}bps limit=${optScaled(t.lim)}${optBps('slippage', t.slippage)}`;
    }
    case 'faucet': {
      const f = actionBody(action, tag);
      return `Faucet user=${f.u} amount=${optDecimal(f.amount)}`;
    }
    case 'agentWalletCreation': {
      const a = actionBody(action, tag);
      return `AgentWallet agent=${a.a} delete=${a.d}`;
    }
    case 'updateUserSettings': {
      const s = actionBody(action, tag);
      return `UpdateLeverage ${leverageSymbols(s)
        .map((symbol) => `${symbol}:${formatDecimal8(s.m[symbol]!)}`)
        .join(',')}`;
    }
    case 'createSubAccount': {
      const c = actionBody(action, tag);
      return `CreateSubAccount name=${c.name} amt=${optDecimal(c.marginAmount)}`;
    }
    case 'removeSubAccount':
      return `RemoveSubAccount ${actionBody(action, tag).toRemove}`;
    case 'renameSubAccount': {
      const r = actionBody(action, tag);
      return `RenameSubAccount account=${r.a} name=${r.n}`;
    }
    case 'transfer': {
      const t = actionBody(action, tag);
      return `Transfer ${t.k === 'internal' ? 'Internal' : 'External'} from=${t.from} to=${t.to} amt=${formatDecimal8(t.marginAmount)}`;
    }
    case 'abc': {
      const a = actionBody(action, tag);
      return `ApproveCommissionFee to=${a.to} max_fee=${a.fee}`;
    }
    case 'rbc':
      return `RevokeCommissionFee to=${actionBody(action, tag).to}`;
    case 'whitelistFaucet': {
      const x = actionBody(action, tag);
      return `WhitelistFaucet target=${x.target} whitelist=${x.whitelist}`;
    }
    default:
      throw new ValidationError(`${path}.${tag}`, `no clear-sign text is defined for '${tag}'; sign it in raw or base58 mode`);
  }
}

const F64 = new Float64Array(1);
const BITS = new BigUint64Array(F64.buffer);
const SCALE = BigInt(FX_SCALE);

/** Rust `format!("{:.8}", x)`: the exact binary value rounded to 8 decimals, ties to even. */
export function formatDecimal8(x: number): string {
  if (!Number.isFinite(x)) throw new ValidationError('value', `expected a finite number, got ${x}`);
  F64[0] = Math.abs(x);
  const bits = BITS[0]!;
  const biased = Number(bits >> 52n);
  const mantissa = biased === 0 ? bits & 0xfffffffffffffn : (bits & 0xfffffffffffffn) | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  let q: bigint;
  if (exponent >= 0) q = (mantissa * SCALE) << BigInt(exponent);
  else {
    const den = 1n << BigInt(-exponent);
    const num = mantissa * SCALE;
    q = num / den;
    const twice = (num % den) * 2n;
    if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
  }
  return (x < 0 || Object.is(x, -0) ? '-' : '') + formatFx(q);
}

/**
 * A scaled field as the SDK prints it: the f64 nearest the ×1e8-rounded value whose own ×1e8
 * rounding is stable (a bounded ULP search), printed with `formatDecimal8`.
 */
export function formatScaled(value: Scaled): string {
  const v = toDouble(value, 'value');
  const fixed = v * FX_SCALE;
  const rounded = Math.round(fixed);
  if (v > 0 && fixed < 2 ** 64 && rounded !== 0) return formatDecimal8(stableCandidate(rounded));
  return formatDecimal8(v);
}

function stableCandidate(rounded: number): number {
  let candidate = rounded / FX_SCALE;
  for (let step = 0; step < 16; step++) {
    if (!(candidate > 0) || !Number.isFinite(candidate)) break;
    const back = Math.round(candidate * FX_SCALE);
    if (back === rounded) return candidate;
    candidate = neighbour(candidate, back > rounded ? -1n : 1n);
  }
  return rounded / FX_SCALE;
}

function neighbour(x: number, delta: bigint): number {
  F64[0] = x;
  BITS[0] = BITS[0]! + delta;
  return F64[0];
}
