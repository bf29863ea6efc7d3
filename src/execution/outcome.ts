// Matches an accepted action's item results to a batch's commands: by position when one per item, else by order id.
// Invariant: a result is given to at most one command; facts about other orders are returned apart, never dropped.

import type { ItemResult, VenueOrderFact } from '../venue/port.js';

export interface CommandAnswer {
  /** Facts about the command's order (its place, or the order its cancel targets), in answer order. */
  readonly facts: VenueOrderFact[];
  /** The error answered for it, if any. */
  error: string | undefined;
}

export interface MatchedItems {
  /** One per command, in command order. */
  readonly answers: CommandAnswer[];
  /** Facts about orders no command names (counterparties, or orders a cancelAll hit). */
  readonly others: VenueOrderFact[];
}

/** Matches `items` to the commands whose order ids are `ids` (the new order for a place, the target for a cancel). */
export function matchItems(ids: readonly string[], items: readonly ItemResult[]): MatchedItems {
  const answers: CommandAnswer[] = ids.map(() => ({ facts: [], error: undefined }));
  const others: VenueOrderFact[] = [];
  const positional = items.length === ids.length && items.every((e, i) => e.kind !== 'order' || e.fact.orderId === ids[i]);
  if (positional) {
    items.forEach((e, i) => {
      if (e.kind === 'order') answers[i]!.facts.push(e.fact);
      else if (e.kind === 'error') answers[i]!.error = e.message;
    });
    return { answers, others };
  }
  const index = new Map<string, number>();
  ids.forEach((id, i) => index.set(id, i));
  for (const e of items) {
    if (e.kind !== 'order') continue;
    const i = index.get(e.fact.orderId);
    if (i === undefined) others.push(e.fact);
    else answers[i]!.facts.push(e.fact);
  }
  return { answers, others };
}
