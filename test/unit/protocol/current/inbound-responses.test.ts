import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/core/errors.js';
import { parseCurrentActionResponse } from '../../../../src/protocol/current/inbound-responses.js';

const key = (byte: number) => bs58.encode(new Uint8Array(32).fill(byte));
const oid = key(0x44);
const USER = key(0x11);
const SUB = key(0x66);
const AGENT = key(0x55);

const ok = (statuses: unknown[], status = 'ok') => ({ status, response: { type: 'order', data: { statuses } } });

// One entry per status key of venue-protocol §8.4 (and §4.3 for sub-accounts and transfers): [wire entry, model entry].
const entries: [string, Record<string, unknown>, Record<string, unknown>][] = [
  ['resting', { resting: { oid } }, { resting: { oid } }],
  [
    'working',
    { working: { oid, filledSz: -0.25, remainingSz: -0.75, vwap: 100000 } },
    { working: { oid, filledSz: 0.25, remainingSz: 0.75, vwap: 100000, isBuy: false } },
  ],
  ['triggered', { triggered: { oid } }, { triggered: { oid } }],
  ['filled', { filled: { oid, totalSz: -1, avgPx: 100000.5 } }, { filled: { oid, totalSz: 1, avgPx: 100000.5, isBuy: false } }],
  ['partiallyFilled', { partiallyFilled: { oid, totalSz: 0.4, avgPx: 100001 } }, { partiallyFilled: { oid, totalSz: 0.4, avgPx: 100001, isBuy: true } }],
  ['cancelled', { cancelled: { oid } }, { cancelled: { oid } }],
  ['cancelledRiskLimit', { cancelledRiskLimit: { oid, reason: 'insufficient margin' } }, { cancelledRiskLimit: { oid, reason: 'insufficient margin' } }],
  ['cancelledSelfCrossing', { cancelledSelfCrossing: { oid } }, { cancelledSelfCrossing: { oid } }],
  ['cancelledReduceOnly', { cancelledReduceOnly: { oid } }, { cancelledReduceOnly: { oid } }],
  ['cancelledIoc', { cancelledIoc: { oid, filledSz: -0.1 } }, { cancelledIOC: { oid, filledSz: 0.1 } }],
  ['cancelledIOC', { cancelledIOC: { oid, filledSz: 0 } }, { cancelledIOC: { oid, filledSz: 0 } }],
  ['rejectedCrossing', { rejectedCrossing: { oid } }, { rejectedCrossing: { oid } }],
  ['rejectedDuplicate', { rejectedDuplicate: { oid } }, { rejectedDuplicate: { oid } }],
  ['rejectedRiskLimit', { rejectedRiskLimit: { oid } }, { rejectedRiskLimit: { oid } }],
  ['rejectedInvalid', { rejectedInvalid: { oid, reason: 'price not on tick' } }, { rejectedInvalid: { oid, reason: 'price not on tick' } }],
  ['triggerFailed', { triggerFailed: { oid, reason: 'insufficient margin at trigger' } }, { triggerFailed: { oid, reason: 'insufficient margin at trigger' } }],
  ['siblingCancelled', { siblingCancelled: { oid } }, { siblingCancelled: { oid } }],
  ['cancelOneRejected', { cancelOneRejected: { oid, reason: 'unknown order' } }, { cancelOneRejected: { oid, reason: 'unknown order' } }],
  ['cancelAllRejected', { cancelAllRejected: { reason: 'nothing to cancel' } }, { cancelAllRejected: { reason: 'nothing to cancel' } }],
  ['deposit', { deposit: { amount: 10000 } }, { deposit: { amount: 10000 } }],
  ['depositFailed', { depositFailed: { message: 'Rate limit exceeded' } }, { depositFailed: { message: 'Rate limit exceeded' } }],
  ['agentWallet', { agentWallet: { agentWallet: AGENT } }, { agentWallet: { agentWallet: AGENT } }],
  ['agentWallet (agent_wallet)', { agentWallet: { agent_wallet: AGENT } }, { agentWallet: { agentWallet: AGENT } }],
  ['agentWalletFailed', { agentWalletFailed: { message: 'Unauthorized' } }, { agentWalletFailed: { message: 'Unauthorized' } }],
  ['transfer', { transfer: { from: USER, to: SUB, symbol: 'USDC', amount: 250 } }, { transfer: { from: USER, to: SUB, symbol: 'USDC', amount: 250 } }],
  ['transferFailed', { transferFailed: { message: 'insufficient balance' } }, { transferFailed: { message: 'insufficient balance' } }],
  [
    'createSubAccount',
    { createSubAccount: { master: USER, sub: SUB, name: 'hedge', margin: 100 } },
    { createSubAccount: { master: USER, sub: SUB, name: 'hedge', margin: 100 } },
  ],
  ['removeSubAccount', { removeSubAccount: { account: SUB, marginMoved: 100 } }, { removeSubAccount: { account: SUB, marginMoved: 100 } }],
  ['renameSubAccount', { renameSubAccount: { a: SUB, n: 'scalp' } }, { renameSubAccount: { a: SUB, n: 'scalp' } }],
  ['multisigCreated', { multisigCreated: { multisig: SUB } }, { multisigCreated: { multisig: SUB } }],
  ['proposalExecuted', { proposalExecuted: { id: 7 } }, { proposalExecuted: { id: 7 } }],
  ['error', { error: { message: 'Insufficient margin' } }, { error: { message: 'Insufficient margin' } }],
];

// Broken entries and the field each names.
const broken: [string, unknown, string][] = [
  ['a filled entry without avgPx', { filled: { oid, totalSz: 1 } }, 'response.data.statuses[0].filled.avgPx'],
  ['a bad oid (reported under the canonical key)', { CANCELLEDIOC: { oid: 'x', filledSz: 0 } }, 'response.data.statuses[0].cancelledIoc.oid'],
  ['an agentWallet without a key', { agentWallet: {} }, 'response.data.statuses[0].agentWallet.agentWallet'],
  ['an unknown status', { expired: { oid } }, 'response.data.statuses[0].expired'],
  ['two keys in one entry', { resting: { oid }, cancelled: { oid } }, 'response.data.statuses[0]'],
  ['a proposal payload that is not an object', { proposalCreated: 3 }, 'response.data.statuses[0].proposalCreated'],
];

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).field;
  }
  throw new Error('expected a ValidationError');
}

describe('current POST /order answers (venue-protocol §8.4)', () => {
  it.each(entries)('%s: parses and maps onto the model', (_key, entry, model) => {
    expect(parseCurrentActionResponse(ok([entry]))).toEqual(ok([model]));
  });

  it.each(broken)('rejects %s naming the field', (_what, entry, field) => {
    expect(fieldOf(() => parseCurrentActionResponse(ok([entry])))).toBe(field);
  });

  it('keys v1 shares use v1 spelling, so v1 helpers read them', () => {
    const answer = parseCurrentActionResponse(ok([{ CancelledIoc: { oid, filledSz: 0 } }, { resting: { oid } }, { triggered: { oid } }]));
    const keys = 'response' in answer ? answer.response.data.statuses.map((s) => Object.keys(s)[0]!) : [];
    expect(keys).toEqual(['cancelledIOC', 'resting', 'triggered']);
  });

  it('keeps several entries per action in order, the first possibly a counterparty order', () => {
    const statuses = [{ filled: { oid: key(0x77), totalSz: 1, avgPx: 100 } }, { filled: { oid, totalSz: -1, avgPx: 100 } }];
    const answer = parseCurrentActionResponse(ok(statuses));
    expect('response' in answer && answer.response.data.statuses).toEqual([
      { filled: { oid: key(0x77), totalSz: 1, avgPx: 100, isBuy: true } },
      { filled: { oid, totalSz: 1, avgPx: 100, isBuy: false } },
    ]);
  });

  it('reads authentication failures (HTTP 200, status error) and the top-level error body', () => {
    expect(parseCurrentActionResponse(ok([{ error: { message: 'bad signature' } }], 'error'))).toEqual(ok([{ error: { message: 'bad signature' } }], 'error'));
    const body = { status: 'error', error: { code: 'CURSOR_EXPIRED', message: 'cursor expired' } };
    expect(parseCurrentActionResponse(body)).toEqual(body);
  });

  it('rejects a broken envelope naming the field', () => {
    expect(fieldOf(() => parseCurrentActionResponse({ status: 'ok', response: { type: 'action', data: { statuses: [] } } }))).toBe('response.type');
    expect(fieldOf(() => parseCurrentActionResponse({ status: 'done', response: { type: 'order', data: { statuses: [] } } }))).toBe('status');
    expect(fieldOf(() => parseCurrentActionResponse({ status: 'error', error: { message: 'x' } }))).toBe('error.code');
  });
});
