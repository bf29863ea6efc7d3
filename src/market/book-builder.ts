// Book building: snapshot-then-delta in, the consistent live L2Book out after every change; rebuilds on crossed/mismatch.
// Invariants: nothing is emitted between a rebuild request and the next snapshot; deltas before a snapshot are dropped.

import { Observable } from 'rxjs';
import type { BookUpdate } from '../core/market-data.js';
import { L2Book } from './book.js';

export type RebuildReason = 'crossed' | 'mismatch';

export interface BookBuilderStats {
  snapshots: number;
  deltas: number;
  /** Deltas dropped while waiting for a snapshot. */
  dropped: number;
  checks: number;
  mismatches: number;
  rebuilds: Record<RebuildReason, number>;
}

export interface BookBuilderOptions {
  symbol: string;
  /** Snapshots of the venue's book (queried) to compare the book with. */
  checks$: Observable<BookUpdate>;
  /** Levels per side the checks carry; Infinity when they carry the whole book. */
  checkDepth: number;
  /** Consecutive mismatching checks that trigger a rebuild (one may race a delta in flight). Default 2. */
  mismatchesBeforeRebuild?: number;
  /** Called when the book must be rebuilt: ask the venue for a fresh snapshot (it comes next on the updates). */
  onRebuild: (reason: RebuildReason) => void;
  /** Counters to update (for metrics); a fresh object when omitted. */
  stats?: BookBuilderStats;
}

export function newBookBuilderStats(): BookBuilderStats {
  return { snapshots: 0, deltas: 0, dropped: 0, checks: 0, mismatches: 0, rebuilds: { crossed: 0, mismatch: 0 } };
}

/** Builds the book of `opts.symbol` from its updates (snapshots and deltas, in arrival order). */
export function buildBook(updates$: Observable<BookUpdate>, opts: BookBuilderOptions): Observable<L2Book> {
  return new Observable<L2Book>((subscriber) => {
    const stats = opts.stats ?? newBookBuilderStats();
    const threshold = opts.mismatchesBeforeRebuild ?? 2;
    const book = new L2Book(opts.symbol);
    let ready = false;
    let mismatches = 0;
    const rebuild = (reason: RebuildReason) => {
      ready = false;
      mismatches = 0;
      stats.rebuilds[reason]++;
      opts.onRebuild(reason);
    };
    const onUpdate = (u: BookUpdate) => {
      if (u.kind === 'snapshot') {
        stats.snapshots++;
        book.apply(u);
        ready = true;
        mismatches = 0;
        subscriber.next(book);
        return;
      }
      if (!ready) {
        stats.dropped++;
        return;
      }
      stats.deltas++;
      book.apply(u);
      if (book.isCrossed()) return rebuild('crossed');
      subscriber.next(book);
    };
    const onCheck = (snapshot: BookUpdate) => {
      if (!ready) return;
      stats.checks++;
      if (book.matches(snapshot, opts.checkDepth)) {
        mismatches = 0;
        return;
      }
      stats.mismatches++;
      if (++mismatches >= threshold) rebuild('mismatch');
    };
    const checks = opts.checks$.subscribe({ next: onCheck, error: (e) => subscriber.error(e) });
    const updates = updates$.subscribe({ next: onUpdate, error: (e) => subscriber.error(e), complete: () => subscriber.complete() });
    return () => {
      checks.unsubscribe();
      updates.unsubscribe();
    };
  });
}
