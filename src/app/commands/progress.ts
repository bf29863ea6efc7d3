// The backtest's progress on stderr: on a terminal a bar rewritten in place (share of the data read, events, data time,
// rate, time left), otherwise a plain line per report. Invariant: wall-clock time appears only here, never in results.

const BAR_WIDTH = 24;

export interface ProgressOptions {
  /** Where to write (process.stderr); a bar when isTTY is true. */
  stream: { write(text: string): unknown; isTTY?: boolean };
  /** The share of the data read, 0..1, or undefined when unknown (then no bar, a spinner). */
  fraction: () => number | undefined;
  /** Wall-clock ms (performance.now). */
  nowMs?: () => number;
}

export interface Progress {
  /** Reports `events` replayed up to data time `timeNs` (epoch ns). */
  line(events: number, timeNs: bigint): void;
  /** Ends the bar's line (nothing when no bar was drawn). */
  done(): void;
}

const SPINNER = ['|', '/', '-', '\\'];

export function progressReporter(opts: ProgressOptions): Progress {
  const now = opts.nowMs ?? (() => performance.now());
  const tty = opts.stream.isTTY === true;
  const startMs = now();
  let shown = false;
  let turn = 0;
  let width = 0;
  const line = (events: number, timeNs: bigint) => {
    const elapsedS = Math.max(0.001, (now() - startMs) / 1000);
    const at = new Date(Number(timeNs / 1_000_000n)).toISOString();
    const rate = Math.round(events / elapsedS);
    const text = `replayed ${events.toLocaleString('en-US')} events, data time ${at}, ${rate.toLocaleString('en-US')} events/s`;
    const f = opts.fraction();
    if (!tty) {
      opts.stream.write(`${f === undefined ? '' : `${percent(f)} `}${text}\n`);
      return;
    }
    let head: string;
    if (f === undefined) head = SPINNER[turn++ % SPINNER.length]!;
    else {
      const filled = Math.round(Math.min(1, Math.max(0, f)) * BAR_WIDTH);
      const leftS = f > 0 && f < 1 ? Math.round((elapsedS * (1 - f)) / f) : 0;
      head = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${percent(f)}${f > 0 && f < 1 ? ` ${leftS}s left` : ''}`;
    }
    const out = `${head} ${text}`;
    opts.stream.write(`\r${out.padEnd(width)}`);
    width = out.length;
    shown = true;
  };
  return { line, done: () => shown && opts.stream.write('\n') };
}

function percent(f: number): string {
  return `${(Math.min(1, Math.max(0, f)) * 100).toFixed(1).padStart(5)}%`;
}
