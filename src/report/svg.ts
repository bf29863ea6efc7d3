// Inline SVG charts for the HTML report: time charts (lines, steps, areas, fill markers) and bar charts, drawn on a
// fixed 1000-unit-wide view box that scales to the page.
// Invariants: the output depends only on the arguments (no clock, no randomness); every series is downsampled to at
// most 4 points per plot column and markers to 2 per column and class, so a chart's size is bounded whatever the run's length.

import type { Point } from './data.js';
import { downsample, extremes } from './downsample.js';

const WIDTH = 1000;
const LEFT = 76;
const RIGHT = 12;
const TOP = 10;
const BOTTOM = 24;
/** Plot columns, one per view-box unit: the downsampling resolution. */
export const PLOT_COLUMNS = WIDTH - LEFT - RIGHT;

export interface LineSeries {
  readonly points: readonly Point[];
  /** CSS class of the path (colour). */
  readonly className: string;
  /** Draw as steps (the value holds until the next point), e.g. a position. */
  readonly step?: boolean;
  /** Fill the area between the line and zero. */
  readonly area?: boolean;
}

export interface Marker extends Point {
  /** CSS class and shape: 'buy' an upward triangle, 'sell' a downward one. */
  readonly className: 'buy' | 'sell';
}

export interface TimeChartOptions {
  /** Text for screen readers and the hover line's unit. */
  readonly label: string;
  readonly unit: string;
  readonly series: readonly LineSeries[];
  readonly markers?: readonly Marker[];
  /** Include zero in the value range. */
  readonly zero?: boolean;
  readonly heightPx?: number;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const n1 = (x: number) => (Math.round(x * 10) / 10).toString();

/** A round step near `raw` (1, 2 or 5 times a power of ten). */
function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/** `v` with the decimals `step` needs. */
export function formatNumber(v: number, step: number): string {
  const decimals = Math.min(10, Math.max(0, -Math.floor(Math.log10(step))));
  return (Object.is(v, -0) ? 0 : v).toFixed(decimals);
}

/** UTC time label: date and minutes for spans of a day or more, time of day otherwise (seconds under an hour). */
export function timeLabel(tMs: number, spanMs: number): string {
  const iso = new Date(tMs).toISOString();
  if (spanMs >= 86_400_000) return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  return spanMs >= 3_600_000 ? iso.slice(11, 16) : iso.slice(11, 19);
}

interface Frame {
  t0: number;
  t1: number;
  v0: number;
  v1: number;
  height: number;
  x(t: number): number;
  y(v: number): number;
}

function frame(t0: number, t1: number, lo: number, hi: number, height: number): Frame {
  if (hi - lo <= 0) {
    const pad = Math.abs(hi) > 0 ? Math.abs(hi) * 0.01 : 1;
    lo -= pad;
    hi += pad;
  }
  const padV = (hi - lo) * 0.04;
  const v0 = lo - padV;
  const v1 = hi + padV;
  const dt = t1 > t0 ? t1 - t0 : 1;
  const plotH = height - TOP - BOTTOM;
  return {
    t0,
    t1,
    v0,
    v1,
    height,
    x: (t) => LEFT + ((t - t0) / dt) * PLOT_COLUMNS,
    y: (v) => TOP + ((v1 - v) / (v1 - v0)) * plotH,
  };
}

/** Grid lines, value ticks on the left and time ticks below. */
function axes(f: Frame): string {
  const step = niceStep((f.v1 - f.v0) / 4);
  let grid = '';
  let labels = '';
  for (let v = Math.ceil(f.v0 / step) * step; v <= f.v1; v += step) {
    const y = n1(f.y(v));
    grid += `M${LEFT} ${y}H${WIDTH - RIGHT}`;
    labels += `<text class="yl" x="${LEFT - 6}" y="${y}">${formatNumber(v, step)}</text>`;
  }
  const span = f.t1 - f.t0;
  for (let i = 0; i <= 4; i++) {
    const t = f.t0 + (span * i) / 4;
    const anchor = i === 0 ? 'start' : i === 4 ? 'end' : 'middle';
    labels += `<text class="xl" x="${n1(f.x(t))}" y="${f.height - 6}" text-anchor="${anchor}">${timeLabel(t, span)}</text>`;
  }
  return `<path class="grid" d="${grid}"/>${labels}`;
}

function svgOpen(label: string, height: number, data: string): string {
  return `<svg class="chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(label)}"${data}><rect class="plot" x="${LEFT}" y="${TOP}" width="${PLOT_COLUMNS}" height="${height - TOP - BOTTOM}"/>`;
}

function noData(label: string, height: number): string {
  return `${svgOpen(label, height, '')}<text class="empty" x="${WIDTH / 2}" y="${height / 2}">no data</text></svg>`;
}

function linePath(points: readonly Point[], f: Frame, step: boolean): string {
  let d = '';
  points.forEach((p, i) => {
    const x = n1(f.x(p.tMs));
    const y = n1(f.y(p.v));
    d += i === 0 ? `M${x} ${y}` : step ? `H${x}V${y}` : `L${x} ${y}`;
  });
  return d;
}

/** A chart of values over time; the hover script reads its time and value range from the data attributes. */
export function timeChart(o: TimeChartOptions): string {
  const height = o.heightPx ?? 220;
  const markers = o.markers ?? [];
  if (o.series.every((s) => s.points.length === 0) && markers.length === 0) return noData(o.label, height);
  let t0 = Number.POSITIVE_INFINITY;
  let t1 = Number.NEGATIVE_INFINITY;
  let lo = o.zero ? 0 : Number.POSITIVE_INFINITY;
  let hi = o.zero ? 0 : Number.NEGATIVE_INFINITY;
  for (const points of [...o.series.map((s) => s.points), markers])
    for (const p of points) {
      if (p.tMs < t0) t0 = p.tMs;
      if (p.tMs > t1) t1 = p.tMs;
      if (p.v < lo) lo = p.v;
      if (p.v > hi) hi = p.v;
    }
  const f = frame(t0, t1, lo, hi, height);
  const data = ` data-t0="${t0}" data-t1="${t1}" data-v0="${f.v0}" data-v1="${f.v1}" data-box="${LEFT} ${TOP} ${WIDTH - RIGHT} ${height - BOTTOM}" data-unit="${escapeHtml(o.unit)}"`;
  let body = axes(f);
  for (const s of o.series) {
    if (s.points.length === 0) continue;
    const d = linePath(downsample(s.points, t0, t1, PLOT_COLUMNS), f, s.step === true);
    if (s.area) {
      const first = n1(f.x(s.points[0]!.tMs));
      body += `<path class="${s.className} area" d="${d}V${n1(f.y(0))}H${first}Z"/>`;
    }
    body += `<path class="${s.className} line" d="${d}"/>`;
  }
  for (const side of ['buy', 'sell'] as const) {
    const own = extremes(
      markers.filter((m) => m.className === side),
      (m) => m.tMs,
      (m) => m.v,
      () => side,
      t0,
      t1,
      PLOT_COLUMNS,
    );
    if (own.length === 0) continue;
    const tip = side === 'buy' ? 'l-3.5 7h7z' : 'l-3.5 -7h7z';
    body += `<path class="${side} marker" d="${own.map((m) => `M${n1(f.x(m.tMs))} ${n1(f.y(m.v))}${tip}`).join('')}"/>`;
  }
  return `${svgOpen(o.label, height, data)}${body}</svg>`;
}

export interface Bar {
  readonly label: string;
  readonly value: number;
}

/** Horizontal bars from a zero line, one row each, value printed at the bar's end with `decimals`. */
export function barChart(label: string, bars: readonly Bar[], decimals: number): string {
  const row = 30;
  const height = TOP + BOTTOM + row * bars.length;
  let lo = 0;
  let hi = 0;
  for (const b of bars) {
    lo = Math.min(lo, b.value);
    hi = Math.max(hi, b.value);
  }
  if (hi - lo <= 0) hi = 1;
  const left = 180;
  const right = WIDTH - 110;
  const x = (v: number) => left + 70 + ((v - lo) / (hi - lo)) * (right - left - 140);
  let pos = '';
  let neg = '';
  let text = '';
  bars.forEach((b, i) => {
    const y = TOP + i * row;
    const x0 = x(0);
    const x1 = x(b.value);
    const bar = `M${n1(Math.min(x0, x1))} ${y + 6}h${n1(Math.max(0.5, Math.abs(x1 - x0)))}v${row - 12}h${n1(-Math.max(0.5, Math.abs(x1 - x0)))}z`;
    if (b.value < 0) neg += bar;
    else pos += bar;
    text += `<text class="bl" x="${left - 20}" y="${y + row / 2}" text-anchor="end">${escapeHtml(b.label)}</text>`;
    text += `<text class="bv" x="${n1(b.value < 0 ? Math.min(x0, x1) - 6 : Math.max(x0, x1) + 6)}" y="${y + row / 2}" text-anchor="${b.value < 0 ? 'end' : 'start'}">${b.value.toFixed(decimals)}</text>`;
  });
  const zero = `<path class="axis" d="M${n1(x(0))} ${TOP}V${height - BOTTOM}"/>`;
  const paths = `${pos ? `<path class="pos" d="${pos}"/>` : ''}${neg ? `<path class="neg" d="${neg}"/>` : ''}`;
  return `<svg class="chart bars" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(label)}">${zero}${paths}${text}</svg>`;
}

/** Columns over time: each of `buckets` time spans drawn with height value(bucket) on a 0..1 scale. */
export function ratioColumns(label: string, t0Ms: number, t1Ms: number, values: readonly (number | null)[]): string {
  const height = 180;
  const f = frame(t0Ms, t1Ms, 0, 1, height);
  const w = PLOT_COLUMNS / values.length;
  let d = '';
  values.forEach((v, i) => {
    if (v === null) return;
    const x = LEFT + i * w;
    d += `M${n1(x + w * 0.1)} ${n1(f.y(0))}V${n1(f.y(v))}h${n1(w * 0.8)}V${n1(f.y(0))}z`;
  });
  const data = ` data-t0="${t0Ms}" data-t1="${t1Ms}" data-v0="${f.v0}" data-v1="${f.v1}" data-box="${LEFT} ${TOP} ${WIDTH - RIGHT} ${height - BOTTOM}" data-unit=""`;
  return `${svgOpen(label, height, data)}${axes(f)}${d ? `<path class="col" d="${d}"/>` : ''}</svg>`;
}
