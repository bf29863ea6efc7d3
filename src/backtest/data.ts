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
    events: { [Symbol.iterator]: () => new ChainedEvents(readers) },
  };
}

/**
 * The files' events, file after file (a class, not a generator: an event costs no resumption). Throws ValidationError
 * naming a file whose first event is before the previous file's last.
 */
class ChainedEvents implements IterableIterator<RecordedEvent> {
  private file = -1;
  private current: Iterator<RecordedEvent> | undefined;
  private first = true;
  private lastNs = -1n;

  constructor(private readonly readers: readonly { path: string; reader: RecordingReader }[]) {}

  [Symbol.iterator](): IterableIterator<RecordedEvent> {
    return this;
  }

  next(): IteratorResult<RecordedEvent> {
    for (;;) {
      if (this.current !== undefined) {
        const r = this.current.next();
        if (!r.done) {
          if (this.first && r.value.recvNs < this.lastNs)
            throw new ValidationError(this.readers[this.file]!.path, `starts at ${r.value.recvNs} ns, before the previous file ended (${this.lastNs} ns)`);
          this.first = false;
          this.lastNs = r.value.recvNs;
          return r;
        }
      }
      if (++this.file >= this.readers.length) return { done: true, value: undefined };
      this.current = this.readers[this.file]!.reader.events();
      this.first = true;
    }
  }

  return(): IteratorResult<RecordedEvent> {
    this.current?.return?.();
    this.file = this.readers.length;
    this.current = undefined;
    return { done: true, value: undefined };
  }
}
