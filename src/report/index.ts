// The report area's public surface: the data shape, its two sources, the page generator and its section builders.
// Invariant: re-exports only.

export type { OrderMark, OwnFill, PnlParts, Point, ReportData, SymbolSeries } from './data.js';
export { downsample } from './downsample.js';
export { BACKTEST_STRATEGIES, fromBacktest } from './from-backtest.js';
export { fromJournal } from './from-journal.js';
export { compareSection } from './compare-section.js';
export { DEFAULT_SECTIONS, renderPage, renderReport, table, type ReportSection, type SectionBuilder } from './html.js';
export { barChart, escapeHtml, PLOT_COLUMNS, timeChart, type Bar, type LineSeries, type Marker, type TimeChartOptions } from './svg.js';
