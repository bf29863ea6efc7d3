// What a recording holds, in the framework's vocabulary: its header (venue, dialect, markets and their rules, start time)
// and its market events, each with the time it arrived here. Invariant: no wire shape of any dialect appears here.

import type { BookUpdate, MarketRules, Ticker, Trade } from '../../core/market-data.js';
import type { Dialect, Network } from '../../core/types.js';

/** One recorded market event: what the venue sent (its own times inside) and when it arrived here (recvNs, clock ns). */
export type RecordedEvent =
  | { readonly kind: 'book'; readonly recvNs: bigint; readonly book: BookUpdate }
  | { readonly kind: 'trade'; readonly recvNs: bigint; readonly trade: Trade }
  | { readonly kind: 'ticker'; readonly recvNs: bigint; readonly ticker: Ticker };

/** The version of the file format this code writes (docs/recording.md); readers refuse any other. */
export const RECORDING_FORMAT_VERSION = 1;

/** A recorded market: its rules, and the venue's terms where the recorder knew them (a synthetic recording does). */
export interface RecordedMarket extends MarketRules {
  /** Fee fraction of notional charged to the resting side (negative: a rebate). */
  readonly makerFeeRate?: number;
  /** Fee fraction of notional charged to the incoming side. */
  readonly takerFeeRate?: number;
  /** Time between funding payments, ms. */
  readonly fundingIntervalMs?: number;
}

export interface RecordingHeader {
  readonly formatVersion: number;
  /** The REST base URL recorded from, or 'synthetic' (the local venue's market flow in virtual time). */
  readonly venue: string;
  /** The venue's dialect (synthetic: 'v1', the local venue's). */
  readonly dialect: Dialect;
  /** The network the venue was addressed as (synthetic: 'testnet'). */
  readonly network: Network;
  /** The recorded markets, each symbol once. */
  readonly markets: readonly RecordedMarket[];
  /** When recording started, epoch ms (synthetic: the virtual start). */
  readonly startTimeMs: number;
  /** The seed of a synthetic recording's market flow; absent from a live one. */
  readonly seed?: number;
  /** A synthetic recording's flow when it is not the local venue's default (round interval ms, providers, levels a side). */
  readonly flow?: { readonly intervalMs: number; readonly makers: number; readonly levels: number };
}

/** An open recording: the header, read at once, and its events, read lazily. */
export interface RecordingReader {
  readonly header: RecordingHeader;
  /**
   * The events in file order, one block in memory at a time. Throws RecordingError (code RECORDING) for a damaged
   * block that is not the file's last; a damaged or incomplete last block (a writer killed mid-write) is dropped.
   */
  events(): IterableIterator<RecordedEvent>;
  /** Bytes at the end of the file dropped as an incomplete or damaged last block; set when events() has finished. */
  readonly droppedTailBytes: number;
  /** For progress: the file's size and the bytes of it read so far by events() (absent when the source has no size). */
  readonly sizeBytes?: number;
  readonly readBytes?: number;
}
