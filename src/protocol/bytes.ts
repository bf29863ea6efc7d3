// Growable little-endian byte writer for the bincode/wincode layouts of both dialects.
// Invariant: one writer is reused per signing call; `bytes()` returns a copy safe to keep.

import { ValidationError } from '../core/errors.js';

const encoder = new TextEncoder();
const U64_MAX = (1n << 64n) - 1n;

export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buf.buffer);
  }

  get length(): number {
    return this.pos;
  }

  reset(): this {
    this.pos = 0;
    return this;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v;
    return this;
  }

  bool(v: boolean): this {
    return this.u8(v ? 1 : 0);
  }

  u16(v: number): this {
    this.ensure(2);
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
    return this;
  }

  u32(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
    return this;
  }

  /** u64 little-endian; throws ValidationError (field `u64`) outside 0..2^64-1. */
  u64(v: bigint): this {
    if (v < 0n || v > U64_MAX) throw new ValidationError('u64', `value ${v} outside u64 range`);
    this.ensure(8);
    this.view.setBigUint64(this.pos, v, true);
    this.pos += 8;
    return this;
  }

  /** u64 from a non-negative safe integer (counts and lengths) without a bigint allocation. */
  len(v: number): this {
    this.ensure(8);
    this.view.setUint32(this.pos, v >>> 0, true);
    this.view.setUint32(this.pos + 4, Math.floor(v / 4294967296), true);
    this.pos += 8;
    return this;
  }

  f64(v: number): this {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
    return this;
  }

  raw(bytes: Uint8Array): this {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
    return this;
  }

  /** u64 byte length + UTF-8 bytes. */
  str(s: string): this {
    let ascii = true;
    for (let i = 0; i < s.length; i++) {
      if (s.charCodeAt(i) > 0x7f) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      this.len(s.length);
      this.ensure(s.length);
      for (let i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i);
      return this;
    }
    const bytes = encoder.encode(s);
    this.len(bytes.length);
    return this.raw(bytes);
  }

  /**
   * A copy of the bytes written so far, safe to keep. It lives in Node's pooled memory (a fresh
   * backing store per message costs more than a whole serialization), so its `.buffer` is shared.
   */
  bytes(): Uint8Array {
    const pooled = Buffer.allocUnsafe(this.pos);
    pooled.set(this.buf.subarray(0, this.pos));
    return new Uint8Array(pooled.buffer, pooled.byteOffset, this.pos);
  }

  /** A view of the bytes written so far; valid until the next write or reset. */
  subarray(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export function fromHex(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, 'hex'));
}
