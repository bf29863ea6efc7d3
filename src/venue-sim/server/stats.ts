// Rolling 24-hour market statistics for tickers and frontendContext: per-minute buckets per symbol.
// Invariant: memory is bounded (1440 buckets per symbol) whatever the trade rate.

const MINUTE_MS = 60_000;
const BUCKETS = 1440;

interface Bucket {
  minute: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  quoteVolume: number;
  trades: number;
}

/** One candle (venue-protocol §8.2 /klines): open time `t` and close time `T` in epoch ms, base volume `v`, `n` trades. */
export interface Candle {
  t: number;
  T: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  n: number;
}

export interface DayStats {
  /** first trade price inside the window, 0 if none */
  open: number;
  high: number;
  low: number;
  /** last trade price ever seen (0 before the first trade) */
  last: number;
  volume: number;
  quoteVolume: number;
  priceChange: number;
  priceChangePercent: number;
}

export class RollingStats {
  private readonly buckets = new Map<string, (Bucket | undefined)[]>();
  private readonly last = new Map<string, number>();

  /** Records one trade at epoch milliseconds `timeMs`. */
  record(symbol: string, px: number, sz: number, timeMs: number): void {
    let ring = this.buckets.get(symbol);
    if (!ring) this.buckets.set(symbol, (ring = new Array<Bucket | undefined>(BUCKETS)));
    const minute = Math.floor(timeMs / MINUTE_MS);
    const slot = minute % BUCKETS;
    let b = ring[slot];
    if (!b || b.minute !== minute) ring[slot] = b = { minute, open: px, high: px, low: px, close: px, volume: 0, quoteVolume: 0, trades: 0 };
    if (px > b.high) b.high = px;
    if (px < b.low) b.low = px;
    b.close = px;
    b.volume += sz;
    b.quoteVolume += px * sz;
    b.trades++;
    this.last.set(symbol, px);
  }

  /**
   * Candles of `intervalMs` (a whole number of minutes) with trades in [`startMs`, `endMs`], oldest first, from the
   * last 24 hours of per-minute buckets; intervals without trades are left out.
   */
  candles(symbol: string, intervalMs: number, startMs: number, endMs: number): Candle[] {
    const ring = this.buckets.get(symbol);
    if (!ring) return [];
    const minutes = ring.filter((b): b is Bucket => b !== undefined && b.minute * MINUTE_MS >= startMs && b.minute * MINUTE_MS <= endMs);
    minutes.sort((x, y) => x.minute - y.minute);
    const out: Candle[] = [];
    for (const b of minutes) {
      const t = Math.floor((b.minute * MINUTE_MS) / intervalMs) * intervalMs;
      const c = out.at(-1);
      if (c && c.t === t) {
        c.h = Math.max(c.h, b.high);
        c.l = Math.min(c.l, b.low);
        c.c = b.close;
        c.v += b.volume;
        c.n += b.trades;
      } else out.push({ t, T: t + intervalMs - 1, o: b.open, h: b.high, l: b.low, c: b.close, v: b.volume, n: b.trades });
    }
    return out;
  }

  /** Statistics of the 24 hours up to `nowMs`. */
  day(symbol: string, nowMs: number): DayStats {
    const last = this.last.get(symbol) ?? 0;
    const out: DayStats = { open: 0, high: 0, low: 0, last, volume: 0, quoteVolume: 0, priceChange: 0, priceChangePercent: 0 };
    const ring = this.buckets.get(symbol);
    if (!ring) return out;
    const now = Math.floor(nowMs / MINUTE_MS);
    let firstMinute = Infinity;
    for (const b of ring) {
      if (!b || b.minute <= now - BUCKETS || b.minute > now) continue;
      if (b.minute < firstMinute) {
        firstMinute = b.minute;
        out.open = b.open;
      }
      out.high = out.high === 0 ? b.high : Math.max(out.high, b.high);
      out.low = out.low === 0 ? b.low : Math.min(out.low, b.low);
      out.volume += b.volume;
      out.quoteVolume += b.quoteVolume;
    }
    if (out.open > 0) {
      out.priceChange = last - out.open;
      out.priceChangePercent = (out.priceChange / out.open) * 100;
    }
    return out;
  }
}
