// Test fakes for the risk engine: a settable RiskView and op builders.

import { filter, firstValueFrom, timeout } from 'rxjs';
import type { OrderSpec } from '../../../src/core/intent.js';
import type { RiskViewWithSymbols } from '../../../src/risk/engine.js';
import type { PlannedOp, RiskGate, TradingStateChange } from '../../../src/risk/types.js';

/** 2023-11-14T22:13:20Z */
export const NOW_MS = 1_700_000_000_000;

export class FakeView implements RiskViewWithSymbols {
  marks = new Map<string, number>();
  positions = new Map<string, number>();
  open = new Map<string, { buy: number; sell: number }>();
  markets = new Map<string, { maxLeverage: number }>();
  openCount = 0;
  equity: number | undefined = 100_000;
  pnlToday = 0;
  /** When false, the view has no symbols() (the gate falls back to the symbols it has seen). */
  listsSymbols = true;

  constructor(markets: Record<string, { mark?: number; maxLeverage?: number }> = {}) {
    for (const [symbol, m] of Object.entries(markets)) {
      this.markets.set(symbol, { maxLeverage: m.maxLeverage ?? 10 });
      if (m.mark !== undefined) this.marks.set(symbol, m.mark);
    }
  }

  markPrice(symbol: string): number | undefined {
    return this.marks.get(symbol);
  }
  position(symbol: string): number {
    return this.positions.get(symbol) ?? 0;
  }
  openOrderSizes(symbol: string): { buy: number; sell: number } {
    return this.open.get(symbol) ?? { buy: 0, sell: 0 };
  }
  openOrderCount(): number {
    return this.openCount;
  }
  equityUsd(): number | undefined {
    return this.equity;
  }
  pnlTodayUsd(): number {
    return this.pnlToday;
  }
  market(symbol: string): { maxLeverage: number } | undefined {
    return this.markets.get(symbol);
  }
  get symbols(): (() => Iterable<string>) | undefined {
    return this.listsSymbols ? () => new Set([...this.positions.keys(), ...this.open.keys()]) : undefined;
  }
}

export function place(order: Partial<OrderSpec> & { symbol: string }, dataTimeMs = NOW_MS, strategy = 's1'): PlannedOp {
  return {
    kind: 'place',
    strategy,
    order: { side: 'buy', size: 1, tif: 'GTC', reduceOnly: false, ...order },
    stamp: { dataTimeMs, dataVersion: 1 },
  };
}

export function cancel(symbol: string, strategy = 's1'): PlannedOp {
  return { kind: 'cancel', strategy, symbol };
}

/** Every state change the gate publishes, current first. */
export function record(gate: RiskGate): TradingStateChange[] {
  const out: TradingStateChange[] = [];
  gate.state$.subscribe((s) => out.push(s));
  return out;
}

/** Resolves with the first published state satisfying `pred` (rejects after `ms`). */
export function nextState(gate: RiskGate, pred: (s: TradingStateChange) => boolean, ms = 5_000): Promise<TradingStateChange> {
  return firstValueFrom(gate.state$.pipe(filter(pred), timeout(ms)));
}
