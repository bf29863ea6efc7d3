// Feeds the journal from a trading session: each signed batch before it is sent, order events, fills, position
// snapshots and funding payments. Invariant: a batch row is committed before its bytes reach the socket.

import { interval, type Subscription } from 'rxjs';
import { KeyCounts } from '../../account/dedupe.js';
import type { HttpClient } from '../../client/http.js';
import type { Clock } from '../../core/clock.js';
import type { Submitter } from '../../execution/ports.js';
import type { Journal } from '../../store/index.js';
import type { TradingParts, TradingSession } from '../trading.js';

const NS_PER_MS = 1_000_000n;
/** Recent fill keys remembered to number equal fills of one match (they arrive together). */
const EQUAL_FILL_MEMORY = 1_000;

/** Journals each batch (committed) before handing it to `inner`, and its outcome after. */
export function journalingSubmitter(journal: Journal, account: string, clock: Clock, inner: Submitter): Submitter {
  return {
    async submit(request, hooks) {
      const id = journal.recordBatch({
        signer: request.signer,
        account,
        nonceNs: request.nonce,
        path: request.encoded.path,
        message: request.encoded.message,
        signature: request.signature,
        body: request.bodyText,
        orderIds: request.encoded.orderIds,
        atNs: clock.nowNs(),
      });
      const outcome = await inner.submit(request, hooks);
      journal.settleBatch(id, outcome.outcome, outcome.outcome === 'accepted' ? undefined : outcome.reason);
      return outcome;
    },
    warm: (request) => inner.warm?.(request),
  };
}

export interface RecordingOptions {
  /** Position snapshots and funding queries, ms. */
  snapshotEveryMs: number;
  log: { warn(fields: object, message: string): void };
  /** Stamps the position snapshots. */
  clock: Pick<Clock, 'nowMs'>;
}

/**
 * Records the order events and fills of a session from before it starts (so start-up reconciliation's are kept) until
 * the returned subscription ends.
 */
export function recordTrading(journal: Journal, parts: TradingParts): Subscription {
  const { account, execution, accounts } = parts;
  const subscription = execution.events$().subscribe((e) => {
    journal.recordOrder({ ...e, account, atNs: BigInt(e.timeMs) * NS_PER_MS });
  });
  const equalFills = new KeyCounts(EQUAL_FILL_MEMORY);
  subscription.add(
    accounts.fills$(account).subscribe((f) => {
      const key = `${f.orderId}|${f.timestamp}|${f.isBuy}|${f.price}|${f.size}`;
      const seq = equalFills.count(key);
      equalFills.add(key);
      journal.recordFill({
        account,
        // Past the tracker's memory the journal attributes the fill from the order's recorded events.
        strategy: execution.order(f.orderId)?.strategy,
        symbol: f.symbol,
        orderId: f.orderId,
        side: f.isBuy ? 'buy' : 'sell',
        price: f.price,
        size: f.size,
        feeUsd: f.fee,
        maker: f.maker,
        timeNs: f.timestamp,
        seq,
      });
    }),
  );
  return subscription;
}

/** Records the session's positions and funding every `snapshotEveryMs` until the returned subscription ends. */
export function recordSnapshots(journal: Journal, session: TradingSession, opts: RecordingOptions): Subscription {
  const snapshot = () => snapshotAccount(journal, session, opts.clock).catch((e: Error) => opts.log.warn({ error: e.message }, 'journal snapshot failed'));
  return interval(opts.snapshotEveryMs).subscribe(() => void snapshot());
}

/** Writes the current positions and any new funding payments of the session's account (read through `http`). */
export async function snapshotAccount(journal: Journal, session: TradingSession, clock: Pick<Clock, 'nowMs'>, http: Pick<HttpClient, 'account'> = session.http): Promise<void> {
  const account = session.account;
  const atMs = clock.nowMs();
  for (const p of session.accountState()?.positions.values() ?? []) {
    journal.recordPosition({ account, symbol: p.symbol, size: p.size, entryPrice: p.price, realizedPnlUsd: p.realizedPnl, unrealizedPnlUsd: p.unrealizedPnl ?? 0, atMs });
  }
  for (const row of await http.account('fundingHistory', account)) {
    const f = row.fundingPayment;
    journal.recordFunding({ account, symbol: f.symbol, amountUsd: f.payment, rate: f.fundingRate, timeNs: f.timestamp });
  }
}
