// Matches an action response's `statuses` to a batch's commands: by position when one entry per item, else by order id.
// Invariant: an entry is given to at most one command; entries about other orders are returned apart, never dropped.

import type { VenueOrderFact } from './ports.js';

/** One entry of `statuses`, read: an order fact, or an error message. */
export type StatusEntry = { readonly kind: 'fact'; readonly fact: VenueOrderFact } | { readonly kind: 'error'; readonly message: string };

/** Reads one `{<statusKey>: {oid, ...}}` entry; undefined for an entry that is neither an order status nor an error. */
export function readEntry(entry: Record<string, unknown>): StatusEntry | undefined {
  for (const key in entry) {
    const body = entry[key] as Record<string, unknown> | null;
    if (typeof body !== 'object' || body === null) return undefined;
    if (key === 'error') return { kind: 'error', message: typeof body.message === 'string' ? body.message : 'error' };
    if (typeof body.oid !== 'string') return undefined;
    const filled = body.filledSz ?? body.totalSz;
    const reason = typeof body.reason === 'string' ? body.reason : undefined;
    return { kind: 'fact', fact: { orderId: body.oid, status: key, filledSize: typeof filled === 'number' ? Math.abs(filled) : undefined, reason } };
  }
  return undefined;
}

export interface CommandAnswer {
  /** Facts about the command's order (its place, or the order its cancel targets), in answer order. */
  readonly facts: VenueOrderFact[];
  /** The error entry answered for it, if any. */
  error: string | undefined;
}

export interface MatchedStatuses {
  /** One per command, in command order. */
  readonly answers: CommandAnswer[];
  /** Facts about orders no command names (counterparties, or orders a cancelAll hit). */
  readonly others: VenueOrderFact[];
}

/** Matches `statuses` to the commands whose order ids are `ids` (the new order for a place, the target for a cancel). */
export function matchStatuses(ids: readonly string[], statuses: readonly Record<string, unknown>[]): MatchedStatuses {
  const answers: CommandAnswer[] = ids.map(() => ({ facts: [], error: undefined }));
  const others: VenueOrderFact[] = [];
  const entries = statuses.map(readEntry);
  const positional = entries.length === ids.length && entries.every((e, i) => e === undefined || e.kind === 'error' || e.fact.orderId === ids[i]);
  if (positional) {
    entries.forEach((e, i) => {
      if (e?.kind === 'fact') answers[i]!.facts.push(e.fact);
      else if (e?.kind === 'error') answers[i]!.error = e.message;
    });
    return { answers, others };
  }
  const index = new Map<string, number>();
  ids.forEach((id, i) => index.set(id, i));
  for (const e of entries) {
    if (e?.kind !== 'fact') continue;
    const i = index.get(e.fact.orderId);
    if (i === undefined) others.push(e.fact);
    else answers[i]!.facts.push(e.fact);
  }
  return { answers, others };
}
