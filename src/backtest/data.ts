// Several recordings replayed as one: their markets (each symbol once, with the same rules) and their events, file after
// file, read lazily. Invariants: only one file's events are being read at a time; a file that starts before the previous
// one ended is refused (ValidationError naming it), so replay time never goes backwards between files.

import { ValidationError } from '../core/errors.js';
import type { RecordedEvent, RecordedMarket, RecordingReader } from './recording/events.js';

export interface Recordings {
  readonly markets: readonly RecordedMarket[];
  readonly events: Iterable<RecordedEvent>;
  /** The share of the files' bytes read so far (0..1), or undefined when a reader does not tell its size. */
  fractionRead(): number | undefined;
}

/** Opens every file's header at once (so a bad file fails before the replay) and chains their events. */
export function openRecordings(paths: readonly string[], open: (path: string) => RecordingReader): Recordings {
  if (paths.length === 0) throw new ValidationError('--data', 'give at least one recording file');
  const readers = paths.map((p) => ({ path: p, reader: open(p) }));
  const markets = new Map<string, RecordedMarket>();
  for (const { path, reader } of readers) {
    for (const m of reader.header.markets) {
      const known = markets.get(m.symbol);
      if (known === undefined) markets.set(m.symbol, m);
      else if (known.tickSizeUsd !== m.tickSizeUsd || known.lotSizeBase !== m.lotSizeBase) {
        throw new ValidationError(
          path,
          `${m.symbol} has tick ${m.tickSizeUsd} and lot ${m.lotSizeBase} here but tick ${known.tickSizeUsd} and lot ${known.lotSizeBase} in an earlier file`,
        );
      }
    }
  }
  return {
    markets: [...markets.values()],
    fractionRead: () => {
      let total = 0;
      let read = 0;
      for (const { reader } of readers) {
        if (reader.sizeBytes === undefined) return undefined;
        total += reader.sizeBytes;
        read += Math.min(reader.readBytes ?? 0, reader.sizeBytes);
      }
      return total > 0 ? read / total : undefined;
    },
    events: {
      *[Symbol.iterator]() {
        let lastNs = -1n;
        for (const { path, reader } of readers) {
          let first = true;
          for (const e of reader.events()) {
            if (first && e.recvNs < lastNs) throw new ValidationError(path, `starts at ${e.recvNs} ns, before the previous file ended (${lastNs} ns)`);
            first = false;
            lastNs = e.recvNs;
            yield e;
          }
        }
      },
    },
  };
}
