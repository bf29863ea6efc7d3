import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Keypair } from '../../../../src/protocol/keys.js';
import { inlineVerifier, workerVerifier, type AsyncVerifier } from '../../../../src/venue-sim/server/verify-pool.js';

let verifier: AsyncVerifier | undefined;
afterEach(async () => {
  await verifier?.close();
  verifier = undefined;
});

function cases() {
  const key = Keypair.generate();
  const other = Keypair.generate();
  return Array.from({ length: 300 }, (_, i) => {
    const message = new Uint8Array(randomBytes(20 + (i % 200)));
    const signature = key.signBase58(message);
    switch (i % 5) {
      case 0:
        return { args: [key.publicKey, message, signature] as const, ok: true };
      case 1:
        return { args: [other.publicKey, message, signature] as const, ok: false };
      case 2:
        return { args: [key.publicKey, Uint8Array.of(...message, 1), signature] as const, ok: false };
      case 3:
        return { args: [key.publicKey, message, signature.slice(0, 40)] as const, ok: false };
      default:
        return { args: ['0OIl', message, signature] as const, ok: false };
    }
  });
}

describe.each([
  ['worker', () => workerVerifier()],
  ['inline', () => inlineVerifier()],
])('%s verifier', (_name, make) => {
  it('answers every request correctly and in submission order, across batches', async () => {
    verifier = make();
    const all = cases();
    const order: number[] = [];
    const results = await Promise.all(
      all.map((c, i) =>
        verifier!.verify(...c.args).then((ok) => {
          order.push(i);
          return ok;
        }),
      ),
    );
    expect(results).toEqual(all.map((c) => c.ok));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const later = cases().slice(0, 10);
    expect(await Promise.all(later.map((c) => verifier!.verify(...c.args)))).toEqual(later.map((c) => c.ok));
  });
});

describe('worker verifier, a lone request', () => {
  it('is verified in place at once; a second one in the same turn goes to the worker', async () => {
    verifier = workerVerifier();
    const [good, bad] = cases();
    const settled: boolean[] = [];
    const first = verifier.verify(...good!.args).then((ok) => settled.push(ok));
    const second = verifier.verify(...bad!.args).then((ok) => settled.push(ok));
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(settled).toEqual([true]); // the worker's answer needs a later turn
    await Promise.all([first, second]);
    expect(settled).toEqual([true, false]);
  });
});

describe('worker verifier fail-over', () => {
  it('keeps answering correctly on the calling thread once the worker is gone', async () => {
    const errors: unknown[] = [];
    verifier = workerVerifier((e) => errors.push(e));
    const all = cases().slice(0, 20);
    expect(await Promise.all(all.map((c) => verifier!.verify(...c.args)))).toEqual(all.map((c) => c.ok));
    await verifier.close();
    const after = cases().slice(0, 10);
    expect(await Promise.all(after.map((c) => verifier!.verify(...c.args)))).toEqual(after.map((c) => c.ok));
    expect(errors).toEqual([]);
  });
});
