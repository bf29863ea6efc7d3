// Seeded randomness for the engine (xoshiro128**), including the 32-byte ids it generates itself.
// Invariant: the same seed yields the same sequence on every platform; nothing here reads the clock or Math.random.

import { base58Encode } from '../../protocol/base58.js';

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      // splitmix32
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next() | 1;
  }

  /** Uniform unsigned 32-bit integer. */
  nextU32(): number {
    const r = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return r;
  }

  /** 32 random bytes as base58 text, shaped like an order id on the wire. */
  nextId(): string {
    const bytes = new Uint8Array(32);
    for (let i = 0; i < 32; i += 4) {
      const v = this.nextU32();
      bytes[i] = v >>> 24;
      bytes[i + 1] = (v >>> 16) & 255;
      bytes[i + 2] = (v >>> 8) & 255;
      bytes[i + 3] = v & 255;
    }
    return base58Encode(bytes);
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
