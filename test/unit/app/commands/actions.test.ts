import { describe, expect, it } from 'vitest';
import { failedItems } from '../../../../src/app/commands/actions.js';

describe('failedItems', () => {
  it("finds every refused item of either dialect's answer, with the venue's reason", () => {
    const statuses = [
      { resting: { oid: 'o1' } },
      { rejectedCrossing: { oid: 'o2' } },
      { error: { message: 'Insufficient margin' } },
      { depositFailed: { message: 'Rate limit exceeded' } },
      { agentWalletFailed: { message: 'Unauthorized' } },
      { cancelOneRejected: { oid: 'o3', reason: 'order not found' } },
      { agentWallet: { agentWallet: 'a' } },
      { deposit: { amount: 10_000 } },
    ];
    expect(failedItems(statuses)).toEqual([
      { index: 1, status: 'rejectedCrossing', reason: 'no reason given' },
      { index: 2, status: 'error', reason: 'Insufficient margin' },
      { index: 3, status: 'depositFailed', reason: 'Rate limit exceeded' },
      { index: 4, status: 'agentWalletFailed', reason: 'Unauthorized' },
      { index: 5, status: 'cancelOneRejected', reason: 'order not found' },
    ]);
  });
});
