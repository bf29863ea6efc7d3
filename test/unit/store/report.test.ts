import { describe, expect, it } from 'vitest';
import { buildReport, UNATTRIBUTED, type ReportFill, type ReportFunding, type ReportRow } from '../../../src/store/report.js';

const MS = 1_000_000n;

function fill(strategy: string, side: 'buy' | 'sell', size: number, price: number, atMs: number, more: Partial<ReportFill> = {}): ReportFill {
  return { account: 'A', epoch: null, strategy, symbol: 'BTC-USD', side, price, size, feeUsd: 0, timeNs: BigInt(atMs) * MS, ...more };
}

function funding(amountUsd: number, atMs: number, more: Partial<ReportFunding> = {}): ReportFunding {
  return { account: 'A', epoch: null, symbol: 'BTC-USD', amountUsd, timeNs: BigInt(atMs) * MS, ...more };
}

function byStrategy(rows: ReportRow[]): Record<string, ReportRow> {
  return Object.fromEntries(rows.map((r) => [`${r.strategy} ${r.symbol}`, r]));
}

describe('buildReport', () => {
  it('realizes average-cost PnL through a reversal: long 2 @100, sell 3 @110 (short 1 @110), buy 1 @100', () => {
    const [row] = buildReport([fill('s', 'buy', 2, 100, 1), fill('s', 'sell', 3, 110, 2), fill('s', 'buy', 1, 100, 3)], [], []);
    // closing 2 long at +10 each = 20; closing 1 short opened at 110 bought back at 100 = 10
    expect(row!.realizedPnlUsd).toBe(30);
    expect(row!.buySize).toBe(3);
    expect(row!.sellSize).toBe(3);
    expect(row!.volumeUsd).toBe(200 + 330 + 100);
  });

  it('splits funding by each strategy’s signed share of the net position: long 2 and short 1 pay as net long 1', () => {
    const rows = byStrategy(buildReport([fill('long', 'buy', 2, 100, 1), fill('short', 'sell', 1, 100, 2)], [funding(-1, 3)], []));
    expect(rows['long BTC-USD']!.fundingUsd).toBe(-2);
    expect(rows['short BTC-USD']!.fundingUsd).toBe(1);
    expect(rows[`${UNATTRIBUTED} BTC-USD`]).toBeUndefined();
  });

  it('gives funding to (account) when the strategies are flat, even with float residue (0.1 + 0.2 − 0.3)', () => {
    const rows = byStrategy(buildReport([fill('s', 'buy', 0.1, 100, 1), fill('s', 'buy', 0.2, 100, 2), fill('s', 'sell', 0.3, 100, 3)], [funding(5, 4)], []));
    expect(rows[`${UNATTRIBUTED} BTC-USD`]!.fundingUsd).toBe(5);
    expect(rows['s BTC-USD']!.fundingUsd).toBe(0);
  });

  it('applies funding before a fill at the same instant (the position held up to then pays)', () => {
    const rows = byStrategy(buildReport([fill('s', 'buy', 1, 100, 5)], [funding(-1, 5)], []));
    expect(rows[`${UNATTRIBUTED} BTC-USD`]!.fundingUsd).toBe(-1);
  });

  it('keeps one inventory per account: the same strategy long on A and short on B realizes nothing', () => {
    const [row] = buildReport([fill('s', 'buy', 1, 100, 1), fill('s', 'sell', 1, 120, 2, { account: 'B' })], [], []);
    expect(row!.realizedPnlUsd).toBe(0);
  });

  it('counts only the window, at the cost basis from before it; orders by first journal time', () => {
    const fills = [fill('s', 'buy', 1, 100, 1_000, { feeUsd: 1 }), fill('s', 'sell', 1, 130, 3_000, { feeUsd: 2 })];
    const orders = [
      { strategy: 's', symbol: 'BTC-USD', firstNs: 900n * MS, filled: true },
      { strategy: 's', symbol: 'BTC-USD', firstNs: 2_900n * MS, filled: true },
      { strategy: 's', symbol: 'BTC-USD', firstNs: 2_950n * MS, filled: false },
    ];
    const [row] = buildReport(fills, [funding(-4, 2_000), funding(-8, 2_500)], orders, 2_500);
    expect(row).toEqual({
      strategy: 's',
      symbol: 'BTC-USD',
      fills: 1,
      volumeUsd: 130,
      buySize: 0,
      sellSize: 1,
      feesUsd: 2,
      fundingUsd: -8,
      realizedPnlUsd: 30,
      netPnlUsd: 30 - 2 - 8,
      ordersPlaced: 2,
      ordersFilled: 1,
      fillRatio: 0.5,
    });
  });

  it('sorts rows by strategy then symbol and has a null fill ratio without orders', () => {
    const rows = buildReport(
      [fill('b', 'buy', 1, 1, 1), fill('a', 'buy', 1, 1, 1, { symbol: 'SOL-USD' }), fill('a', 'buy', 1, 1, 1, { symbol: 'ETH-USD' })],
      [],
      [],
    );
    expect(rows.map((r) => `${r.strategy}/${r.symbol}`)).toEqual(['a/ETH-USD', 'a/SOL-USD', 'b/BTC-USD']);
    expect(rows.every((r) => r.fillRatio === null)).toBe(true);
  });
});
