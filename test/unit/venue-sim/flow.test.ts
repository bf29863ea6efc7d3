// The market flow beside another oracle source: it follows the venue's oracle price instead of
// publishing a reference the oracle band refuses. Invariant: a flow round never throws for that.

import { describe, expect, it } from 'vitest';
import { MarketFlow } from '../../../src/venue-sim/flow.js';
import { makeEngine } from './helpers.js';

describe('market flow and an external oracle', () => {
  it('re-anchors its reference on an oracle price another source set, so its rounds stay inside the band', () => {
    const { engine, clock } = makeEngine();
    const flow = new MarketFlow(engine, { seed: 3 });
    flow.step();
    const start = flow.reference('BTC-USD')!;
    // another oracle key walks the price up by ×1.9 twice: 3.6 times the flow's reference
    for (const k of [1.9, 1.9 * 1.9]) {
      clock.advance(1_000_000);
      engine.setOraclePrice('BTC-USD', Math.round(start * k));
      clock.advance(1_000_000);
      flow.step();
    }
    expect(flow.reference('BTC-USD')! / start).toBeGreaterThan(3.5);
    expect(engine.marketState('BTC-USD')!.oraclePrice / start).toBeGreaterThan(3.5);
    expect(engine.selfCheck()).toEqual([]);
  });
});
