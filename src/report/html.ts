// The HTML report: one self-contained page (inline CSS, SVG and script; a content security policy that forbids any
// network load) built from ReportData by a list of section builders that other features extend.
// Invariants: the bytes depend only on the data and the section list (no clock, no randomness, UTC times); the page
// reads and prints without its script, which only adds a hover read-out.

import type { ReportRow } from '../store/index.js';
import type { Point, ReportData } from './data.js';
import { barChart, escapeHtml, ratioColumns, timeChart, timeLabel } from './svg.js';

/** One section of the page: a heading and its HTML (trusted: builders escape what they take from data). */
export interface ReportSection {
  readonly title: string;
  readonly html: string;
}

/** Builds a section from the data, or undefined to leave it out. */
export type SectionBuilder = (data: ReportData) => ReportSection | undefined;

/** Columns of the fill ratio chart. */
const FILL_RATIO_COLUMNS = 40;

const usd = (v: number) => v.toFixed(2);

/** An HTML table of text cells (escaped); `numeric[i]` right-aligns column i. */
export function table(head: readonly string[], rows: readonly (readonly string[])[], numeric: readonly boolean[]): string {
  const cell = (tag: string, text: string, i: number) => `<${tag}${numeric[i] ? ' class="num"' : ''}>${escapeHtml(text)}</${tag}>`;
  return `<table><thead><tr>${head.map((h, i) => cell('th', h, i)).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c, i) => cell('td', c, i)).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

export function summarySection(d: ReportData): ReportSection {
  return {
    title: 'Summary',
    html: table(
      ['figure', 'value'],
      d.summary.map((s) => [s.label, s.value]),
      [false, true],
    ),
  };
}

/** USD below the running peak (≤ 0) at each point. */
export function drawdown(points: readonly Point[]): Point[] {
  let peak = Number.NEGATIVE_INFINITY;
  return points.map((p) => {
    peak = Math.max(peak, p.v);
    return { tMs: p.tMs, v: p.v - peak };
  });
}

export function equitySection(d: ReportData): ReportSection {
  const equity = timeChart({ label: d.equity.label, unit: 'USD', series: [{ points: d.equity.points, className: 'eq' }] });
  const dd = timeChart({
    label: 'drawdown, USD below the running peak',
    unit: 'USD',
    series: [{ points: drawdown(d.equity.points), className: 'neg', area: true }],
    zero: true,
    heightPx: 150,
  });
  return {
    title: 'Equity and drawdown',
    html: `<h3>${escapeHtml(d.equity.label)}</h3>${equity}<h3>Drawdown (USD below the running peak)</h3>${dd}`,
  };
}

export function positionSection(d: ReportData): ReportSection {
  const charts = d.positions.map(
    (s) =>
      `<h3>${escapeHtml(s.symbol)}: position, base units</h3>${timeChart({
        label: `${s.symbol} position`,
        unit: s.symbol.split('-')[0] ?? '',
        series: [{ points: s.points, className: 'pos', step: true, area: true }],
        zero: true,
        heightPx: 150,
      })}`,
  );
  return { title: 'Position over time', html: charts.join('') || '<p>No market.</p>' };
}

export function priceSection(d: ReportData): ReportSection {
  const charts = d.prices.map((s) => {
    const own = d.fills.filter((f) => f.symbol === s.symbol);
    const chart = timeChart({
      label: `${s.symbol} price with own fills`,
      unit: 'USD',
      series: [{ points: s.points, className: 'px' }],
      markers: own.map((f) => ({ tMs: f.tMs, v: f.price, className: f.side })),
    });
    const buys = own.filter((f) => f.side === 'buy').length;
    return `<h3>${escapeHtml(s.symbol)}: ${escapeHtml(d.priceLabel)}; <span class="buy-t">▲ ${buys} buys</span> <span class="sell-t">▼ ${own.length - buys} sells</span></h3>${chart}`;
  });
  return { title: 'Price and own fills', html: charts.join('') || '<p>No market.</p>' };
}

export function pnlSection(d: ReportData): ReportSection {
  const p = d.pnl;
  const chart = barChart(
    'PnL split, USD',
    [
      { label: 'spread capture', value: p.spreadCaptureUsd },
      { label: 'fees', value: -p.feesUsd },
      { label: 'funding', value: p.fundingUsd },
      { label: 'inventory', value: p.inventoryUsd },
      { label: 'total', value: p.totalUsd },
    ],
    2,
  );
  return {
    title: 'PnL split',
    html: `${chart}<p class="note">USD; total = spread capture − fees + funding + inventory. ${escapeHtml(p.basis)}</p>`,
  };
}

/** Filled share of the orders placed in each of `columns` equal time spans (null: none placed). */
export function fillRatios(orders: ReportData['orders'], t0Ms: number, t1Ms: number, columns: number): (number | null)[] {
  const placed = new Array<number>(columns).fill(0);
  const filled = new Array<number>(columns).fill(0);
  const span = t1Ms - t0Ms;
  for (const o of orders) {
    const c = span > 0 ? Math.min(columns - 1, Math.floor(((o.tMs - t0Ms) / span) * columns)) : 0;
    placed[c]!++;
    if (o.filled) filled[c]!++;
  }
  return placed.map((n, i) => (n > 0 ? filled[i]! / n : null));
}

export function fillRatioSection(d: ReportData): ReportSection {
  const n = d.orders.length;
  const filled = d.orders.filter((o) => o.filled).length;
  const head = `<p>${filled} of ${n} orders had a fill${n ? ` (${((filled / n) * 100).toFixed(1)}%)` : ''}.</p>`;
  if (n === 0) return { title: 'Fill ratio', html: head };
  const t0 = d.orders[0]!.tMs;
  const t1 = d.orders[n - 1]!.tMs;
  const chart = ratioColumns('share of the orders placed in each span that had a fill', t0, t1, fillRatios(d.orders, t0, t1, FILL_RATIO_COLUMNS));
  return { title: 'Fill ratio', html: `${head}<h3>Share of the orders placed in each of ${FILL_RATIO_COLUMNS} time spans that had a fill</h3>${chart}` };
}

export function symbolsSection(d: ReportData): ReportSection {
  const rows = d.symbols.map((r: ReportRow) => [
    r.strategy,
    r.symbol,
    String(r.fills),
    usd(r.volumeUsd),
    String(Number(r.buySize.toPrecision(12))),
    String(Number(r.sellSize.toPrecision(12))),
    usd(r.feesUsd),
    usd(r.fundingUsd),
    usd(r.realizedPnlUsd),
    usd(r.netPnlUsd),
    String(r.ordersPlaced),
    String(r.ordersFilled),
    r.fillRatio === null ? '' : `${(r.fillRatio * 100).toFixed(1)}%`,
  ]);
  const head = [
    'strategy',
    'symbol',
    'fills',
    'volume USD',
    'bought',
    'sold',
    'fees USD',
    'funding USD',
    'realized USD',
    'net USD',
    'orders',
    'filled',
    'fill ratio',
  ];
  return {
    title: 'Per symbol',
    html: `${table(head, rows, [false, false, ...head.slice(2).map(() => true)])}<p class="note">Realized is average-cost PnL of closed size before fees; net = realized − fees + funding (open positions not marked).</p>`,
  };
}

/** The page's sections, in order. Add one by passing `[...DEFAULT_SECTIONS, yourBuilder]` to renderReport. */
export const DEFAULT_SECTIONS: readonly SectionBuilder[] = [
  summarySection,
  equitySection,
  positionSection,
  priceSection,
  pnlSection,
  fillRatioSection,
  symbolsSection,
];

const CSS = `
:root{--fg:#1d232b;--muted:#5b6673;--grid:#e3e7ec;--eq:#2458c6;--px:#556070;--buy:#118a3e;--sell:#c4302b;--pos:#7a4fc2}
*{box-sizing:border-box}body{margin:0 auto;max-width:1180px;padding:16px 24px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg)}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--grid);padding-bottom:4px}h3{font-size:14px;font-weight:600;margin:14px 0 4px}
header p{margin:0;color:var(--muted)}nav a{margin-right:12px;color:var(--eq);text-decoration:none}
.chart{width:100%;height:auto;display:block;font-size:11px}.plot{fill:none;stroke:var(--grid)}.grid{stroke:var(--grid);fill:none}
.yl{text-anchor:end;dominant-baseline:middle;fill:var(--muted)}.xl{fill:var(--muted)}.empty{text-anchor:middle;fill:var(--muted)}
.line{fill:none;stroke-width:1.4;vector-effect:non-scaling-stroke}.area{stroke:none;opacity:.18}
.eq.line{stroke:var(--eq)}.px.line{stroke:var(--px)}.pos.line{stroke:var(--pos)}.pos.area{fill:var(--pos)}.neg.line{stroke:var(--sell)}.neg.area{fill:var(--sell)}
.marker{stroke:none;opacity:.85}.buy.marker{fill:var(--buy)}.sell.marker{fill:var(--sell)}.buy-t{color:var(--buy)}.sell-t{color:var(--sell)}
.bars .pos{fill:var(--eq)}.bars .neg{fill:var(--sell)}.col{fill:var(--eq)}.axis{stroke:var(--muted)}.bl{dominant-baseline:middle;font-size:13px}.bv{dominant-baseline:middle;font-size:13px}
table{border-collapse:collapse;font-size:13px;margin:6px 0}th,td{padding:3px 10px;border-bottom:1px solid var(--grid);text-align:left}.num{text-align:right;font-variant-numeric:tabular-nums}
.note{color:var(--muted);font-size:12px}.tip{position:fixed;pointer-events:none;background:#fff;border:1px solid var(--grid);padding:2px 6px;font-size:12px;display:none}
@media print{body{max-width:none;padding:0;font-size:11px}nav,.tip{display:none}section{break-inside:avoid}h2{break-after:avoid}.chart{max-height:9cm}@page{margin:12mm}}
`;

/** Shows the time and value under the pointer of any chart with data-t0 … attributes. */
const SCRIPT = `
(() => {
  const tip = document.querySelector('.tip');
  const pad = (n) => String(n).padStart(2, '0');
  const when = (ms) => { const d = new Date(ms); return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' + pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds()) + ' UTC'; };
  for (const svg of document.querySelectorAll('svg.chart[data-t0]')) {
    const [l, t, r, b] = svg.dataset.box.split(' ').map(Number);
    const t0 = Number(svg.dataset.t0), t1 = Number(svg.dataset.t1), v0 = Number(svg.dataset.v0), v1 = Number(svg.dataset.v1);
    svg.addEventListener('mousemove', (e) => {
      const m = svg.getScreenCTM();
      if (!m) return;
      const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
      if (p.x < l || p.x > r || p.y < t || p.y > b) { tip.style.display = 'none'; return; }
      const time = t0 + ((p.x - l) / (r - l)) * (t1 - t0);
      const value = v1 - ((p.y - t) / (b - t)) * (v1 - v0);
      tip.textContent = when(time) + ' · ' + value.toPrecision(6) + ' ' + svg.dataset.unit;
      tip.style.left = e.clientX + 12 + 'px';
      tip.style.top = e.clientY + 12 + 'px';
      tip.style.display = 'block';
    });
    svg.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
  }
})();
`;

const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'";

/** The page for `data` with `sections` (default DEFAULT_SECTIONS), as one self-contained HTML document. */
export function renderReport(data: ReportData, sections: readonly SectionBuilder[] = DEFAULT_SECTIONS): string {
  return renderPage(
    data.title,
    data.subtitle,
    sections.map((build) => build(data)).filter((s): s is ReportSection => s !== undefined),
  );
}

/** A self-contained page of built sections under a title (the report's shell: style, policy, navigation, hover script). */
export function renderPage(title: string, subtitle: string, sections: readonly ReportSection[]): string {
  const id = (i: number) => `s${i + 1}`;
  const nav = sections.map((s, i) => `<a href="#${id(i)}">${escapeHtml(s.title)}</a>`).join('');
  const body = sections.map((s, i) => `<section id="${id(i)}"><h2>${escapeHtml(s.title)}</h2>${s.html}</section>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>${escapeHtml(title)}</title><style>${CSS}</style></head>
<body><header><h1>${escapeHtml(title)}</h1><p>${escapeHtml(subtitle)}</p><nav>${nav}</nav></header>
${body}
<div class="tip"></div><script>${SCRIPT}</script></body></html>
`;
}

/** "from – to (UTC)" of a time range in epoch ms, or "no events". */
export function rangeText(t0Ms: number | undefined, t1Ms: number | undefined): string {
  if (t0Ms === undefined || t1Ms === undefined) return 'no events';
  return `${timeLabel(t0Ms, 86_400_000)} – ${timeLabel(t1Ms, 86_400_000)} UTC`;
}
