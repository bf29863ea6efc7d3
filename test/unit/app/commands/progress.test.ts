import { describe, expect, it } from 'vitest';
import { progressReporter } from '../../../../src/app/commands/progress.js';

const T = 1_700_000_000_000_000_000n;

function run(isTTY: boolean, fractions: (number | undefined)[]) {
  const writes: string[] = [];
  let ms = 0;
  let i = 0;
  const p = progressReporter({ stream: { write: (t) => writes.push(t), isTTY }, fraction: () => fractions[i], nowMs: () => ms });
  for (; i < fractions.length; i++) {
    ms += 1000;
    p.line((i + 1) * 20_000, T + BigInt(i) * 60_000_000_000n);
  }
  p.done();
  return writes;
}

describe('backtest progress', () => {
  it('draws a bar rewritten in place on a terminal: share of the data, time left, events and rate; ends its line once', () => {
    const writes = run(true, [0.25, 0.5, 1]);
    const second = '[############............]  50.0% 2s left replayed 40,000 events, data time 2023-11-14T22:14:20.000Z, 20,000 events/s';
    expect(writes).toEqual([
      '\r[######..................]  25.0% 3s left replayed 20,000 events, data time 2023-11-14T22:13:20.000Z, 20,000 events/s',
      `\r${second}`,
      // a shorter line blanks what is left of the longer one
      `\r${'[########################] 100.0% replayed 60,000 events, data time 2023-11-14T22:15:20.000Z, 20,000 events/s'.padEnd(second.length)}`,
      '\n',
    ]);
  });

  it('writes plain lines when stderr is not a terminal, and a spinner on a terminal when the size of the data is unknown', () => {
    expect(run(false, [0.5, 1])).toEqual([
      ' 50.0% replayed 20,000 events, data time 2023-11-14T22:13:20.000Z, 20,000 events/s\n',
      '100.0% replayed 40,000 events, data time 2023-11-14T22:14:20.000Z, 20,000 events/s\n',
    ]);
    expect(run(true, [undefined, undefined]).map((w) => w.slice(0, 3))).toEqual(['\r| ', '\r/ ', '\n']);
  });
});
