// POST /order in the current generation (venue-protocol §2–4, §14): the `{actions, nonce, account, signer, signature}`
// envelope, verified over the current codec's bytes for the venue's network in any wallet mode, then run in blocks
// (shuffled by the block timestamp, then settings, cancels, post-only, the rest). Invariant: a refused transaction changes nothing.

import type { Clock } from '../../core/clock.js';
import { ValidationError } from '../../core/errors.js';
import { object, parse, custom, u64 } from '../../core/schema.js';
import type { Network } from '../../core/types.js';
import { actionBody, actionTag, parseActions, type Action } from '../../protocol/current/actions.js';
import { createCurrentCodec, currentCodec } from '../../protocol/current/codec.js';
import { SIGN_MODES, type DialectCodec, type SignMode } from '../../protocol/dialect.js';
import { selectSchema } from '../../protocol/current/serialize.js';
import { publicKey32 } from '../../protocol/pubkey.js';
import { signatureSchema } from '../../protocol/v1/actions.js';
import type { EngineEvent, ItemStatus, OrderActionItem } from '../engine/index.js';
import type { Basket, ContingentBook, Held } from './contingent.js';
import type { AuthDeps } from './auth.js';
import { blockOrder } from './block.js';
import { currentOrderItem, priorityOf, slidPrice } from './current-items.js';
import { currentAgentStatus, currentItemStatus, currentLeverageStatuses } from './current-wire.js';

/** One block as run: its timestamp (also the shuffle's seed), the transactions in arrival order and the execution order. */
export interface BlockRecord {
  readonly timestampNs: bigint;
  readonly seed: bigint;
  readonly transactions: readonly { readonly account: string; readonly nonce: bigint; readonly actions: number }[];
  /** [transaction index, action index] in execution order. */
  readonly order: readonly (readonly [number, number])[];
}

export interface CurrentApiOptions extends AuthDeps {
  /** Network whose domain byte signatures must carry. */
  readonly network: Network;
  readonly clock: Clock;
  /** Transactions arriving within this many ms form one block; 0 = those arriving in one event-loop turn. */
  readonly blockMs: number;
  /** Called after every block with the engine's changes applied. */
  readonly afterChange: () => void;
  /** A refused cancel (one order, or every order of a symbol when `orderId` is undefined), for the account stream. */
  readonly onCancelRejected: (account: string, symbol: string, orderId: string | undefined, reason: string) => void;
  readonly onBlock?: (block: BlockRecord) => void;
  /** Trigger baskets and on-fill actions waiting (shared with the streams, which list them). */
  readonly held: ContingentBook;
  /** A trigger basket was parked, fired (`triggered`, then `filled` once its actions ran) or cancelled: for the account stream. */
  readonly onBasketUpdate: (basket: Basket, status: 'placed' | 'triggered' | 'filled' | 'cancelled') => void;
}

const envelopeSchema = object(
  {
    actions: custom<unknown>('an array of actions', (v) => v),
    nonce: u64(),
    account: publicKey32(),
    signer: publicKey32(),
    signature: signatureSchema,
  },
  { strict: true },
);

interface Transaction {
  readonly actions: Action[];
  readonly nonce: bigint;
  readonly account: string;
  readonly signer: string;
  /** Order id per action (null where none applies), as the signer computed it. */
  readonly ids: (string | null)[];
  readonly done: (text: string) => void;
}

/** True when the parsed JSON body of POST /order is a current-generation envelope (it has `actions`). */
export function isCurrentEnvelope(json: unknown): boolean {
  return typeof json === 'object' && json !== null && Object.hasOwn(json, 'actions');
}

function answer(status: 'ok' | 'error', statuses: unknown[]): string {
  return JSON.stringify({ status, response: { type: 'order', data: { statuses } } });
}

const V4_CODEC = createCurrentCodec({ maxSchema: 4 });

/**
 * The layouts a signer may have used for `actions`: envelopes up to V3 (the default), and V4 where it applies (a
 * conditional leaf, §3.2; only the newest keychain emits it); V4 alone when a field needs it (conditional slippage).
 */
function codecsFor(actions: readonly Action[]): readonly DialectCodec[] {
  if (selectSchema(actions, 4) !== 4) return [currentCodec];
  try {
    selectSchema(actions, 3);
    return [currentCodec, V4_CODEC];
  } catch (e) {
    if (e instanceof ValidationError) return [V4_CODEC];
    throw e;
  }
}

/** Wallet modes to try, the `x-bulk-sig-mode` hint first (an unknown hint is ignored, §2). */
function modesFor(hint: string | undefined): SignMode[] {
  const first = SIGN_MODES.find((m) => m === hint?.toLowerCase());
  return first ? [first, ...SIGN_MODES.filter((m) => m !== first)] : [...SIGN_MODES];
}

export class CurrentOrderApi {
  private readonly held: ContingentBook;
  private pending: Transaction[] = [];
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;

  constructor(private readonly opts: CurrentApiOptions) {
    this.held = opts.held;
  }

  /**
   * The answer to one envelope: verified now, run with the next block. Throws ValidationError naming the field of a
   * malformed envelope or action (`actions[0].l.px`).
   */
  async handle(json: unknown, sigModeHint: string | undefined): Promise<string> {
    const env = parse(envelopeSchema, json);
    const actions = parseActions(env.actions);
    const ids = await this.verify(actions, env, sigModeHint);
    if (ids === undefined) return answer('error', [{ error: { message: 'bad signature' } }]);
    return new Promise<string>((done) => {
      this.pending.push({ actions, nonce: env.nonce, account: env.account, signer: env.signer, ids, done });
      this.schedule();
    });
  }

  /** Flushes the pending block now (tests and shutdown). */
  runBlock(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer as NodeJS.Timeout);
      clearImmediate(this.timer as NodeJS.Immediate);
      this.timer = undefined;
    }
    const txs = this.pending;
    this.pending = [];
    if (txs.length === 0) return;
    const { clock } = this.opts;
    const timestampNs = clock.nowNs();
    const admitted: Transaction[] = [];
    for (const tx of txs) {
      const refused = this.refusal(tx, timestampNs);
      if (refused === undefined) {
        this.opts.nonces.accept(tx.signer, tx.nonce);
        admitted.push(tx);
      } else tx.done(answer('error', [{ error: { message: refused } }]));
    }
    const order = blockOrder(
      admitted.map((tx) => tx.actions.map(priorityOf)),
      timestampNs,
    );
    const statuses = admitted.map((): unknown[] => []);
    for (const [t, a] of order) {
      const tx = admitted[t]!;
      statuses[t]!.push(...this.apply(tx, a));
    }
    this.opts.afterChange();
    this.opts.onBlock?.({
      timestampNs,
      seed: timestampNs,
      transactions: admitted.map((tx) => ({ account: tx.account, nonce: tx.nonce, actions: tx.actions.length })),
      order,
    });
    admitted.forEach((tx, t) => tx.done(answer('ok', statuses[t]!)));
  }

  close(): void {
    this.runBlock();
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = this.opts.blockMs > 0 ? setTimeout(() => this.runBlock(), this.opts.blockMs) : setImmediate(() => this.runBlock());
  }

  /** The order ids of a transaction whose signature verifies in some wallet mode and envelope, else undefined. */
  private async verify(actions: Action[], env: { nonce: bigint; account: string; signer: string; signature: string }, hint: string | undefined) {
    for (const codec of codecsFor(actions)) {
      for (const mode of modesFor(hint)) {
        const encoded = codec.encodeTrusted({ actions, account: env.account, signer: env.signer, nonce: env.nonce, network: this.opts.network, mode });
        if (await this.opts.verifier.verify(env.signer, encoded.message, env.signature)) return encoded.orderIds;
      }
    }
    return undefined;
  }

  /** Why a verified transaction is refused now (signer authority, nonce), or undefined. */
  private refusal(tx: Transaction, nowNs: bigint): string | undefined {
    const managesAgents = tx.actions.some((a) => actionTag(a) === 'agentWalletCreation');
    const authorized = managesAgents ? tx.signer === tx.account : this.opts.engine.isAuthorized(tx.account, tx.signer);
    if (!authorized) return 'unauthorized signer';
    return this.opts.nonces.check(tx.signer, tx.nonce, nowNs);
  }

  /** Runs action `index` of `tx`; its status entries in the current shapes. */
  private apply(tx: Transaction, index: number): unknown[] {
    return this.run(tx.actions[index]!, tx.account, tx.nonce, tx.ids[index] ?? undefined);
  }

  /**
   * Runs what `events` (the engine's latest, already published) make due: trigger baskets the mark reached (each
   * answered `triggered`, its actions run, then `filled`), and on-fill actions whose order filled.
   */
  settle(events: readonly EngineEvent[]): void {
    const { engine } = this.opts;
    const { fired, filled } = this.held.due(events, (symbol) => engine.marketState(symbol)?.markPrice ?? 0);
    for (const b of fired) {
      this.opts.onBasketUpdate(b, 'triggered');
      this.runHeld(b);
      this.opts.onBasketUpdate(b, 'filled');
    }
    for (const p of filled) this.runHeld(p);
  }

  private runHeld(h: Held): unknown[] {
    const out: unknown[] = [];
    h.actions.forEach((a, j) => out.push(...this.run(a, h.account, h.nonce, h.ids[j] ?? undefined)));
    return out;
  }

  /** Runs `action` for `account` under order id `id`; its status entries in the current shapes. */
  private run(action: Action, account: string, nonce: bigint, id: string | undefined): unknown[] {
    const { engine } = this.opts;
    const one = (item: OrderActionItem) => engine.applyOrderAction(account, [item], { ids: [id], nonce }).statuses;
    const tag = actionTag(action);
    if (tag === 'cx') {
      const basket = this.held.cancel(account, actionBody(action, 'cx').oid);
      if (basket !== undefined) {
        this.opts.onBasketUpdate(basket, 'cancelled');
        return [{ cancelled: { oid: basket.id } }];
      }
    }
    const baskets =
      tag === 'cxa'
        ? this.held.cancelAll(account, actionBody(action, 'cxa').c).map((b) => {
            this.opts.onBasketUpdate(b, 'cancelled');
            return { cancelled: { oid: b.id } };
          })
        : [];
    const order = currentOrderItem(action, (symbol, isBuy, px) => this.slide(symbol, isBuy, px));
    if (order !== undefined && 'refused' in order) return [{ rejectedInvalid: { oid: id, reason: order.refused } }];
    if (order !== undefined) {
      const statuses = one(order.item);
      if ('cancel' in order.item) {
        const { c, oid } = order.item.cancel;
        for (const s of statuses) if ('error' in s) this.opts.onCancelRejected(account, c, oid, s.error.message);
        return statuses.map((s) => currentItemStatus(s, true, oid));
      }
      return [...baskets, ...statuses.map((s: ItemStatus) => currentItemStatus(s, order.isBuy))];
    }
    switch (tag) {
      case 'trig': {
        const t = actionBody(action, 'trig');
        if (id === undefined || engine.marketInfo(t.c) === undefined) return [{ rejectedInvalid: { oid: id, reason: `unknown symbol ${t.c}` } }];
        const b = this.held.park({
          id,
          account,
          nonce,
          symbol: t.c,
          above: t.d,
          triggerPx: Number(t.tr),
          actions: t.actions,
          createdNs: this.opts.clock.nowNs(),
        });
        this.opts.onBasketUpdate(b, 'placed');
        return [{ resting: { oid: id } }];
      }
      case 'of': {
        const of = actionBody(action, 'of');
        const statuses = this.run(of.trigger, account, nonce, id);
        if (id === undefined) return statuses;
        const answer = statuses[0] as Record<string, unknown> | undefined;
        if (answer !== undefined && ('resting' in answer || 'working' in answer)) this.held.hold(account, nonce, id, of.actions);
        else if (answer !== undefined && 'filled' in answer) {
          this.held.hold(account, nonce, id, of.actions);
          statuses.push(...this.runHeld(this.held.release(id)!));
        }
        return statuses;
      }
      case 'mod': {
        const mod = actionBody(action, 'mod');
        const resting = engine.openOrders(account).find((o) => o.orderId === mod.oid);
        return one({ modify: { c: mod.c, oid: mod.oid, sz: Number(mod.sz) } }).map((s) => currentItemStatus(s, resting?.isBuy ?? true));
      }
      case 'faucet': {
        const f = actionBody(action, 'faucet');
        return [engine.faucet(f.u, f.amount)];
      }
      case 'agentWalletCreation': {
        const a = actionBody(action, 'agentWalletCreation');
        return [currentAgentStatus(engine.setAgent(account, a.a, a.d))];
      }
      case 'updateUserSettings':
        return currentLeverageStatuses(engine.setLeverage(account, Object.entries(actionBody(action, 'updateUserSettings').m)));
      case 'createSubAccount': {
        const c = actionBody(action, tag);
        return [engine.createSubAccount(account, c.name, c.marginAmount)];
      }
      case 'transfer': {
        const t = actionBody(action, tag);
        return [engine.transfer(account, t.k, t.from, t.to, t.marginAmount)];
      }
      case 'removeSubAccount':
        return [engine.removeSubAccount(account, actionBody(action, tag).toRemove)];
      case 'renameSubAccount': {
        const r = actionBody(action, tag);
        return [engine.renameSubAccount(account, r.a, r.n)];
      }
      case 'createMultisig':
      case 'msp':
      case 'msa':
      case 'msr':
      case 'msc':
      case 'mse':
      case 'msu':
        return [
          { error: { message: `${tag} is not supported by the local venue: multisig account keys, proposal rules and the proposal stream are undocumented` } },
        ];
      default:
        return [{ error: { message: `${tag} is not supported by the local venue` } }];
    }
  }

  /** ALO_SLIDE (§14): a post-only price that would cross is moved one tick behind the opposite best price. */
  private slide(symbol: string, isBuy: boolean, px: number): number {
    const { engine } = this.opts;
    const market = engine.marketInfo(symbol);
    const book = engine.book(symbol, 1);
    if (!market || !book) return px;
    return slidPrice(isBuy, px, (isBuy ? book.asks : book.bids)[0]?.px, market.tickSize);
  }
}
