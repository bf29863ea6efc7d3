import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalingSubmitter } from '../../../../src/app/daemon/recording.js';
import { ManualClock } from '../../../../src/core/clock.js';
import { Keypair } from '../../../../src/protocol/keys.js';
import { v1OrderActions } from '../../../../src/protocol/orders.js';
import { signRequest } from '../../../../src/protocol/sign.js';
import { v1Codec } from '../../../../src/protocol/v1/codec.js';
import { Journal } from '../../../../src/store/index.js';

const T0_NS = 1_767_225_600_000_000_000n;

describe('journalingSubmitter', () => {
  it('journals each batch at its request time and the answer with the time it arrived', async () => {
    const journal = Journal.open(join(mkdtempSync(join(tmpdir(), 'perpbot-js-')), 'j.sqlite'));
    const key = Keypair.fromBytes(new Uint8Array(32).fill(3));
    const clock = new ManualClock(T0_NS);
    const submitter = journalingSubmitter(journal, key.publicKey, clock, {
      submit: async () => {
        clock.set(T0_NS + 3_500_000n);
        return { outcome: 'accepted', items: [] };
      },
    });
    const request = signRequest(v1Codec, key, {
      actions: v1OrderActions([
        { kind: 'place', spec: { symbol: 'BTC-USD', side: 'buy', price: 100, size: 1, tif: 'GTC', reduceOnly: false }, cloid: undefined },
      ]),
      account: key.publicKey,
      signer: key.publicKey,
      nonce: T0_NS,
      network: 'mainnet',
      mode: 'raw',
    });
    await submitter.submit(request);
    expect(journal.batchRoundTrips()).toEqual([{ atNs: T0_NS, answeredNs: T0_NS + 3_500_000n }]);
    journal.close();
  });
});
