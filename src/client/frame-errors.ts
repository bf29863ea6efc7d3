// Counting of inbound frames that could not be used: per kind, each kind logged once, never thrown.
// Invariant: kinds form a fixed small set (safe as a metric label); details go only to the log.

import type { Logger } from '../core/logger.js';

export const FRAME_ERROR_KINDS = ['binary', 'malformed', 'schema', 'venueError', 'unrouted'] as const;
/**
 * `binary`: a binary frame; `malformed`: not JSON; `schema`: JSON that fails the stream schema;
 * `venueError`: an `{type: "error"}` message from the venue; `unrouted`: data for a topic nobody holds.
 */
export type FrameErrorKind = (typeof FRAME_ERROR_KINDS)[number];

export class FrameErrors {
  readonly counts: Record<FrameErrorKind, number> = { binary: 0, malformed: 0, schema: 0, venueError: 0, unrouted: 0 };
  private readonly logged = new Set<FrameErrorKind>();

  constructor(
    private readonly logger: Logger,
    private readonly source: string,
  ) {}

  record(kind: FrameErrorKind, detail: string): void {
    this.counts[kind]++;
    if (this.logged.has(kind)) return;
    this.logged.add(kind);
    this.logger.warn({ source: this.source, kind, detail }, 'unusable frame (further frames of this kind are only counted)');
  }
}
