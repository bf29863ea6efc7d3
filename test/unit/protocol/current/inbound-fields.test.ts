import { describe, expect, it } from 'vitest';
import { parse, safeParse } from '../../../../src/core/schema.js';
import {
  CURRENT_NON_TERMINAL,
  CURRENT_TERMINAL,
  currentStatusSchema,
  currentTifSchema,
  isBuyOf,
  nsTimestamp,
  v1OrderType,
  v1State,
  v1Tif,
} from '../../../../src/protocol/current/inbound-fields.js';
import { isTerminalStatus } from '../../../../src/protocol/v1/status.js';

describe('current order statuses (venue-protocol §9.4)', () => {
  it('match case-insensitively and read canceled as cancelled', () => {
    const read = (s: string) => parse(currentStatusSchema, s);
    expect(['cancelledIoc', 'cancelledIOC', 'canceledIOC', 'CANCELLEDIOC'].map(read)).toEqual(Array(4).fill('cancelledIoc'));
    expect(['canceled', 'Cancelled'].map(read)).toEqual(['cancelled', 'cancelled']);
    expect(read('CanceledRiskLimit')).toBe('cancelledRiskLimit');
    expect(safeParse(currentStatusSchema, 'expired').ok).toBe(false);
    expect(safeParse(currentStatusSchema, 3).ok).toBe(false);
  });

  it('map onto v1: terminal stays terminal, every non-terminal is placed or (once filled) working', () => {
    for (const s of CURRENT_TERMINAL) expect(isTerminalStatus(v1State(s, 0))).toBe(true);
    for (const s of CURRENT_NON_TERMINAL) {
      expect(v1State(s, 0)).toBe('placed');
      expect(v1State(s, 0.1)).toBe('working');
    }
    expect([v1State('cancelledIoc', 0), v1State('siblingCancelled', 0), v1State('triggerFailed', 0)]).toEqual(['cancelledIOC', 'cancelled', 'rejectedInvalid']);
  });
});

describe('current row fields', () => {
  it('time in force: postOnly (any case) and alo are v1 alo', () => {
    expect(['gtc', 'IOC', 'postOnly', 'POSTONLY', 'alo'].map((t) => v1Tif(parse(currentTifSchema, t)))).toEqual(['gtc', 'ioc', 'alo', 'alo', 'alo']);
    expect(safeParse(currentTifSchema, 'fok').ok).toBe(false);
  });

  it('order types: conditionals are v1 trigger orders', () => {
    expect((['limit', 'market', 'stop', 'takeProfit', 'range', 'trigger', 'trailing'] as const).map(v1OrderType)).toEqual([
      'limit',
      'market',
      ...Array(5).fill('trigger'),
    ]);
  });

  it('timestamps: ns kept exact, ms (below 1e15) scaled to ns', () => {
    expect(parse(nsTimestamp, '1770918312787284000')).toBe(1770918312787284000n);
    expect(parse(nsTimestamp, 1770918312787)).toBe(1770918312787000000n);
    expect(safeParse(nsTimestamp, 1.5).ok).toBe(false);
  });

  it('side from signed sizes: the original size, else the remaining one; zero reads as a buy', () => {
    expect([isBuyOf(-1, -0.5), isBuyOf(1, 0), isBuyOf(0, -2), isBuyOf(0, 0)]).toEqual([false, true, false, true]);
  });
});
