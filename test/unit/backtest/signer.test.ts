import { describe, expect, it } from 'vitest';
import { unverifiedSigner } from '../../../src/backtest/signer.js';
import { Keypair } from '../../../src/protocol/keys.js';
import { v1OrderActions } from '../../../src/protocol/orders.js';
import { signRequest } from '../../../src/protocol/sign.js';
import { v1Codec } from '../../../src/protocol/v1/codec.js';

describe('the backtest signer', () => {
  it('signs for the key’s public key with a constant signature; the body and order ids are the Ed25519-signed request’s', () => {
    const key = Keypair.fromBytes(new Uint8Array(32).fill(3));
    const input = {
      actions: v1OrderActions([
        { kind: 'place', spec: { symbol: 'BTC-USD', side: 'buy', price: 100, size: 1, tif: 'GTC', reduceOnly: false }, cloid: undefined },
      ]),
      account: key.publicKey,
      signer: key.publicKey,
      nonce: 1_700_000_000_000_000_000n,
      network: 'mainnet' as const,
      mode: 'raw' as const,
    };
    const real = signRequest(v1Codec, key, input);
    const cheap = signRequest(v1Codec, unverifiedSigner(key.publicKey), input);
    expect(cheap.signature).toBe('1'.repeat(64));
    expect(cheap.bodyText).toBe(real.bodyText.replace(real.signature, cheap.signature));
    expect(cheap.encoded.orderIds).toEqual(real.encoded.orderIds);
    expect(() => signRequest(v1Codec, unverifiedSigner(Keypair.fromBytes(new Uint8Array(32).fill(4)).publicKey), input)).toThrow(/not the declared signer/);
  });
});
