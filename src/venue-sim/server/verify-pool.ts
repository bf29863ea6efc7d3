// Ed25519 verification off the venue's main thread: requests are batched per event-loop turn into
// one transferred buffer for a worker thread, answered in submission order (a lone request is verified in place).
// Invariants: results resolve in the order submitted; a malformed, non-canonical or small-order key or signature
// verifies false (checked here, before the worker: keys once when first seen, signatures by a few byte comparisons).

import { Worker } from 'node:worker_threads';
import { SignatureVerifier, strictPublicKeyBytes, strictSignatureBytes } from '../../protocol/verify.js';

/** Verifies `signature` (base58) of `message` by `publicKey` (base58). */
export interface AsyncVerifier {
  verify(publicKey: string, message: Uint8Array, signature: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Verification on the calling thread (no worker). */
export function inlineVerifier(): AsyncVerifier {
  const v = new SignatureVerifier();
  return { verify: async (k, m, s) => v.verify(k, m, s), close: async () => undefined };
}

/** Worker body (CommonJS, evaluated): batch layout per item = u32 messageLength, key[32], signature[64], message. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createPublicKey, verify } = require('node:crypto');
const PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const keys = new Map();
function keyOf(raw) {
  const id = raw.toString('latin1');
  let k = keys.get(id);
  if (!k) {
    if (keys.size >= 10000) keys.clear();
    k = createPublicKey({ key: Buffer.concat([PREFIX, raw]), format: 'der', type: 'spki' });
    keys.set(id, k);
  }
  return k;
}
parentPort.on('message', (buf) => {
  const b = Buffer.from(buf);
  const n = b.readUInt32LE(0);
  const out = new Uint8Array(n);
  let p = 4;
  for (let i = 0; i < n; i++) {
    const len = b.readUInt32LE(p);
    const key = b.subarray(p + 4, p + 36);
    const sig = b.subarray(p + 36, p + 100);
    const msg = b.subarray(p + 100, p + 100 + len);
    p += 100 + len;
    try { out[i] = verify(null, msg, keyOf(key), sig) ? 1 : 0; } catch { out[i] = 0; }
  }
  parentPort.postMessage(out, [out.buffer]);
});
`;

interface Pending {
  publicKey: string;
  signatureText: string;
  /** Undefined when the key or signature is malformed or not strict (answered false without the worker). */
  key: Uint8Array | undefined;
  signature: Uint8Array | undefined;
  message: Uint8Array;
  resolve: (ok: boolean) => void;
}

/**
 * One worker thread verifying batches. If the worker fails, `onWorkerError` is told and every
 * pending and later request is verified on the calling thread instead (answers never hang).
 */
export function workerVerifier(onWorkerError: (e: unknown) => void = () => undefined): AsyncVerifier {
  // Verification allocates little and keeps nothing: a small young generation keeps the thread's memory small.
  const worker = new Worker(WORKER_SOURCE, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
  worker.unref();
  const fallback = new SignatureVerifier();
  let queued: Pending[] = [];
  const inFlight: Pending[][] = [];
  let scheduled = false;
  let healthy = true;
  /** An event-loop turn's first request, while the worker is idle, was verified here. */
  let inlineThisTurn = false;
  const nextTurn = () => (inlineThisTurn = false);

  const verifyHere = (batch: Pending[]) => {
    for (const p of batch) p.resolve(fallback.verify(p.publicKey, p.message, p.signatureText));
  };
  const failOver = (e: unknown) => {
    if (!healthy) return;
    healthy = false;
    onWorkerError(e);
    for (const batch of inFlight.splice(0)) verifyHere(batch);
  };
  worker.on('message', (results: Uint8Array) => {
    let r = 0;
    for (const p of inFlight.shift()!) p.resolve(p.key !== undefined && results[r++] === 1);
  });
  worker.on('error', failOver);
  worker.on('exit', (code) => failOver(new Error(`verify worker exited with code ${code}`)));

  const flush = () => {
    scheduled = false;
    const batch = queued;
    queued = [];
    if (!healthy) return verifyHere(batch);
    const wellFormed = batch.filter((p) => p.key !== undefined);
    let size = 4;
    for (const p of wellFormed) size += 100 + p.message.length;
    const buf = new ArrayBuffer(size);
    const bytes = new Uint8Array(buf);
    const view = new DataView(buf);
    view.setUint32(0, wellFormed.length, true);
    let at = 4;
    for (const p of wellFormed) {
      view.setUint32(at, p.message.length, true);
      bytes.set(p.key!, at + 4);
      bytes.set(p.signature!, at + 36);
      bytes.set(p.message, at + 100);
      at += 100 + p.message.length;
    }
    inFlight.push(batch);
    worker.postMessage(buf, [buf]);
  };

  return {
    verify(publicKey, message, signature) {
      // A lone request (worker idle, nothing queued, none verified here this turn) is verified at once: tens of µs
      // instead of a round trip through the worker thread. Later ones in the same turn are batched for the worker.
      if (!inlineThisTurn && queued.length === 0 && inFlight.length === 0) {
        inlineThisTurn = true;
        setImmediate(nextTurn);
        return Promise.resolve(fallback.verify(publicKey, message, signature));
      }
      const key = strictPublicKeyBytes(publicKey);
      const sig = key && strictSignatureBytes(signature);
      return new Promise((resolve) => {
        queued.push({ publicKey, signatureText: signature, key: sig && key, signature: sig, message, resolve });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    async close() {
      healthy = false;
      await worker.terminate();
      verifyHere(queued.splice(0));
      for (const batch of inFlight.splice(0)) verifyHere(batch);
    },
  };
}
