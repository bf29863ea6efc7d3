import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../../src/core/clock.js';
import { FileNonceStore, MemoryNonceStore, NonceSource } from '../../../src/protocol/nonce.js';

const SIGNER = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';

describe('NonceSource', () => {
  it('is strictly increasing even when the clock stands still or goes back', () => {
    const clock = new ManualClock(1_000n);
    const src = new NonceSource({ signer: SIGNER, clock, store: new MemoryNonceStore() });
    expect([src.next(), src.next(), src.next()]).toEqual([1_000n, 1_001n, 1_002n]);
    clock.set(500n);
    expect(src.next()).toBe(1_003n);
    clock.set(5_000n);
    expect(src.next()).toBe(5_000n);
  });

  it('with the system clock, 100,000 calls in a tight loop never repeat or decrease', () => {
    const src = new NonceSource({ signer: SIGNER, clock: systemClock(), store: new MemoryNonceStore() });
    let prev = src.next();
    let violations = 0;
    for (let i = 0; i < 100_000; i++) {
      const n = src.next();
      if (n <= prev) violations++;
      prev = n;
    }
    expect(violations).toBe(0);
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    expect(prev > nowNs - 60_000_000_000n && prev < nowNs + 60_000_000_000n).toBe(true);
  });

  it('never reuses a nonce across restarts, even when the clock went back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-nonce-'));
    const clock = new ManualClock(10_000_000_000n);
    const first = new NonceSource({ signer: SIGNER, clock, store: new FileNonceStore(dir), reserveNs: 1_000n });
    let last = 0n;
    for (let i = 0; i < 5000; i++) last = first.next();
    const mark = BigInt(readFileSync(join(dir, `${SIGNER}.nonce`), 'utf8').trim());
    expect(mark >= last).toBe(true);
    clock.set(1n);
    const second = new NonceSource({ signer: SIGNER, clock, store: new FileNonceStore(dir), reserveNs: 1_000n });
    expect(second.next() > last).toBe(true);
  });

  it('writes the store rarely: once per reserve window', () => {
    let saves = 0;
    const store = new MemoryNonceStore();
    const counting = { load: (s: string) => store.load(s), save: (s: string, v: bigint) => (saves++, store.save(s, v)) };
    const clock = new ManualClock(0n);
    const src = new NonceSource({ signer: SIGNER, clock, store: counting, reserveNs: 1_000_000n });
    for (let i = 0; i < 10_000; i++) {
      clock.advanceMs(0.001);
      src.next();
    }
    expect(saves).toBeLessThanOrEqual(11);
    expect(saves).toBeGreaterThanOrEqual(10);
  });

  it('keepReserved renews an idle signer’s reservation once less than half is left, without moving its nonces', () => {
    const marks: bigint[] = [];
    const store = new MemoryNonceStore();
    const recording = { load: (s: string) => store.load(s), save: (s: string, v: bigint) => (marks.push(v), store.save(s, v)) };
    const clock = new ManualClock(1_000_000_000n);
    const src = new NonceSource({ signer: SIGNER, clock, store: recording, reserveNs: 10_000_000_000n });
    expect(src.next()).toBe(1_000_000_000n);
    expect(marks).toHaveLength(1);
    clock.advanceMs(4_000);
    src.keepReserved();
    expect(marks).toHaveLength(1);
    clock.advanceMs(2_000);
    src.keepReserved();
    expect(marks).toHaveLength(2);
    expect(marks[1]).toBe(clock.nowNs() + 10_000_000_000n);
    expect(src.leadNs()).toBe(0n);
    expect(src.next()).toBe(clock.nowNs());
  });

  it('rejects a corrupt high-water file instead of starting from zero', () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-nonce-'));
    const store = new FileNonceStore(dir);
    store.save(SIGNER, 42n);
    expect(store.load(SIGNER)).toBe(42n);
    writeFileSync(join(dir, `${SIGNER}.nonce`), 'garbage');
    expect(() => store.load(SIGNER)).toThrow(/corrupt/);
  });
});
