// Unmasked server WebSocket text frames, written back to back into one Buffer for a bench's server to send at once.
// Invariant: no Buffer per frame, not even a short-lived one. The `ingest` bench used to keep one Buffer per frame
// (200,000, alive until concatenated); in most processes V8 then allocated Node's Buffer objects straight into the old
// generation (allocation-site pretenuring), the measured client's per-frame Buffers from ws included, and every
// scavenge promoted about 1.8 MB of the young objects they pointed to (`--no-allocation-site-pretenuring` removed it).

/** The frames whose payloads are `texts` (UTF-8, each under 64 KiB), in order. */
export function wsTextFrames(texts: readonly string[]): Buffer {
  const sizes = new Uint32Array(texts.length);
  let total = 0;
  for (let i = 0; i < texts.length; i++) {
    const n = Buffer.byteLength(texts[i]!);
    if (n >= 65536) throw new RangeError(`a bench frame holds under 64 KiB, got ${n} bytes`);
    sizes[i] = n;
    total += (n < 126 ? 2 : 4) + n;
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    const n = sizes[i]!;
    out[at++] = 0x81;
    if (n < 126) out[at++] = n;
    else {
      out[at++] = 126;
      at = out.writeUInt16BE(n, at);
    }
    at += out.write(texts[i]!, at, 'utf8');
  }
  return out;
}
