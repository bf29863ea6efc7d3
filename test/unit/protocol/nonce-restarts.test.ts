import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { FileNonceStore, MemoryNonceStore, NonceSource, type NonceStore } from '../../../src/protocol/nonce.js';

const SIGNER = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
const S = 1_000_000_000n;
const RESERVE = 10n * S;

/** The persisted mark's lead over the clock, ns. */
const markLead = (store: NonceStore, clock: ManualClock) => store.load(SIGNER)! - clock.nowNs();

describe('NonceSource across restarts', () => {
  it('100 restarts one second apart, each using a few nonces, keep the mark and the next nonce within the reserve window of the clock', () => {
    const store = new FileNonceStore(mkdtempSync(join(tmpdir(), 'perpbot-nonce-restarts-')));
    const clock = new ManualClock(1_700_000_000n * S);
    let last = 0n;
    for (let restart = 0; restart < 100; restart++) {
      const source = new NonceSource({ signer: SIGNER, clock, store, reserveNs: RESERVE });
      for (let i = 0; i < 3; i++) {
        const n = source.next();
        expect(n).toBeGreaterThan(last);
        last = n;
      }
      expect(source.leadNs()).toBeLessThanOrEqual(RESERVE);
      expect(markLead(store, clock)).toBeLessThanOrEqual(RESERVE + 1_000_000n);
      clock.advanceMs(1000);
    }
  });

  it('a mark already far ahead (an older version, a clock that went back) is not pushed further by restarts', () => {
    const store = new MemoryNonceStore();
    const clock = new ManualClock(1_700_000_000n * S);
    store.save(SIGNER, clock.nowNs() + 3600n * S);
    for (let restart = 0; restart < 50; restart++) {
      const source = new NonceSource({ signer: SIGNER, clock, store, reserveNs: RESERVE });
      source.next();
      expect(source.leadNs()).toBeLessThanOrEqual(3600n * S + 50n * 2_000_000n);
    }
    expect(markLead(store, clock)).toBeLessThan(3600n * S + S);
  });

  it('renews the mark after the caller, before it runs out: the hot path does not write while nonces are used steadily', async () => {
    let saves = 0;
    const inner = new MemoryNonceStore();
    const store: NonceStore = { load: (s) => inner.load(s), save: (s, v) => (saves++, inner.save(s, v)) };
    const clock = new ManualClock(1_700_000_000n * S);
    const source = new NonceSource({ signer: SIGNER, clock, store, reserveNs: RESERVE });
    source.next();
    expect(saves).toBe(1);
    let syncSaves = 0;
    for (let i = 0; i < 100; i++) {
      clock.advanceMs(1000);
      const before = saves;
      source.next();
      syncSaves += saves - before;
      await new Promise((r) => setImmediate(r));
    }
    expect(syncSaves).toBe(0);
    // About once per half window (5 s of the 100 s), never per nonce.
    expect(saves).toBeGreaterThan(1);
    expect(saves).toBeLessThanOrEqual(100 / 5 + 1);
    expect(markLead(store, clock)).toBeGreaterThan(0n);
  });
});
