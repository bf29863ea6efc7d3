// Byte copies of order ids, one 48-byte entry per Order object (reused with it), so history rows copy an id as 12 words.
// Invariant: the entry of an order whose idState is ID_LOADED holds that order's id (length byte, then one byte per character).

/** bytes of an id field: a length byte and up to 47 characters */
export const ID_BYTES = 48;
export const ID_WORDS = ID_BYTES / 4;
/** idState of an Order: the entry is not filled yet / holds the id / cannot hold it (too long or not latin-1) */
export const ID_UNLOADED = 0;
export const ID_LOADED = 1;
export const ID_TOO_WIDE = 2;

export class IdBytes {
  i32 = new Int32Array(ID_WORDS * 256);
  private u8 = new Uint8Array(this.i32.buffer);
  private used = 0;
  private readonly free: number[] = [];

  alloc(): number {
    const e = this.free.pop();
    if (e !== undefined) return e;
    if (this.used * ID_WORDS === this.i32.length) {
      const i32 = new Int32Array(this.i32.length * 2);
      i32.set(this.i32);
      this.i32 = i32;
      this.u8 = new Uint8Array(i32.buffer);
    }
    return this.used++;
  }

  release(e: number): void {
    this.free.push(e);
  }

  /** Copies `id` into entry `e`; returns ID_LOADED, or ID_TOO_WIDE when it does not fit. */
  load(e: number, id: string): number {
    const n = id.length;
    if (n >= ID_BYTES) return ID_TOO_WIDE;
    const u8 = this.u8;
    const at = e * ID_BYTES;
    let wide = 0;
    for (let i = 0; i < n; i++) {
      const c = id.charCodeAt(i);
      wide |= c;
      u8[at + 1 + i] = c;
    }
    if (wide > 255) return ID_TOO_WIDE;
    u8[at] = n;
    return ID_LOADED;
  }
}
