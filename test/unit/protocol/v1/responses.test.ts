import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/core/errors.js';
import { ACTION_TYPES, type ActionType } from '../../../../src/protocol/v1/actions.js';
import { isErrorBody, parseActionResponse } from '../../../../src/protocol/v1/responses.js';
import { isTerminalStatus, ORDER_STATUSES, statusClass, TERMINAL_STATUSES } from '../../../../src/protocol/v1/status.js';
import { AGENT, OID } from './fixtures.js';

const oid = OID.b58;
// One order-response entry per status of the specification's table, with its extra fields.
const entries: Record<string, unknown> = {
  resting: { oid },
  working: { oid, filledSz: 0.25, remainingSz: 0.75, vwap: 100000 },
  filled: { oid, totalSz: 1, avgPx: 100000.5 },
  partiallyFilled: { oid, totalSz: 0.4, avgPx: 100001 },
  cancelled: { oid },
  cancelledRiskLimit: { oid, reason: 'insufficient margin' },
  cancelledSelfCrossing: { oid },
  cancelledReduceOnly: { oid },
  cancelledIOC: { oid, filledSz: 0 },
  rejectedInvalid: { oid, reason: 'price not on tick' },
  rejectedRiskLimit: { oid },
  rejectedCrossing: { oid },
  rejectedDuplicate: { oid },
  error: { message: 'unknown order' },
};

function envelope(type: ActionType, statuses: unknown[], status = 'ok') {
  return { status, response: { type, data: { statuses } } };
}

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).field;
  }
  throw new Error('expected a ValidationError');
}

describe('v1 order statuses', () => {
  it('lists the 14 statuses of the table with their classes', () => {
    expect(ORDER_STATUSES).toHaveLength(14);
    expect(TERMINAL_STATUSES).toHaveLength(11);
    expect(ORDER_STATUSES.filter((s) => statusClass(s) === 'nonTerminal')).toEqual(['placed', 'working']);
    expect(statusClass('error')).toBe('responseOnly');
    expect(isTerminalStatus('cancelledIOC')).toBe(true);
    expect(isTerminalStatus('placed')).toBe(false);
    expect(isTerminalStatus('error')).toBe(false);
  });

  it('keys placed as resting in order responses', () => {
    expect(Object.keys(entries).sort()).toEqual(ORDER_STATUSES.map((s) => (s === 'placed' ? 'resting' : s)).sort());
  });
});

describe('v1 action responses', () => {
  it('all 14 statuses parse in one order response, in order', () => {
    const statuses = Object.entries(entries).map(([k, v]) => ({ [k]: v }));
    const parsed = parseActionResponse('order', envelope('order', statuses));
    expect(isErrorBody(parsed)).toBe(false);
    if (isErrorBody(parsed)) return;
    expect(parsed.response.data.statuses.map((s) => Object.keys(s)[0])).toEqual(Object.keys(entries));
    const first = parsed.response.data.statuses[0]!;
    if ('resting' in first) expect(first.resting.oid).toBe(oid);
    else throw new Error('first entry should be resting');
  });

  it('rejects a status entry with a missing field, a wrong type, an unknown key or two keys', () => {
    const bad = (entry: unknown) => fieldOf(() => parseActionResponse('order', envelope('order', [{ resting: { oid } }, entry])));
    expect(bad({ working: { oid, filledSz: 1, remainingSz: 1 } })).toBe('response.data.statuses[1].working.vwap');
    expect(bad({ filled: { oid, totalSz: '1', avgPx: 1 } })).toBe('response.data.statuses[1].filled.totalSz');
    expect(bad({ cancelledIOC: { oid: 'short', filledSz: 0 } })).toBe('response.data.statuses[1].cancelledIOC.oid');
    expect(bad({ placed: { oid } })).toBe('response.data.statuses[1].placed');
    expect(bad({ cancelled: { oid }, filled: { oid, totalSz: 1, avgPx: 1 } })).toBe('response.data.statuses[1]');
    expect(bad({ error: {} })).toBe('response.data.statuses[1].error.message');
    expect(bad({ hasOwnProperty: { oid } })).toBe('response.data.statuses[1].hasOwnProperty');
  });

  it('checks the envelope: status, response.type', () => {
    expect(fieldOf(() => parseActionResponse('order', envelope('order', [], 'fine')))).toBe('status');
    expect(fieldOf(() => parseActionResponse('order', envelope('faucet', [])))).toBe('response.type');
    expect(fieldOf(() => parseActionResponse('order', { status: 'ok', response: { type: 'order', data: {} } }))).toBe('response.data.statuses');
  });

  it('parses an authentication failure (status error, error entry) for every action type', () => {
    for (const type of ACTION_TYPES) {
      const parsed = parseActionResponse(type, envelope(type, [{ error: { message: 'bad signature' } }], 'error'));
      expect(parsed.status).toBe('error');
    }
  });

  it('parses the responses of the other actions (gaps §2)', () => {
    const ok: [ActionType, unknown][] = [
      [
        'updateUserSettings',
        {
          settings: {
            maxLeverage: [
              ['BTC-USD', 50],
              ['ETH-USD', 1],
            ],
          },
        },
      ],
      ['agentWalletCreation', { agentWallet: { agent: AGENT.b58, delete: false } }],
      ['faucet', { deposit: { amount: 10000 } }],
      ['faucet', { depositFailed: { message: 'Rate limit exceeded' } }],
      ['oracle', { oracle: { count: 2 } }],
      ['oracle', { error: { message: 'unauthorized signer' } }],
    ];
    for (const [type, entry] of ok) expect(() => parseActionResponse(type, envelope(type, [entry]))).not.toThrow();
  });

  it('rejects broken responses of the other actions naming the field', () => {
    const cases: [ActionType, unknown, string][] = [
      ['updateUserSettings', { settings: { maxLeverage: [['BTC-USD', '50']] } }, 'response.data.statuses[0].settings.maxLeverage[0][1]'],
      ['agentWalletCreation', { agentWallet: { agent: AGENT.b58 } }, 'response.data.statuses[0].agentWallet.delete'],
      ['faucet', { deposit: {} }, 'response.data.statuses[0].deposit.amount'],
      ['oracle', { oracle: { count: 1.5 } }, 'response.data.statuses[0].oracle.count'],
      ['oracle', { deposit: { amount: 1 } }, 'response.data.statuses[0].deposit'],
    ];
    for (const [type, entry, field] of cases) expect(fieldOf(() => parseActionResponse(type, envelope(type, [entry])))).toBe(field);
  });

  it('parses the top-level error body (gaps §4) and names its broken fields', () => {
    const parsed = parseActionResponse('order', { status: 'error', error: { code: 'BATCH_TOO_LARGE', message: 'more than 100 items' } });
    expect(isErrorBody(parsed)).toBe(true);
    if (isErrorBody(parsed)) expect(parsed.error.code).toBe('BATCH_TOO_LARGE');
    expect(fieldOf(() => parseActionResponse('faucet', { status: 'error', error: { message: 'x' } }))).toBe('error.code');
    expect(fieldOf(() => parseActionResponse('faucet', { status: 'ok', error: { code: 'X', message: 'x' } }))).toBe('status');
  });

  it('ignores unknown fields in inbound objects', () => {
    const entry = { filled: { oid, totalSz: 1, avgPx: 2, fee: 0.1 } };
    const parsed = parseActionResponse('order', { ...envelope('order', [entry]), requestId: 7 });
    expect(parsed.status).toBe('ok');
  });
});
