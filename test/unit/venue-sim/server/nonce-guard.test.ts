import { describe, expect, it } from 'vitest';
import { NonceGuard } from '../../../../src/venue-sim/server/nonce-guard.js';

const NOW = 1_763_770_000_000_000_000n;
const HOUR = 3_600_000_000_000n;

describe('NonceGuard', () => {
  it('accepts fresh nonces and rejects a reused one', () => {
    const g = new NonceGuard();
    expect(g.check('A', NOW, NOW)).toBeUndefined();
    g.accept('A', NOW);
    expect(g.check('A', NOW, NOW)).toBe('nonce already used');
    expect(g.check('B', NOW, NOW)).toBeUndefined();
  });

  it('rejects nonces more than 24 h from the venue clock, either way', () => {
    const g = new NonceGuard();
    expect(g.check('A', NOW - 25n * HOUR, NOW)).toMatch(/24 hours/);
    expect(g.check('A', NOW + 25n * HOUR, NOW)).toMatch(/24 hours/);
    expect(g.check('A', NOW - 23n * HOUR, NOW)).toBeUndefined();
  });

  it('once 100 are kept, a nonce at or below the smallest of the 100 highest is stale, and no evicted nonce can be replayed', () => {
    const g = new NonceGuard({ window: 100 });
    const used: bigint[] = [];
    let seed = 12345;
    for (let i = 0; i < 1000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const n = NOW + BigInt(seed % 100_000);
      if (g.check('A', n, NOW) === undefined) {
        g.accept('A', n);
        used.push(n);
      }
    }
    expect(used.length).toBeGreaterThan(100);
    for (const n of used) expect(g.check('A', n, NOW)).toBeDefined();
    expect(new Set(used).size).toBe(used.length);
  });

  it('out-of-order nonces above the floor are accepted (concurrent senders)', () => {
    const g = new NonceGuard({ window: 3 });
    for (const n of [10n, 30n, 20n]) {
      expect(g.check('A', NOW + n, NOW)).toBeUndefined();
      g.accept('A', NOW + n);
    }
    expect(g.check('A', NOW + 15n, NOW)).toBeUndefined();
    expect(g.check('A', NOW + 5n, NOW)).toMatch(/stale/);
  });

  it('accepts any unused nonce while fewer than the window are kept, so requests that cross on the wire both pass (gaps-decided §3)', () => {
    const g = new NonceGuard({ window: 3 });
    for (const n of [50n, 70n]) {
      expect(g.check('A', NOW + n, NOW)).toBeUndefined();
      g.accept('A', NOW + n);
    }
    expect(g.check('A', NOW + 49n, NOW)).toBeUndefined();
    expect(g.check('A', NOW + 50n, NOW)).toBe('nonce already used');
    g.accept('A', NOW + 49n);
    expect(g.check('A', NOW + 48n, NOW)).toMatch(/stale nonce/);
    expect(g.check('A', NOW + 60n, NOW)).toBeUndefined();
  });
});
