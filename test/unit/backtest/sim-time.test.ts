import { describe, expect, it } from 'vitest';
import { RealTime } from '../../../src/backtest/sim-time.js';
import { until } from '../../support/until.js';

describe("RealTime (the simulated venue on the machine's time: paper trading)", () => {
  it('runs queued work in time order, work queued for one time in the order queued, none before its time', async () => {
    const time = new RealTime();
    const ran: { name: string; lateNs: number }[] = [];
    const at = (name: string, inMs: number) => {
      const atNs = time.nowRelNs + inMs * 1e6;
      time.at(atNs, () => ran.push({ name, lateNs: time.nowRelNs - atNs }), 0);
      return atNs;
    };
    const t = at('c', 30);
    at('a', 5);
    time.at(t, () => ran.push({ name: 'd', lateNs: time.nowRelNs - t }), 0);
    at('b', 10);
    await until(() => ran.length === 4, 'four items run', 5_000, 5);
    expect(ran.map((r) => r.name)).toEqual(['a', 'b', 'c', 'd']);
    for (const r of ran) expect(r.lateNs).toBeGreaterThanOrEqual(0);
    time.close();
  });

  it('drops what is queued when closed', async () => {
    const time = new RealTime();
    let ran = false;
    time.at(time.nowRelNs + 5e6, () => (ran = true), 0);
    time.close();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(ran).toBe(false);
  });
});
