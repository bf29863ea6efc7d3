import { describe, expect, it } from 'vitest';
import type { OwnFill, Point, ReportData } from '../../../src/report/data.js';
import { DEFAULT_SECTIONS, renderReport, type SectionBuilder } from '../../../src/report/index.js';
import { Prng } from '../../../src/venue-sim/engine/ids.js';

/** A long run of one symbol: `n` samples of equity, position and price, a fill every 5 samples, an order every 2. */
function longRun(n: number): ReportData {
  const rng = new Prng(7);
  const u = () => rng.nextU32() / 2 ** 32;
  const t0 = 1_767_225_600_000;
  let px = 100_000;
  let eq = 100_000;
  let pos = 0;
  const equity: Point[] = [];
  const positions: Point[] = [];
  const prices: Point[] = [];
  const fills: OwnFill[] = [];
  const orders: { tMs: number; filled: boolean }[] = [];
  for (let i = 0; i < n; i++) {
    const tMs = t0 + i * 100;
    px += u() - 0.5;
    eq += u() - 0.5;
    prices.push({ tMs, v: px });
    equity.push({ tMs, v: eq });
    if (i % 5 === 0) {
      const side = u() < 0.5 ? 'buy' : 'sell';
      pos += side === 'buy' ? 0.01 : -0.01;
      fills.push({ tMs, symbol: 'BTC-USD', side, price: px + (side === 'buy' ? -0.5 : 0.5), size: 0.01 });
      positions.push({ tMs, v: pos });
    }
    if (i % 2 === 0) orders.push({ tMs, filled: i % 5 === 0 });
  }
  return {
    title: 'long <run>',
    subtitle: 'synthetic',
    equity: { label: 'equity', points: equity },
    positions: [{ symbol: 'BTC-USD', points: positions }],
    prices: [{ symbol: 'BTC-USD', points: prices }],
    priceLabel: 'mid',
    fills,
    pnl: { spreadCaptureUsd: 10, feesUsd: 2, fundingUsd: -1, inventoryUsd: -3, totalUsd: 4, basis: 'test' },
    orders,
    summary: [{ label: 'x', value: '1' }],
    symbols: [],
  };
}

describe('renderReport', () => {
  it('stays under 400 KB for a one-symbol run of a million samples and 200 000 fills', () => {
    const html = renderReport(longRun(1_000_000));
    expect(html.length).toBeLessThan(400_000);
    expect(html).toContain('▲');
  }, 60_000);

  it('renders the default sections in order, escapes text, and takes added sections; a builder returning undefined leaves its section out', () => {
    const extra: SectionBuilder = () => ({ title: 'Heatmap & more', html: '<p>cells</p>' });
    const none: SectionBuilder = () => undefined;
    const html = renderReport(longRun(100), [...DEFAULT_SECTIONS, none, extra]);
    const titles = [...html.matchAll(/<h2>([^<]*)<\/h2>/g)].map((m) => m[1]);
    expect(titles).toEqual([
      'Summary',
      'Equity and drawdown',
      'Position over time',
      'Price and own fills',
      'PnL split',
      'Fill ratio',
      'Per symbol',
      'Heatmap &#38; more',
    ]);
    expect(html).toContain('<title>long &#60;run&#62;</title>');
    expect(html).toContain('<p>cells</p>');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });
});
